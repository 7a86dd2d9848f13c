package transfer

import "github.com/memhost/memhost/host/internal/core/redact"

// maxMemo bounds the scrubber's memo; it starts over when full.
const maxMemo = 8192

// scrubber removes secrets from every free-text field of a record with the write path's
// redactor. A memory's text comes back in its history and labels (agent, source) repeat from
// record to record, so results are memoised: redaction is the costliest step of an import.
type scrubber struct {
	redactor *redact.Redactor
	memo     map[string]scrubbed
	found    int // secrets removed so far
}

type scrubbed struct {
	text     string
	findings int
}

func newScrubber(r *redact.Redactor) *scrubber {
	return &scrubber{redactor: r, memo: map[string]scrubbed{}}
}

func (s *scrubber) str(v string) string {
	if v == "" {
		return v
	}
	out, ok := s.memo[v]
	if !ok {
		text, findings := s.redactor.Redact(v)
		out = scrubbed{text: text, findings: len(findings)}
		if len(s.memo) >= maxMemo {
			clear(s.memo)
		}
		s.memo[v] = out
	}
	s.found += out.findings
	return out.text
}

func (s *scrubber) ptr(v *string) *string {
	if v == nil {
		return nil
	}
	out := s.str(*v)
	return &out
}

// value scrubs the strings inside a decoded JSON value (a history entry's detail).
func (s *scrubber) value(v any) any {
	switch t := v.(type) {
	case string:
		return s.str(t)
	case map[string]any:
		for k, e := range t {
			t[k] = s.value(e)
		}
	case []any:
		for i, e := range t {
			t[i] = s.value(e)
		}
	}
	return v
}

// record scrubs every free-text field of r in place.
func (s *scrubber) record(r *Record) {
	r.Text = s.str(r.Text)
	r.ArchivedReason = s.str(r.ArchivedReason)
	r.Provenance.Agent = s.str(r.Provenance.Agent)
	r.Provenance.Session = s.str(r.Provenance.Session)
	r.Provenance.Source = s.str(r.Provenance.Source)
	for i := range r.MergedFrom {
		r.MergedFrom[i].Text = s.str(r.MergedFrom[i].Text)
		r.MergedFrom[i].Agent = s.str(r.MergedFrom[i].Agent)
	}
	for i := range r.History {
		h := &r.History[i]
		h.BeforeText, h.AfterText, h.Actor = s.ptr(h.BeforeText), s.ptr(h.AfterText), s.str(h.Actor)
		s.value(h.Detail)
	}
}
