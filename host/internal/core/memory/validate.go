package memory

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/store"
)

// This file is the one owner of input rules: every path that takes text from a caller (store,
// search, archive; the surfaces only pass it on) checks it here, so a field is held to the same
// rules whichever tool or endpoint it arrives through. CheckText and CheckLine are exported for
// paths outside the service that take the same fields (import).

// Limits of the free-text fields besides memory text and queries (Config.MaxTextBytes).
const (
	MaxProvenanceBytes = 200 // agent, session, source
	MaxReasonBytes     = 500 // archive reason
)

func (s *Service) validateText(field, text string) error {
	return CheckText(field, text, s.cfg.MaxTextBytes)
}

// CheckText applies the rules of memory text, queries, goals, plans and proposals: valid UTF-8,
// no control characters but tab and line breaks (LF, or CRLF as Windows files and pastes have
// it), at most limit bytes, something visible in it, and no bidi controls. A control character
// has no place in text a person reads: ESC, BEL and the C1 controls drive terminals (erase a
// line, conceal what follows), and a lone CR rewrites the line it ends, so an operator
// approving a proposal would see other text than the one approved. A bidi control (U+202E
// RIGHT-TO-LEFT OVERRIDE, the isolates, the marks) reorders how the rest of a line reads, in
// a banner, a terminal or a review, so what an agent is shown is not what is stored. The
// error is a *FieldError naming field. Text a model wrote passes it through ModelText.
func CheckText(field, text string, limit int) error {
	if !utf8.ValidString(text) {
		return fieldErr(field, "must be valid UTF-8")
	}
	if strings.ContainsRune(text, 0) {
		return fieldErr(field, "must not contain NUL bytes")
	}
	if len(text) > limit {
		return fieldErr(field, "is %d bytes; the limit is %d bytes", len(text), limit)
	}
	for i, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && !(r == '\r' && strings.HasPrefix(text[i+1:], "\n")) {
			return fieldErr(field, "must not contain control characters other than tab and line breaks (found %U)", r)
		}
	}
	if blank(text) {
		return fieldErr(field, "must not be empty or only invisible characters")
	}
	if i := strings.IndexFunc(text, isBidi); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return fieldErr(field, "must not contain bidi control characters, which reorder how the text reads (found %U)", r)
	}
	return nil
}

// isBidi reports a bidi control: the embeddings, overrides, isolates and marks.
func isBidi(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

// CheckLine applies the rules of the short optional fields (agent, session, source, reasons,
// names, project keys): valid UTF-8, at most limit bytes, one line without control or format
// characters, and when given, something visible. They are shown in tables, logs and banners,
// where a line break or an escape sequence would forge output, and where a zero-width space
// or a bidi override makes one value look like another ("proj-one\u200b" like "proj-one").
// The error is a *FieldError naming field.
func CheckLine(field, v string, limit int) error {
	if !utf8.ValidString(v) {
		return fieldErr(field, "must be valid UTF-8")
	}
	if len(v) > limit {
		return fieldErr(field, "is %d bytes; the limit is %d bytes", len(v), limit)
	}
	for _, r := range v {
		switch {
		case unicode.IsControl(r):
			return fieldErr(field, "must not contain control characters (found %U)", r)
		case Hidden(r):
			return fieldErr(field, "must not contain invisible format characters such as zero-width spaces or bidi overrides (found %U)", r)
		}
	}
	if v != "" && blank(v) {
		return fieldErr(field, "must not be only invisible characters")
	}
	return nil
}

// Hidden reports a rune a one-line field refuses: a control character, or a format or
// separator character (zero-width spaces and joiners, bidi overrides and isolates, soft
// hyphen, BOM, line and paragraph separators), which renders as nothing, reorders what
// follows, or breaks the line. Paths that derive a one-line value rather than take it (project
// keys from directories and remotes) replace these runes instead of refusing them.
func Hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// blank reports whether text shows nothing: only whitespace, control and format characters
// (zero-width spaces and joiners, BOM, bidi marks), variation selectors and the other code
// points Unicode says to render as nothing (Hangul fillers, combining grapheme joiner).
func blank(text string) bool {
	for _, r := range text {
		if !invisible(r) {
			return false
		}
	}
	return true
}

func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsControl(r) || r == '\u2800' || // braille blank
		unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// unit checks an optional [0, 1] value and applies its default.
func unit(field string, v *float64, def float64) (float64, error) {
	if v == nil {
		return def, nil
	}
	if !(*v >= 0 && *v <= 1) {
		return 0, fieldErr(field, "%v is out of range 0..1", *v)
	}
	return *v, nil
}

// validateStore checks a store request and turns it into a write (not yet redacted or
// embedded).
func (s *Service) validateStore(a Access, req StoreRequest) (store.Write, error) {
	if err := a.check(); err != nil {
		return store.Write{}, err
	}
	if err := s.validateText("text", req.Text); err != nil {
		return store.Write{}, err
	}
	scope, err := store.ParseScope(req.Scope)
	if err != nil {
		return store.Write{}, fieldErr("scope", "%q is not one of project, global", req.Scope)
	}
	if scope == store.ScopeGlobal && !a.global() {
		return store.Write{}, fmt.Errorf("%w: global memories need an admin token not bound to a project", ErrForbidden)
	}
	kind, err := store.ParseKind(req.Kind)
	if err != nil {
		return store.Write{}, fieldErr("kind", "%s", strings.TrimPrefix(err.Error(), "kind: "))
	}
	importance, err := unit("importance", req.Importance, 0.5)
	if err != nil {
		return store.Write{}, err
	}
	confidence, err := unit("confidence", req.Confidence, 0.8)
	if err != nil {
		return store.Write{}, err
	}
	for _, f := range []struct{ name, value string }{{"agent", req.Agent}, {"session", req.Session}, {"source", req.Source}} {
		if err := CheckLine(f.name, f.value, MaxProvenanceBytes); err != nil {
			return store.Write{}, err
		}
	}
	w := store.Write{
		ID: uuid.Must(uuid.NewV7()), Scope: scope, Kind: kind, Text: req.Text, Importance: importance,
		Confidence: confidence, Pinned: req.Pinned, Actor: a.Actor,
		Provenance: store.Provenance{Agent: req.Agent, Session: req.Session, Source: req.Source},
	}
	if scope == store.ScopeProject {
		w.ScopeKey = a.Project
	}
	return w, nil
}

// redactWrite replaces secrets in every free-text field of w and returns how many it
// replaced: a token pasted as an agent name is as much a secret as one in the text.
func (s *Service) redactWrite(w *store.Write) int {
	n := 0
	for _, f := range []*string{&w.Text, &w.Provenance.Agent, &w.Provenance.Session, &w.Provenance.Source} {
		n += s.redactField(f)
	}
	return n
}

// redactField redacts one field in place.
func (s *Service) redactField(f *string) int {
	if s.redact == nil || *f == "" {
		return 0
	}
	var n int
	*f, n = s.redact(*f)
	return n
}
