package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/memhost/memhost/host/internal/core/store"
)

// Fact is one synthetic project memory with a paraphrase (for fold measurements) and a
// question an agent might ask about it (for search measurements).
type Fact struct {
	Kind       store.Kind
	Text       string
	Paraphrase string
	Query      string
}

// Corpus generates synthetic project facts from templates and a vocabulary of tools, paths,
// identifiers, ports, commands and conventions. It is deterministic for a seed, so every run
// of the benchmark loads the same texts, and it never yields the same text twice: the store
// folds exact duplicates, which would silently shrink the corpus.
type Corpus struct {
	r    *rand.Rand
	seen map[string]struct{}
}

// NewCorpus returns a generator seeded with seed.
func NewCorpus(seed uint64) *Corpus {
	return &Corpus{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), seen: map[string]struct{}{}}
}

// Next returns a fact whose text this generator has not produced before.
func (c *Corpus) Next() Fact {
	for {
		t := templates[c.r.IntN(len(templates))]
		f := t(c)
		f.Text += c.context()
		key := strings.ToLower(f.Text)
		if _, dup := c.seen[key]; dup {
			continue
		}
		c.seen[key] = struct{}{}
		return f
	}
}

// Take returns the next n facts.
func (c *Corpus) Take(n int) []Fact {
	out := make([]Fact, n)
	for i := range out {
		out[i] = c.Next()
	}
	return out
}

func (c *Corpus) pick(words []string) string { return words[c.r.IntN(len(words))] }

// service names a component. Real projects have hundreds of them, and a corpus with a few
// dozen would make unrelated facts near-duplicates that the store folds together.
func (c *Corpus) service() string {
	if c.r.IntN(3) == 0 {
		return c.pick(services) + "-" + c.pick(roles)
	}
	return c.codename() + "-" + c.pick(roles)
}

// codename is a made-up word such as "vextral" or "orinbo": the project-specific names
// (services, flags, modules) that carry most of a real fact's meaning.
func (c *Corpus) codename() string {
	n := 2 + c.r.IntN(2)
	var b strings.Builder
	for range n {
		b.WriteString(c.pick(syllables))
	}
	return b.String()
}

// context is a trailing clause carrying the provenance agents tend to add (a ticket, a date,
// who said so), which also gives each fact a few terms of its own.
func (c *Corpus) context() string {
	switch c.r.IntN(6) {
	case 0:
		return fmt.Sprintf(" (see %s-%d)", c.pick(ticketPrefixes), 100+c.r.IntN(9900))
	case 1:
		return fmt.Sprintf(" Confirmed by the %s team in %s %d.", c.pick(teams), c.pick(months), 2021+c.r.IntN(5))
	case 2:
		return fmt.Sprintf(" This came up while debugging %s.", c.ident())
	case 3:
		return fmt.Sprintf(" Details in %s.", c.path())
	default:
		return ""
	}
}

func (c *Corpus) port() int { return 1024 + c.r.IntN(64000) }

func (c *Corpus) ident() string {
	name := c.codename()
	return c.pick(verbs) + strings.ToUpper(name[:1]) + name[1:] + c.pick(nouns) + c.pick(identSuffixes)
}

func (c *Corpus) path() string {
	return c.pick(dirs) + "/" + c.service() + "/" + c.pick(files)
}

func (c *Corpus) table() string { return c.codename() + "_" + c.pick(tableSuffixes) }

func (c *Corpus) envVar(service string) string {
	return strings.ToUpper(strings.ReplaceAll(service, "-", "_")) + "_" + c.pick(envVarSuffixes)
}

func (c *Corpus) command() string {
	switch c.r.IntN(6) {
	case 0:
		return "make " + c.pick(makeTargets)
	case 1:
		return "pnpm run " + c.pick(makeTargets)
	case 2:
		return "go test ./" + c.pick(dirs) + "/" + c.service() + "/..."
	case 3:
		return "docker compose up " + c.service()
	case 4:
		return "kubectl -n " + c.pick(envs) + " rollout restart deploy/" + c.service()
	default:
		return "just " + c.pick(makeTargets) + " " + c.service()
	}
}

// templates are the shapes of project facts agents store. Each yields a fact, a paraphrase
// that keeps the key terms but reorders and rewords the rest (what a second agent would write
// about the same thing), and a natural question whose answer is the fact.
var templates = []func(c *Corpus) Fact{
	func(c *Corpus) Fact {
		s, e, p := c.service(), c.pick(envs), c.port()
		return Fact{store.KindFact,
			fmt.Sprintf("The %s service listens on port %d in %s.", s, p, e),
			fmt.Sprintf("In %s the %s service is served on port %d.", e, s, p),
			fmt.Sprintf("which port does %s use in %s", s, e)}
	},
	func(c *Corpus) Fact {
		t, a, area := c.pick(tools), c.pick(tools), c.pick(areas)
		return Fact{store.KindConvention,
			fmt.Sprintf("Use %s, never %s, for %s.", t, a, area),
			fmt.Sprintf("For %s we use %s and not %s.", area, t, a),
			fmt.Sprintf("what tool should I use for %s", area)}
	},
	func(c *Corpus) Fact {
		cmd, s := c.command(), c.service()
		return Fact{store.KindConvention,
			fmt.Sprintf("Run `%s` before pushing changes to the %s service.", cmd, s),
			fmt.Sprintf("Before you push %s service changes, run `%s`.", s, cmd),
			fmt.Sprintf("what do I need to run before pushing %s changes", s)}
	},
	func(c *Corpus) Fact {
		t, p, g := c.pick(tools), c.path(), c.pick(dirs)
		return Fact{store.KindReference,
			fmt.Sprintf("%s is configured in %s; the copy under %s/generated is overwritten on build.", t, p, g),
			fmt.Sprintf("The %s configuration lives in %s (the %s/generated copy gets overwritten by the build).", t, p, g),
			fmt.Sprintf("where is the %s config", t)}
	},
	func(c *Corpus) Fact {
		s, fix := c.service(), c.pick(fixes)
		port := c.port()
		errText := strings.ReplaceAll(c.pick(errorsText), "{port}", fmt.Sprint(port))
		errText = strings.ReplaceAll(errText, "{table}", c.table())
		return Fact{store.KindErrorPattern,
			fmt.Sprintf("When %s shows `%s`, %s.", s, errText, fix),
			fmt.Sprintf("Fix for `%s` in %s: %s.", errText, s, fix),
			fmt.Sprintf("how do I fix %s in %s", errText, s)}
	},
	func(c *Corpus) Fact {
		id, p, why := c.ident(), c.path(), c.pick(reasons)
		return Fact{store.KindGotcha,
			fmt.Sprintf("%s in %s must stay idempotent because %s.", id, p, why),
			fmt.Sprintf("Keep %s (%s) idempotent: %s.", id, p, why),
			fmt.Sprintf("can %s run twice", id)}
	},
	func(c *Corpus) Fact {
		t, a, area, why := c.pick(tools), c.pick(tools), c.pick(areas), c.pick(reasons)
		return Fact{store.KindDecision,
			fmt.Sprintf("We chose %s over %s for %s because %s.", t, a, area, why),
			fmt.Sprintf("%s was picked instead of %s for %s, since %s.", t, a, area, why),
			fmt.Sprintf("why did we pick %s for %s", t, area)}
	},
	func(c *Corpus) Fact {
		s, v := c.service(), ""
		v = c.envVar(s)
		e := c.pick(envs)
		return Fact{store.KindGotcha,
			fmt.Sprintf("Tests for %s fail unless %s is set; in %s it comes from the vault.", s, v, e),
			fmt.Sprintf("Set %s or the %s tests fail (%s reads it from the vault).", v, s, e),
			fmt.Sprintf("why do the %s tests fail", s)}
	},
	func(c *Corpus) Fact {
		s, team, ch := c.service(), c.pick(teams), c.pick(channels)
		return Fact{store.KindReference,
			fmt.Sprintf("The %s team owns %s; page them in #%s.", team, s, ch),
			fmt.Sprintf("%s belongs to the %s team, reachable in #%s.", s, team, ch),
			fmt.Sprintf("who owns %s", s)}
	},
	func(c *Corpus) Fact {
		tb, s, col := c.table(), c.service(), c.pick(columns)
		return Fact{store.KindGotcha,
			fmt.Sprintf("The %s table used by %s has no index on %s, so filter by id first.", tb, s, col),
			fmt.Sprintf("%s has no index on %s in the %s table; always filter by id first.", s, col, tb),
			fmt.Sprintf("is %s indexed on %s", tb, col)}
	},
	func(c *Corpus) Fact {
		s, p := c.service(), c.pick(prefs)
		return Fact{store.KindPreference,
			fmt.Sprintf("The user prefers %s in the %s codebase.", p, s),
			fmt.Sprintf("In %s code, the user wants %s.", s, p),
			fmt.Sprintf("what style does the user want in %s", s)}
	},
	func(c *Corpus) Fact {
		s, e, n := c.service(), c.pick(envs), 2+c.r.IntN(30)
		return Fact{store.KindFact,
			fmt.Sprintf("%s runs %d replicas in %s behind the %s load balancer.", s, n, e, c.pick(lbs)),
			fmt.Sprintf("In %s there are %d replicas of %s.", e, n, s),
			fmt.Sprintf("how many replicas does %s have in %s", s, e)}
	},
	func(c *Corpus) Fact {
		id, s, ms := c.ident(), c.service(), 50+c.r.IntN(5000)
		return Fact{store.KindFact,
			fmt.Sprintf("%s in %s times out after %d ms and retries three times.", id, s, ms),
			fmt.Sprintf("The %s timeout is %d ms (%s, three retries).", id, ms, s),
			fmt.Sprintf("what is the timeout of %s", id)}
	},
	func(c *Corpus) Fact {
		tb, tool := c.table(), c.pick([]string{"goose", "flyway", "alembic", "prisma migrate", "sqlc", "atlas"})
		dir := c.pick(dirs)
		return Fact{store.KindConvention,
			fmt.Sprintf("Schema changes to %s go through %s migrations in %s/migrations, never by hand.", tb, tool, dir),
			fmt.Sprintf("Never alter %s by hand: write a %s migration under %s/migrations.", tb, tool, dir),
			fmt.Sprintf("how do I change the %s schema", tb)}
	},
}

var (
	services = []string{"billing", "auth", "gateway", "search", "notifications", "ledger", "scheduler", "ingest",
		"exporter", "webhooks", "catalog", "checkout", "inventory", "reporting", "payments", "identity", "audit",
		"media", "thumbnailer", "mailer", "crawler", "indexer", "router", "quota", "session", "profile", "feed",
		"metrics", "tracing", "config", "secrets", "storage", "cache", "queue", "workers", "admin", "api",
		"frontend", "mobile-bff", "graphql", "pricing", "fraud", "shipping", "tax", "loyalty", "recommendations"}
	roles          = []string{"api", "worker", "sync", "exporter", "consumer", "cron", "admin", "web", "bff", "indexer", "proxy", "reconciler", "ingester", "notifier", "planner"}
	ticketPrefixes = []string{"PLAT", "PAY", "INFRA", "OPS", "SEC", "DATA", "WEB", "MOB", "CORE", "SRCH"}
	syllables      = []string{"ar", "bel", "cor", "dax", "en", "fir", "gal", "hux", "is", "jor", "kel", "lum", "mor", "nex", "ov", "pra", "quin", "ros", "syl", "tor", "ul", "vex", "wen", "yor", "zan", "tri", "om", "ka"}
	months         = []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"}
	envs           = []string{"dev", "staging", "production", "ci", "local", "preview", "canary", "qa", "sandbox", "eu-west", "us-east"}
	tools          = []string{"pnpm", "npm", "yarn", "bun", "poetry", "uv", "pip", "cargo", "make", "just", "bazel", "gradle",
		"maven", "docker", "podman", "kubectl", "helm", "terraform", "pulumi", "ansible", "golangci-lint", "eslint",
		"prettier", "ruff", "black", "mypy", "pytest", "jest", "vitest", "playwright", "cypress", "sqlc", "goose",
		"buf", "protoc", "redis", "postgres", "kafka", "nats", "rabbitmq", "temporal", "sentry", "grafana", "vault",
		"esbuild", "vite", "webpack", "turborepo", "nx", "tilt", "skaffold", "argo", "flux"}
	areas = []string{"JavaScript dependencies", "Python packaging", "container builds", "end-to-end tests", "unit tests",
		"linting", "formatting", "database migrations", "infrastructure", "deploys", "feature flags", "background jobs",
		"message passing", "caching", "secrets", "load tests", "API clients", "protobuf generation", "the monorepo build",
		"local development", "error tracking", "dashboards", "release notes", "type checking", "bundling"}
	verbs          = []string{"parse", "load", "build", "validate", "render", "fetch", "sync", "flush", "resolve", "encode", "decode", "retry", "schedule", "emit", "compute", "apply", "reconcile", "export", "import", "migrate"}
	nouns          = []string{"Invoice", "User", "Session", "Token", "Order", "Cart", "Report", "Webhook", "Payload", "Config", "Quota", "Ledger", "Receipt", "Thumbnail", "Event", "Batch", "Cursor", "Snapshot", "Refund", "Coupon", "Shipment", "Tenant", "Plan", "Price"}
	identSuffixes  = []string{"", "Handler", "V2", "Async", "Batch", "FromCache", "WithRetry", "Job", "Task"}
	dirs           = []string{"cmd", "internal", "pkg", "src", "lib", "apps", "services", "deploy", "scripts", "config", "tools", "packages"}
	files          = []string{"main.go", "config.yaml", "handler.ts", "schema.sql", "Dockerfile", "values.yaml", "settings.py", "index.ts", "routes.rb", "Makefile", "app.toml", "server.go", "client.py", ".env.example"}
	tableSuffixes  = []string{"events", "items", "log", "history", "snapshots", "queue", "index", "rollups"}
	columns        = []string{"created_at", "tenant_id", "status", "email", "external_id", "updated_at", "owner_id", "kind"}
	envVarSuffixes = []string{"URL", "TOKEN", "API_KEY_PATH", "TIMEOUT", "REGION", "DSN", "BUCKET", "ENDPOINT"}
	makeTargets    = []string{"test", "lint", "gen", "migrate", "seed", "build", "e2e", "fmt", "dev", "release", "bench", "check", "codegen", "typecheck"}
	teams          = []string{"platform", "payments", "growth", "data", "infra", "mobile", "web", "sre", "security", "search", "core", "billing-eng"}
	channels       = []string{"oncall-platform", "payments-alerts", "infra-help", "sre-pager", "data-eng", "web-dev", "release-train", "security-triage"}
	lbs            = []string{"envoy", "nginx", "haproxy", "ALB", "traefik", "caddy"}
	prefs          = []string{"table-driven tests", "early returns over nested ifs", "small focused commits", "errors wrapped with context",
		"no global state", "explicit types over inference", "descriptive variable names", "functional options for constructors",
		"one assertion per test", "comments that explain why", "structured logging", "no mocks for the database"}
	errorsText = []string{"ECONNREFUSED 127.0.0.1:{port}", "EADDRINUSE :::{port}", "context deadline exceeded",
		"x509: certificate signed by unknown authority", "too many open files", "OOMKilled", `relation "{table}" does not exist`,
		`duplicate key value violates unique constraint "{table}_pkey"`, "ERR_PNPM_OUTDATED_LOCKFILE", "exec format error",
		"no space left on device", "connection reset by peer", "TLS handshake timeout", "permission denied (publickey)",
		"could not serialize access due to concurrent update", "module not found", "segmentation fault", "401 Unauthorized from the token endpoint"}
	fixes = []string{"restart its container", "delete the node_modules folder and reinstall", "run the migrations first",
		"stop the locally installed postgres", "raise ulimit -n to 65536", "regenerate the lockfile", "refresh the vault token",
		"rebuild the image for linux/amd64", "increase the memory limit to 2Gi", "prune docker volumes", "retry the transaction",
		"add the internal CA to the trust store", "rotate the deploy key", "bump the client timeout"}
	reasons = []string{"the payment provider retries webhooks", "the scheduler may fire twice after a failover",
		"deploys roll back by replaying jobs", "clients resend on timeout", "the queue delivers at least once",
		"it is shared with the mobile app", "legal requires an audit trail", "the old cluster is still reading it",
		"it halves p99 latency", "the team already knows it", "it has first-class monorepo support", "it is faster in CI"}
)
