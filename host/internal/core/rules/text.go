package rules

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of the free-text fields besides memory text and queries (Config.MaxTextBytes).
const (
	MaxProvenanceBytes = 200 // agent, session, source
	MaxReasonBytes     = 500 // archive reason
)

// CheckText applies the rules of memory text, queries, goals, plans and proposals: valid UTF-8,
// no control characters but tab and line breaks (LF, or CRLF as Windows files and pastes have
// it), at most limit bytes, something visible in it, and no bidi controls. A control character
// has no place in text a person reads: ESC, BEL and the C1 controls drive terminals (erase a
// line, conceal what follows), and a lone CR rewrites the line it ends, so an operator
// approving a proposal would see other text than the one approved. A bidi control (U+202E
// RIGHT-TO-LEFT OVERRIDE, the isolates, the marks) reorders how the rest of a line reads, in
// a banner, a terminal or a review, so what an agent is shown is not what is stored. The
// error is a *FieldError naming field. Text a model wrote passes it through the memory service's ModelText.
func CheckText(field, text string, limit int) error {
	if !utf8.ValidString(text) {
		return Errf(field, "must be valid UTF-8")
	}
	if strings.ContainsRune(text, 0) {
		return Errf(field, "must not contain NUL bytes")
	}
	if len(text) > limit {
		return Errf(field, "is %d bytes; the limit is %d bytes", len(text), limit)
	}
	for i, r := range text {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && !(r == '\r' && strings.HasPrefix(text[i+1:], "\n")) {
			return Errf(field, "must not contain control characters other than tab and line breaks (found %U)", r)
		}
	}
	if blank(text) {
		return Errf(field, "must not be empty or only invisible characters")
	}
	if i := strings.IndexFunc(text, IsBidi); i >= 0 {
		r, _ := utf8.DecodeRuneInString(text[i:])
		return Errf(field, "must not contain bidi control characters, which reorder how the text reads (found %U)", r)
	}
	return nil
}

// IsBidi reports a bidi control: the embeddings, overrides, isolates and marks.
func IsBidi(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }

// CheckLine applies the rules of the short optional fields (agent, session, source, reasons,
// names, project keys): valid UTF-8, at most limit bytes, one line without control or format
// characters, and when given, something visible. They are shown in tables, logs and banners,
// where a line break or an escape sequence would forge output, and where a zero-width space
// or a bidi override makes one value look like another ("proj-one\u200b" like "proj-one").
// The error is a *FieldError naming field.
func CheckLine(field, v string, limit int) error {
	if !utf8.ValidString(v) {
		return Errf(field, "must be valid UTF-8")
	}
	if len(v) > limit {
		return Errf(field, "is %d bytes; the limit is %d bytes", len(v), limit)
	}
	for _, r := range v {
		switch {
		case unicode.IsControl(r):
			return Errf(field, "must not contain control characters (found %U)", r)
		case Hidden(r):
			return Errf(field, "must not contain invisible format characters such as zero-width spaces or bidi overrides (found %U)", r)
		}
	}
	if v != "" && blank(v) {
		return Errf(field, "must not be only invisible characters")
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
