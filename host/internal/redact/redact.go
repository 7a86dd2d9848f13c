package redact

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

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
// secret is capture group 1; the rest of the match stays readable.
type extraRule struct {
	id string
	re *regexp.Regexp
}

var extraRules = []extraRule{
	{
		// user:password@ in any scheme://  — keep the URL (host and user are useful
		// context in a memory such as "staging DB is postgres://app@db:5432") and drop
		// only the password. gitleaks has no rule for database URLs.
		id: "url-password",
		re: regexp.MustCompile(`(?i)\b[a-z][a-z0-9+.\-]*://[^\s:/@]+:([^\s@/]+)@`),
	},
	{
		// password=..., passwd: ..., pwd = "..." in prose and snippets. gitleaks'
		// generic-api-key rule requires high entropy, so human-chosen passwords pass it.
		id: "password-assignment",
		re: regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|pwd)\b["']?\s*[:=]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)`),
	},
}

// placeholder matches values that are references, not secrets: $VAR, ${VAR}, <password>,
// {{ .Password }}, *** — redacting them would destroy useful instructions.
var placeholder = regexp.MustCompile(`^["']?(\$|<|\{\{|\*{3,}|\[REDACTED)`)

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
	for _, rule := range extraRules {
		for _, m := range rule.re.FindAllStringSubmatchIndex(text, -1) {
			start, end := m[2], m[3]
			if start < 0 || end-start < 3 || placeholder.MatchString(text[start:end]) {
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
