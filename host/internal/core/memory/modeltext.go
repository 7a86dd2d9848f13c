package memory

import (
	"strings"
	"unicode"

	"github.com/memhost/memhost/host/internal/core/rules"
)

// This file is the one way a model's words become memhost text. A worker's answer (a session
// summary, an extracted fact, conflicts evidence, a plan-drift plan and its reason, a
// gatekeeper's veto reason) reaches what agents and operators read as surely as an agent's
// write does, so it is held to the same rules: the rules of validate.go (UTF-8, size, control
// characters, something visible; bidi controls, which reorder how a text reads) and the secret
// redactor. The difference is only who can fix a text that breaks them: an agent is told and
// writes again, a model is not there to read an error, so what has no place in text (control
// characters but tab and line breaks, bidi controls, invisible format characters in a line) is
// taken out first; what is left must then pass as an agent's text would.

// ModelText is text, a model's multi-line answer for field, held to the rules of memory text
// (rules.CheckText) within limit bytes (0: memory.max_text_bytes) and redacted. The
// error is a *rules.FieldError naming field.
func (s *Service) ModelText(field, text string, limit int) (string, error) {
	if limit <= 0 {
		limit = s.cfg.MaxTextBytes
	}
	text = strings.Map(textRune, strings.ReplaceAll(strings.ToValidUTF8(text, "\uFFFD"), "\r\n", "\n"))
	if err := rules.CheckText(field, text, limit); err != nil {
		return "", err
	}
	s.redactField(&text)
	return text, nil
}

// ModelLine is text, a model's one-line answer for field (a reason, a piece of evidence), as
// one line held to the rules of the short fields (rules.CheckLine) within limit bytes and redacted:
// line breaks and other white space become single spaces, invisible format characters go. An
// empty answer stays "" (the caller says what it means); the error is a *rules.FieldError naming
// field.
func (s *Service) ModelLine(field, text string, limit int) (string, error) {
	text = strings.Join(strings.FieldsFunc(strings.Map(lineRune, strings.ToValidUTF8(text, "\uFFFD")), unicode.IsSpace), " ")
	if err := rules.CheckLine(field, text, limit); err != nil {
		return "", err
	}
	s.redactField(&text)
	return text, nil
}

// textRune keeps a rune of multi-line model text: tab and line feed stay, other control
// characters (a lone CR included) and bidi controls go.
func textRune(r rune) rune {
	switch {
	case r == '\n' || r == '\t':
		return r
	case unicode.IsControl(r) || rules.IsBidi(r):
		return -1
	}
	return r
}

// lineRune keeps a rune of one-line model text: control characters and line or paragraph
// separators become spaces (FieldsFunc then joins the words), other rules.Hidden runes go.
func lineRune(r rune) rune {
	switch {
	case unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp):
		return ' '
	case rules.Hidden(r):
		return -1
	}
	return r
}
