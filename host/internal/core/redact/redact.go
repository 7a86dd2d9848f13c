package redact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/rs/zerolog"
	"github.com/zricethezav/gitleaks/v8/detect"
	"github.com/zricethezav/gitleaks/v8/logging"
)

// Finding locates one redacted secret. It never carries the secret itself, so findings
// can be logged and returned to clients.
type Finding struct {
	// RuleID names the rule that matched, e.g. "github-pat" or "url-password".
	RuleID string
	// Start and End are byte offsets of the secret in the ORIGINAL text, End exclusive.
	Start, End int
}

// Redactor replaces secrets with [REDACTED:<rule-id>]. It is safe for concurrent use.
type Redactor struct {
	detector *detect.Detector
}

// sharedDetector builds gitleaks' default detector once per process: building it parses
// and compiles the whole ruleset (tens of milliseconds), and NewDetectorDefaultConfig goes
// through viper's global instance, which is not safe to call concurrently.
var sharedDetector = sync.OnceValues(func() (*detect.Detector, error) {
	// gitleaks logs through a package-level zerolog logger; at trace level it logs the
	// secrets it skips. The host has its own logging, so silence the library's entirely.
	logging.Logger = zerolog.Nop()
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("build gitleaks default detector: %w", err)
	}
	// Decoding passes (base64, hex, percent) would report decoded secrets whose text does
	// not occur in the input, so there would be no span to replace.
	d.MaxDecodeDepth = 0
	return d, nil
})

// New returns a Redactor backed by the process-wide gitleaks detector. Scanning does not
// mutate the detector (its findings list is only filled by AddFinding, which the string
// scan does not call), so one detector serves all goroutines without locking.
func New() (*Redactor, error) {
	d, err := sharedDetector()
	if err != nil {
		return nil, err
	}
	return &Redactor{detector: d}, nil
}

// extraRule is a pattern gitleaks' default ruleset does not cover in free text. The
// secret is capture group 1; the rest of the match stays readable. When secret is set, a
// candidate is redacted only if it reports true, which keeps prose that merely looks like
// an assignment ("the password is rotated monthly") intact.
type extraRule struct {
	id     string
	re     *regexp.Regexp
	secret func(value string) bool
	// context, when set, must match somewhere in the text for the rule to apply: a shape too
	// common to redact alone is a secret beside what it belongs to.
	context *regexp.Regexp
}

// allRules are the rules Redact applies besides gitleaks', compiled at the first Redact, not
// at the package's init, which every process of the binary pays (memhost run and the CLIs'
// hooks among them).
var allRules = sync.OnceValue(func() []extraRule { return append(extraRules(), keyShapes()...) })

// awsKeyID is an AWS access key id, the context of its secret access key.
var awsKeyID = regexp.MustCompile(`\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)

// secretNames are what a credential is called in prose and config: "the secret key", "client
// secret", "api token", "access key".
const secretNames = `(?:client[\s_-]+secret|secret(?:[\s_-]+access)?(?:[\s_-]+key)?|` +
	`(?:(?:api|access|auth|deploy|session|refresh)[\s_-]*)?token|api[\s_-]*key|access[\s_-]+key)`

// extraRules are the free-text patterns memhost adds to gitleaks' ruleset.
func extraRules() []extraRule {
	return []extraRule{
		{
			// user:password@ in any scheme:// — keep the URL (host and user are useful context in
			// a memory such as "staging DB is postgres://app@db:5432") and drop only the password.
			// People paste passwords unescaped, so it may hold '/' and '@': it runs to the last
			// '@' before the host. The user may be empty (redis://:pw@host).
			id: "url-password",
			re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@"'<>]*:([^\s"'<>` + backtick + `]+)@[^\s@/?#"'<>]*`),
		},
		{
			// password=..., passwd: ..., pwd = "..." in prose and snippets. gitleaks'
			// generic-api-key rule requires high entropy, so human-chosen passwords pass it.
			id: "password-assignment",
			re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|pwd)\b["']?\s*[:=]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)`),
		},
		{
			// "the admin password is X", "the password for the staging db was set to X". The value
			// is a secret unless it is a word of prose ("is rotated monthly", "is in vault").
			id: "password-phrase",
			re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|passcode)\b(?:\s+(?:for|of|on|to)(?:\s+[\w.@:/-]+){1,4}?)?` +
				`\s+(?:is|was)(?:\s+(?:set|changed|reset|updated)\s+to|\s+now)?\s*:?\s+` + phraseValue),
			secret: func(v string) bool { return !proseWord(v) },
		},
		{
			// "AWS: AKIA... / <secret>": the secret access key is 40 characters of base64 that
			// gitleaks recognises only behind a name (aws_secret_access_key = ...). Beside a key id
			// any such run with mixed case and digits is the secret; a commit hash (hex) is not.
			id:      "aws-secret-access-key",
			re:      regexp.MustCompile(`(?:^|[^A-Za-z0-9/+=])([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)`),
			secret:  mixedCase,
			context: awsKeyID,
		},
		{
			// "the secret key for prod is X", "the api token was set to X", as password-phrase for
			// passwords. A generated value is asked for (letters and digits, 8 or more), so that
			// "the token is valid for an hour" or "is sha256-hashed" stays.
			id: "secret-phrase",
			re: regexp.MustCompile(`(?i)\b` + secretNames + `\b(?:\s+(?:for|of|on|to)(?:\s+[\w.@:/-]+){1,4}?)?` +
				`\s+(?:is|was)(?:\s+(?:set|changed|reset|updated)\s+to|\s+now)?\s*:?\s+` + phraseValue),
			secret: keyValue,
		},
		{
			// secret: X, token = X, api_key: "X" with a value gitleaks' entropy test lets pass (a
			// human-chosen one). Types and calls ("token: string", "token = getToken(ctx)") hold no
			// letters and digits together.
			id:     "secret-assignment",
			re:     regexp.MustCompile(`(?i)\b` + secretNames + `\b["']?\s*[:=]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)`),
			secret: keyValue,
		},
		{
			// OpenAI keys: the legacy sk- + 48 alphanumerics and the sk-proj-/sk-svcacct-/sk-admin-
			// forms. gitleaks' openai rule only knows keys with the T3BlbkFJ marker.
			id:     "openai-api-key",
			re:     regexp.MustCompile(`\b(sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{32,})`),
			secret: mixedCase,
		},
		{
			// Authorization: Bearer|Basic|token <credential> outside a curl command (gitleaks only
			// checks headers inside curl invocations).
			id:     "authorization-header",
			re:     regexp.MustCompile(`(?i)\bauthorization\s*:\s*(?:(?:bearer|basic|token|digest|apikey)\s+)?([A-Za-z0-9._~+/-]{8,}=*)`),
			secret: hasDigitAndLetter,
		},
		{
			// "bearer <token>" in prose.
			id:     "bearer-token",
			re:     regexp.MustCompile(`(?i)\bbearer\s+([A-Za-z0-9._~+/-]{20,}=*)`),
			secret: hasDigitAndLetter,
		},
	}
}

// keyShapes are provider keys known by their exact shape: a fixed prefix that names what the
// key is, then a fixed length of a fixed alphabet. gitleaks drops a match below its entropy
// floor, so the documentation key AKIA...EXAMPLE, a sequence or a run of one character passed;
// but a value of a key's exact shape is a key whatever its entropy (a real one can be dull, and
// whoever pasted it did not know it was harmless). The bare prefix in prose ("ghp_ tokens are
// classic PATs") has no body and stays.
func keyShapes() []extraRule {
	return []extraRule{
		{id: "aws-access-token", re: regexp.MustCompile(`(` + awsKeyID.String() + `)`)},
		{id: "github-pat", re: regexp.MustCompile(`\b(gh[pousr]_[A-Za-z0-9]{36})\b`)},
		{id: "github-fine-grained-pat", re: regexp.MustCompile(`\b(github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b`)},
		{id: "gitlab-pat", re: regexp.MustCompile(`\b(glpat-[A-Za-z0-9_-]{20})(?:[^A-Za-z0-9_-]|$)`)},
		{id: "stripe-access-token", re: regexp.MustCompile(`\b((?:sk|rk)_(?:live|test)_[A-Za-z0-9]{24,99})\b`)},
		{id: "npm-access-token", re: regexp.MustCompile(`\b(npm_[A-Za-z0-9]{36})\b`)},
		{id: "gcp-api-key", re: regexp.MustCompile(`\b(AIza[A-Za-z0-9_-]{35})(?:[^A-Za-z0-9_-]|$)`)},
		{id: "openai-api-key", re: regexp.MustCompile(`\b(sk-[A-Za-z0-9]{48})\b`)},
		{id: "huggingface-access-token", re: regexp.MustCompile(`\b(hf_[A-Za-z]{34})\b`)},
	}
}

// phraseValue is the value after "password is": quoted, or one word whose trailing
// punctuation ends the sentence rather than the password.
const phraseValue = `("[^"\n]+"|'[^'\n]+'|` + backtick + `[^` + backtick + `\n]+` + backtick +
	`|[^\s"',;` + backtick + `]*[^\s"',;.!?)` + backtick + `])`

const backtick = "`"

// placeholder matches values that are references, not secrets: $VAR, ${VAR}, <password>,
// {{ .Password }}, *** — redacting them would destroy useful instructions.
var placeholder = regexp.MustCompile(`^["'` + backtick + `]?(\$|<|\{\{|\*{3,}|\[REDACTED)`)

// proseWords continue a sentence after "the password is": what the password is like or where
// it lives, not the password.
var proseWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the in at on from via by under inside within per not never always
		also still only just now usually typically probably simply what whatever your my our their his her its
		this that one same different case required optional expired invalid valid wrong correct incorrect
		empty blank missing weak strong long short secret unknown hidden masked visible random shared
		available too set kept stored managed rotated generated`) {
		m[w] = true
	}
	return m
}()

// proseWord reports whether v is an ordinary word (or hyphenated words) rather than a
// password: a listed word, or one ending like an adjective or participle.
func proseWord(v string) bool {
	for _, r := range v {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-') {
			return false
		}
	}
	w := strings.ToLower(v)
	first, _, _ := strings.Cut(w, "-")
	return proseWords[w] || proseWords[first] ||
		strings.HasSuffix(w, "ed") || strings.HasSuffix(w, "ing") || strings.HasSuffix(w, "ly")
}

// keyValue reports a value that looks generated or chosen as a secret: at least 8 characters
// with letters and digits, and not a compound that ends in a word ("sha256-hashed",
// "v2-compatible").
func keyValue(v string) bool {
	last := v[strings.LastIndexByte(v, '-')+1:]
	word := len(last) >= 3 && strings.IndexFunc(last, func(r rune) bool { return r < 'a' || r > 'z' }) < 0
	return len(v) >= 8 && hasDigitAndLetter(v) && !(word && last != v)
}

// hasDigitAndLetter is the least a generated credential has; words and prose lack it.
func hasDigitAndLetter(v string) bool {
	return strings.ContainsAny(v, "0123456789") && strings.IndexFunc(v, unicode.IsLetter) >= 0
}

// mixedCase reports digits, upper- and lower-case letters together, as random keys have and
// kebab-case names ("sk-learn-compatible-estimators") do not.
func mixedCase(v string) bool {
	return hasDigitAndLetter(v) && strings.IndexFunc(v, unicode.IsUpper) >= 0 && strings.IndexFunc(v, unicode.IsLower) >= 0
}

// Redact returns text with every detected secret replaced by [REDACTED:<rule-id>], and the
// findings sorted by Start. Overlapping detections are merged into one replacement.
func (r *Redactor) Redact(text string) (string, []Finding) {
	if text == "" {
		return text, nil
	}
	var spans []Finding
	for _, f := range r.detector.DetectString(text) {
		spans = append(spans, locate(text, f.RuleID, f.Match, f.Secret)...)
	}
	for _, rule := range allRules() {
		if rule.context != nil && !rule.context.MatchString(text) {
			continue
		}
		for _, m := range rule.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := m[2], m[3]
			if start < 0 || end-start < 3 || placeholder.MatchString(text[start:end]) ||
				(rule.secret != nil && !rule.secret(strings.Trim(text[start:end], `"'`+backtick))) {
				continue
			}
			spans = append(spans, Finding{RuleID: rule.id, Start: start, End: end})
		}
	}
	if len(spans) == 0 {
		return text, nil
	}
	spans = merge(spans)

	var b strings.Builder
	b.Grow(len(text))
	prev := 0
	for _, s := range spans {
		b.WriteString(text[prev:s.Start])
		b.WriteString("[REDACTED:")
		b.WriteString(s.RuleID)
		b.WriteByte(']')
		prev = s.End
	}
	b.WriteString(text[prev:])
	return b.String(), spans
}

// locate turns a gitleaks finding into byte spans. gitleaks reports line/column of the
// match and the secret text, not byte offsets, so the secret is found inside each
// occurrence of the match; every occurrence is redacted, since the same secret pasted
// twice is still a secret.
func locate(text, ruleID, match, secret string) []Finding {
	if secret == "" {
		return nil
	}
	var spans []Finding
	if match != "" {
		if inner := strings.Index(match, secret); inner >= 0 {
			for off := 0; ; {
				i := strings.Index(text[off:], match)
				if i < 0 {
					break
				}
				start := off + i + inner
				spans = append(spans, Finding{RuleID: ruleID, Start: start, End: start + len(secret)})
				off += i + len(match)
			}
		}
	}
	if len(spans) > 0 {
		return spans
	}
	// The match may differ from the text (gitleaks trims newlines); fall back to the secret.
	for off := 0; ; {
		i := strings.Index(text[off:], secret)
		if i < 0 {
			return spans
		}
		spans = append(spans, Finding{RuleID: ruleID, Start: off + i, End: off + i + len(secret)})
		off += i + len(secret)
	}
}

// merge sorts spans and unions overlaps; the widest detection names the merged span,
// since it is the most specific description of what was removed.
func merge(spans []Finding) []Finding {
	sort.Slice(spans, func(i, j int) bool {
		if spans[i].Start != spans[j].Start {
			return spans[i].Start < spans[j].Start
		}
		return spans[i].End > spans[j].End
	})
	out := spans[:1]
	widest := spans[0].End - spans[0].Start
	for _, s := range spans[1:] {
		last := &out[len(out)-1]
		if s.Start < last.End {
			if w := s.End - s.Start; w > widest {
				last.RuleID, widest = s.RuleID, w
			}
			last.End = max(last.End, s.End)
			continue
		}
		out = append(out, s)
		widest = s.End - s.Start
	}
	return out
}
