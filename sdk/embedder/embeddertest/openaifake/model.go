package openaifake

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// The fake's semantic model: every word that belongs to a concept (a group
// of synonyms an agent might use for the same thing) lights that concept's
// dimensions, and every word also lights a hashed dimension of its own (the
// residue), so that texts sharing a concept are near and texts sharing only
// other words are nearer than unrelated ones. It is deterministic and
// small, and no substitute for a real model's quality.

// concepts lists each concept's words. Multi-word entries match as phrases.
var concepts = map[string][]string{
	"package-manager": {"package manager", "package managers", "pnpm", "npm", "yarn", "bun", "pip", "poetry", "cargo", "gradle", "maven", "dependency", "dependencies", "install", "lockfile"},
	"tests":           {"test", "tests", "testing", "spec", "specs", "unit test", "unit tests", "coverage", "assert", "assertion", "tdd", "e2e"},
	"test-doubles":    {"mock", "mocks", "mocking", "mockk", "mockito", "fake", "fakes", "stub", "stubs", "test double", "test doubles", "spy", "spies"},
	"database":        {"database", "databases", "db", "postgres", "postgresql", "sql", "mysql", "sqlite", "schema", "migration", "migrations", "table", "tables", "query"},
	"deploy":          {"deploy", "deploys", "deployment", "deploying", "release", "releases", "ship", "staging", "production", "prod", "rollout"},
	"ci":              {"ci", "pipeline", "pipelines", "github actions", "workflow", "workflows", "build", "builds", "jenkins"},
	"lint":            {"lint", "linter", "linting", "eslint", "golangci", "format", "formatter", "formatting", "prettier", "gofmt", "style"},
	"docs":            {"docs", "documentation", "readme", "document", "comments", "comment"},
	"network":         {"port", "ports", "listen", "listens", "listening", "host", "address", "url", "endpoint", "endpoints"},
	"auth":            {"auth", "authentication", "login", "token", "tokens", "oauth", "credential", "credentials", "password", "secret", "secrets", "key", "keys"},
	"config":          {"config", "configuration", "configure", "settings", "setting", "env", "environment", "variable", "variables", "flag", "flags"},
	"errors":          {"error", "errors", "exception", "exceptions", "panic", "failure", "fails", "failing", "crash", "bug", "bugs"},
	"vcs":             {"git", "commit", "commits", "branch", "branches", "merge", "rebase", "pull request", "pr", "prs"},
	"go":              {"go", "golang", "goroutine", "goroutines"},
	"javascript":      {"javascript", "typescript", "js", "ts", "node", "nodejs", "react"},
	"python":          {"python", "py", "pytest", "django", "flask"},
	"jvm":             {"kotlin", "java", "jvm", "android", "junit"},
	"logging":         {"log", "logs", "logging", "logger", "trace", "tracing"},
	"api":             {"api", "apis", "rest", "http", "route", "routes", "handler", "handlers", "grpc"},
	"containers":      {"docker", "container", "containers", "image", "kubernetes", "k8s", "helm", "pod", "pods"},
	"cache":           {"cache", "caching", "cached", "redis", "memcached"},
	"performance":     {"performance", "slow", "fast", "latency", "speed", "benchmark", "benchmarks", "perf"},
	"change":          {"change", "changes", "edit", "edits", "modify", "refactor", "patch"},
}

// stopwords carry no meaning for the fake.
var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "i": true, "we": true, "my": true, "our": true, "for": true, "of": true,
	"in": true, "on": true, "to": true, "is": true, "are": true, "it": true, "this": true, "that": true,
	"and": true, "or": true, "not": true, "unless": true, "asked": true, "add": true, "write": true, "over": true,
	"with": true, "be": true, "use": true, "should": true, "prefer": true, "don't": true, "dont": true, "do": true, "does": true, "what": true, "how": true, "which": true, "here": true,
}

// conceptWeight and residueWeight balance meaning against spelling.
const (
	conceptWeight = 1.0
	residueWeight = 0.35
	// conceptSpread is how many dimensions one concept lights, so that a
	// collision with another concept's dimension does not merge them.
	conceptSpread = 3
)

var (
	phrases = map[string]string{} // "package manager" -> concept
	words   = map[string]string{} // "pnpm" -> concept
)

func init() {
	for c, ws := range concepts {
		for _, w := range ws {
			if strings.Contains(w, " ") {
				phrases[w] = c
			} else {
				words[w] = c
			}
		}
	}
}

// Vector is the fake model's embedding of text: dims components, unit
// length. Tests may call it to know what the server answers.
func Vector(text string, dims int) []float32 {
	acc := make([]float64, dims)
	toks := tokens(text)
	for i := 0; i < len(toks); i++ {
		if i+1 < len(toks) {
			if c, ok := phrases[toks[i]+" "+toks[i+1]]; ok {
				addConcept(acc, c)
				addResidue(acc, toks[i]+" "+toks[i+1])
				i++
				continue
			}
		}
		w := toks[i]
		if stopwords[w] {
			continue
		}
		if c, ok := lookup(w); ok {
			addConcept(acc, c)
		}
		addResidue(acc, w)
	}
	var n float64
	for _, x := range acc {
		n += x * x
	}
	out := make([]float32, dims)
	if n == 0 {
		// An empty or all-stopword text still gets a unit vector, as a
		// real model's would be: the one reserved for "nothing".
		out[0] = 1
		return out
	}
	n = math.Sqrt(n)
	for i, x := range acc {
		out[i] = float32(x / n)
	}
	return out
}

// lookup finds w's concept, trying a plural's singular too.
func lookup(w string) (string, bool) {
	if c, ok := words[w]; ok {
		return c, true
	}
	if s, ok := strings.CutSuffix(w, "s"); ok && len(s) > 2 {
		c, ok := words[s]
		return c, ok
	}
	return "", false
}

func addConcept(acc []float64, c string) {
	for i := range conceptSpread {
		d, sign := slot(c+"#"+string(rune('0'+i)), len(acc))
		acc[d] += sign * conceptWeight
	}
}

func addResidue(acc []float64, w string) {
	d, sign := slot("w:"+w, len(acc))
	acc[d] += sign * residueWeight
}

// slot hashes key to a dimension other than 0 (reserved for empty text)
// and a sign.
func slot(key string, dims int) (int, float64) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(key))
	s := h.Sum64()
	sign := 1.0
	if s&1 == 1 {
		sign = -1
	}
	if dims == 1 {
		return 0, sign
	}
	return 1 + int((s>>1)%uint64(dims-1)), sign
}

// tokens splits text into lower-case words: letters, digits and
// apostrophes.
func tokens(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
}

// Tokens is how many tokens the fake counts in text: one per word or
// punctuation run, the unit of Options.MaxInputTokens.
func Tokens(text string) int { return len(tokenSpans(text)) }

// tokenSpans are the byte ranges of text's tokens: runs of letters and
// digits, and each other non-space rune alone.
func tokenSpans(text string) [][2]int {
	var spans [][2]int
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		if start >= 0 && !word {
			spans = append(spans, [2]int{start, i})
			start = -1
		}
		switch {
		case word && start < 0:
			start = i
		case !word && !unicode.IsSpace(r):
			spans = append(spans, [2]int{i, i + len(string(r))})
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(text)})
	}
	return spans
}

// cut returns the first n tokens of text, as a runtime that silently caps
// its context does.
func cut(text string, n int) string {
	spans := tokenSpans(text)
	if len(spans) <= n {
		return text
	}
	return text[:spans[n-1][1]]
}

// lean tilts unit vector v towards the direction every vector of the model shares, so that two
// orthogonal texts end at cosine shared: v' = normalise(v + c·u), c = sqrt(shared/(1-shared)),
// where u is the unit vector of the "common" slots.
func lean(v []float32, shared float64) []float32 {
	if shared <= 0 || shared >= 1 {
		return v
	}
	u := make([]float64, len(v))
	for i := range conceptSpread {
		d, sign := slot("common#"+string(rune('0'+i)), len(v))
		u[d] += sign
	}
	var un float64
	for _, x := range u {
		un += x * x
	}
	c := math.Sqrt(shared/(1-shared)) / math.Sqrt(un)
	acc := make([]float64, len(v))
	var n float64
	for i := range v {
		acc[i] = float64(v[i]) + c*u[i]
		n += acc[i] * acc[i]
	}
	n = math.Sqrt(n)
	out := make([]float32, len(v))
	for i := range acc {
		out[i] = float32(acc[i] / n)
	}
	return out
}
