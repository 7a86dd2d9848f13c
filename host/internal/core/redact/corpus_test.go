package redact

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// The corpus below holds the secret shapes agents paste into memories, each inside the kind
// of sentence an agent writes. Every value is generated here at run time from a seeded
// generator: nothing credential-shaped is committed, yet the values have the length, alphabet
// and entropy real detectors look for.

const (
	lower    = "abcdefghijklmnopqrstuvwxyz"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	digits   = "0123456789"
	alnum    = lower + upper + digits
	hexLower = "0123456789abcdef"
	b64url   = alnum + "-_"
	b64      = alnum + "+/"
)

// gen draws random strings from a seeded generator, so every run sees the same corpus.
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{r: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

// s is n characters of alphabet, with at least one digit and one letter when the alphabet
// has both: real tokens are mixed, and detectors that demand entropy expect that.
func (g *gen) s(alphabet string, n int) string {
	for {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		out := string(b)
		if n < 4 || !strings.ContainsAny(alphabet, digits) || !strings.ContainsAny(alphabet, lower+upper) ||
			(strings.ContainsAny(out, digits) && strings.ContainsAny(out, lower+upper)) {
			return out
		}
	}
}

// password is a human-chosen shape: a word, digits and a symbol.
func (g *gen) password() string {
	words := []string{"Winter", "falcon", "Orchid", "copper", "Lantern", "maple"}
	return words[g.r.IntN(len(words))] + g.s(digits, 3) + string("!#%&*"[g.r.IntN(5)]) + g.s(lower, 2)
}

// sequence is the first n characters of alphabet, repeated: a key as dull as one can be.
func sequence(alphabet string, n int) string {
	return strings.Repeat(alphabet, n/len(alphabet)+1)[:n]
}

type secretCase struct {
	name   string
	text   string
	secret string // must not survive redaction
}

func secretCorpus() []secretCase {
	g := newGen(42)
	var out []secretCase
	add := func(name, secret, format string) {
		out = append(out, secretCase{name: name, text: strings.ReplaceAll(format, "%s", secret), secret: secret})
	}
	// Provider tokens with fixed prefixes.
	add("aws access key id", "AKIA"+g.s(upper+"234567", 16), "CI uses access key %s for the artifacts bucket")
	add("aws access key id (ASIA)", "ASIA"+g.s(upper+"234567", 16), "temporary creds: %s")
	add("aws secret access key", g.s(b64, 40), "aws_secret_access_key = %s")
	add("github classic pat", "ghp_"+g.s(alnum, 36), "use %s for the release job")
	add("github oauth token", "gho_"+g.s(alnum, 36), "the app token is %s")
	add("github app token", "ghs_"+g.s(alnum, 36), "installation token %s expires hourly")
	add("github fine-grained pat", "github_pat_"+g.s(alnum, 22)+"_"+g.s(alnum, 59), "fine-grained token: %s")
	add("gitlab pat", "glpat-"+g.s(alnum, 20), "gitlab token %s for the mirror")
	add("slack bot token", "xoxb-"+g.s(digits, 12)+"-"+g.s(digits, 13)+"-"+g.s(alnum, 24), "slack bot: %s")
	add("slack user token", "xoxp-"+g.s(digits, 12)+"-"+g.s(digits, 12)+"-"+g.s(digits, 13)+"-"+g.s(hexLower, 32), "my slack token %s")
	add("slack webhook", "https://hooks.slack.com/services/T"+g.s(upper+digits, 10)+"/B"+g.s(upper+digits, 10)+"/"+g.s(alnum, 24), "alerts post to %s")
	add("stripe live secret key", "sk_live_"+g.s(alnum, 24), "stripe key %s (prod)")
	add("stripe restricted key", "rk_live_"+g.s(alnum, 24), "restricted stripe key %s")
	add("stripe test key", "sk_test_"+g.s(alnum, 24), "in dev use %s")
	add("openai legacy key", "sk-"+g.s(alnum, 48), "the OpenAI key is %s")
	add("openai legacy key bare", "sk-"+g.s(alnum, 48), "%s")
	add("openai project key", "sk-proj-"+g.s(b64url, 80), "embeddings use %s")
	add("anthropic key", "sk-ant-api03-"+g.s(b64url, 93)+"AA", "claude key %s")
	add("google api key", "AIza"+g.s(b64url, 35), "maps key %s")
	add("npm token", "npm_"+g.s(alnum, 36), "publish with %s")
	add("sendgrid key", "SG."+g.s(b64url, 22)+"."+g.s(b64url, 43), "mail via %s")
	add("huggingface token", "hf_"+g.s(lower+upper, 34), "model pulls use %s")
	// A JWT's header and payload are base64url JSON objects, so both start with "eyJ".
	add("jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ"+g.s(b64url, 60)+"."+g.s(b64url, 43), "session cookie was %s")
	pemBody := g.s(b64, 64) + "\n" + g.s(b64, 64) + "\n" + g.s(b64, 20)
	add("rsa private key", "-----BEGIN "+"RSA PRIVATE KEY-----\n"+pemBody+"\n-----END RSA PRIVATE KEY-----", "deploy key:\n%s\n")
	add("openssh private key", "-----BEGIN "+"OPENSSH PRIVATE KEY-----\n"+pemBody+"\n-----END OPENSSH PRIVATE KEY-----", "%s")
	add("ec private key", "-----BEGIN "+"EC PRIVATE KEY-----\n"+pemBody+"\n-----END EC PRIVATE KEY-----", "signing key %s")

	// Credentials in URLs.
	add("url password", g.password(), "staging DB: postgres://app:%s@db.internal:5432/app")
	add("url password with slash", "ab/"+g.s(alnum, 8), "postgres://app:%s@db/app")
	add("url password with at", "p@"+g.s(alnum, 9), "mysql://root:%s@localhost/db")
	add("url password with slash and at", g.s(alnum, 4)+"/x@"+g.s(alnum, 6), "redis://default:%s@cache:6379/0")
	add("url password without user", g.s(alnum, 16), "REDIS_URL=redis://:%s@cache:6379")
	add("url password https", g.s(alnum, 14), "clone from https://deploy:%s@git.example.com/acme/app.git")

	// Passwords in prose and config.
	add("password is", g.password(), "the admin password is %s")
	add("password is trailing period", g.password(), "The staging password is %s.")
	add("password for x is", g.password(), "the password for the staging db is %s")
	add("password is quoted", "letmein"+g.s(digits, 2), "the wifi password is \"%s\"")
	add("password is backticked", g.s(lower, 9), "root password is `%s`")
	add("password was set to", g.password(), "the password was set to %s yesterday")
	add("password colon", g.password(), "password: %s")
	add("pwd colon", g.password(), "db user admin, pwd: %s")
	add("passwd equals", g.password(), "passwd=%s")
	add("password json", g.password(), `{"user": "svc", "password": "%s"}`)
	add("passphrase", g.password(), "the key passphrase is %s")

	// Authorization headers.
	add("authorization bearer", g.s(b64url, 40), "curl -H 'Authorization: Bearer %s' https://api.internal/v1")
	add("authorization basic", g.s(b64, 28)+"==", "Authorization: Basic %s")
	add("authorization token", g.s(hexLower, 40), "send Authorization: token %s to the API")
	add("bearer in prose", g.s(b64url, 32), "call it with bearer %s")
	add("api key header", g.s(alnum, 32), "X-Api-Key: %s")

	// The shapes of issue 21: a secret beside what names it, and credentials in remotes.
	keyID := "AKIA" + g.s(upper+"234567", 16)
	add("aws secret beside its key id", g.s(b64, 40), "AWS: "+keyID+" / %s")
	add("aws secret on the next line", g.s(b64, 40), "prod creds\n"+keyID+"\n%s\n")
	add("secret key for x is", g.s(b64, 40), "the secret key for prod is %s")
	add("secret key for x is (chosen)", g.password(), "secret key for prod is %s")
	add("client secret is", g.s(alnum, 24), "the OAuth client secret is %s")
	add("api token was set to", g.s(alnum, 30), "the api token was set to %s yesterday")
	add("access key is", g.s(alnum, 20), "Access key is %s.")
	add("token colon (chosen)", g.password(), "token: %s")
	add("secret colon (chosen)", g.password(), "secret: %s")
	add("api_key equals (chosen)", g.password(), `api_key = "%s"`)
	add("github pat in prose", "ghp_"+g.s(alnum, 36), "push with %s")
	add("url password postgres", g.password(), "postgres://app:%s@host")
	add("url password github remote", g.password(), "https://deploy:%s@github.com/acme/x")
	add("scp remote with a key parameter", "ghp_"+g.s(alnum, 36), "git@github.com:acme/x.git?key=%s")

	// The shapes of issue 25: a real-shaped key is a secret whatever its entropy. gitleaks
	// drops matches below its entropy floor, so documentation keys, sequences and repeats
	// passed; an agent pasting one did not know it was harmless, and a real key can be dull.
	add("aws documentation key id", "AKIA"+"IOSFODNN7EXAMPLE", "the example key %s is in the docs")
	add("aws key id bare (low entropy)", "AKIA"+strings.Repeat("A", 16), "%s")
	add("github pat sequential", "ghp_"+sequence(alnum, 36), "use %s for CI")
	add("github pat repeated", "ghp_"+strings.Repeat("a", 36), "token %s")
	add("github oauth sequential", "gho_"+sequence(alnum, 36), "the app token is %s")
	add("github fine-grained sequential", "github_pat_"+sequence(alnum, 22)+"_"+sequence(alnum, 59), "fine-grained: %s")
	add("gitlab pat repeated", "glpat-"+strings.Repeat("x", 20), "gitlab token %s")
	add("stripe key zeros", "sk_live_"+strings.Repeat("0", 24), "stripe key %s")
	add("npm token zeros", "npm_"+strings.Repeat("0", 36), "publish with %s")
	add("google api key sequential", "AIza"+sequence(b64url, 35), "maps key %s")
	add("openai legacy key sequential", "sk-"+sequence(alnum, 48), "the OpenAI key is %s")
	add("huggingface token sequential", "hf_"+sequence(lower+upper, 34), "model pulls use %s")
	return out
}

// cleanCorpus is prose that mentions secrets without containing any: redacting it would
// destroy the memory.
func cleanCorpus() []string {
	g := newGen(7)
	return []string{
		"the password reset flow lives in auth/",
		"the password is rotated monthly by the vault job",
		"the password is stored in 1Password under 'staging'",
		"password: <from vault>",
		"set password=$DB_PASSWORD before start",
		"run pwd to see where you are",
		"we use sk-learn (scikit-learn) for the ranking experiments",
		"sk-learn and sk-image are pinned in requirements.txt",
		"commit " + g.s(hexLower, 40) + " fixed the flaky test",
		"request id " + "3f2b8c1e-9a4d-4e7f-8b6a-" + g.s(hexLower, 12) + " shows the retry",
		"image digest sha256:" + g.s(hexLower, 64),
		"connect to postgres://memhost@localhost:5432/memhost",
		"the API lives at https://api.example.com/v1 and needs a bearer token header",
		"Authorization header is required on every /api/v1 call",
		"ghp_ tokens are classic GitHub PATs; prefer github_pat_ fine-grained ones",
		"AKIA keys are long-lived; ASIA keys come from STS",
		"mail ops@example.com or ping @oncall in #deploys",
		"clone with git@github.com:acme/app.git",
		"parseHTTPResponseWithRetries lives in internal/httpx/response.go",
		"use pnpm 9, never npm; run go test -race ./... before pushing",
		"tokens expire after 3600 s; refresh with POST /oauth/token",
		"the passwords table has a bcrypt column",
		"the password is at least 12 characters and is checked by zxcvbn",
		"the password was changed last week; the password for prod is in vault",
		"Password is case-sensitive",
		"Authorization: Bearer $TOKEN (the token comes from memhost token create)",
		"send Authorization: Bearer <token> on every request",
		"use a bearer token for calls to the admin API",
		"redis://cache:6379/0 and https://example.com:8443/status are the health endpoints",
		"the token is valid for one hour",
		"the API key is sha256-hashed before it is stored",
		"the secret key is kept in vault under prod/aws",
		"the deploy token is rotated by the CI job every 90 days",
		"the session token is v2-compatible",
		"token: string; expiresAt: number",
		"const token = await getToken(ctx)",
		"secret: ${{ secrets.DEPLOY_KEY }}",
		"the secret is out: we moved to Postgres 16",
		"the access key is AKIA-style for long-lived IAM users",
		// A commit hash beside a key id's name: hex is no secret access key.
		"the docs' example AKIA key was removed in commit " + g.s(hexLower, 40),
		"path /srv/" + g.s(lower, 40) + "/data and token refresh every 3600 s",
	}
}

// TestRedactCorpus: every secret shape in the corpus is redacted and no clean text is touched.
func TestRedactCorpus(t *testing.T) {
	t.Parallel()
	r := newRedactor(t)
	var leaked []string
	redacted := 0
	for _, c := range secretCorpus() {
		out, _ := r.Redact(c.text)
		if strings.Contains(out, c.secret) {
			leaked = append(leaked, c.name+": "+out)
			continue
		}
		redacted++
	}
	var touched []string
	for _, text := range cleanCorpus() {
		if out, findings := r.Redact(text); out != text || len(findings) > 0 {
			touched = append(touched, text+" -> "+out)
		}
	}
	t.Logf("secret corpus: %d redacted, %d leaked; clean corpus: %d of %d untouched",
		redacted, len(leaked), len(cleanCorpus())-len(touched), len(cleanCorpus()))
	require.Empty(t, leaked, "secrets that leaked")
	require.Empty(t, touched, "clean texts that were changed")
}
