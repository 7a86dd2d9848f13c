package rules

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Printable is the one escape of stored text shown to a reader: a terminal (every `memhost`
// command that prints), an agent's model or a program (the MCP and REST answers that quote a
// model's words). Input refuses what a terminal obeys instead of showing, and what a model
// writes is held to the same rules before it is stored (ModelText), but rows written before
// those rules, or directly to the database, may still hold it: ESC sequences that erase a line
// or conceal what follows, BEL, C1 controls, a lone CR that rewrites its line, and what shows
// as nothing or reorders what follows (zero-width spaces, bidi overrides). Every such rune is
// shown as a visible escape (\x1b, \u202e), and every byte of invalid UTF-8 as \xNN, so the
// reader sees what is there; tabs and line breaks (LF, CRLF) are kept so that multi-line text
// keeps its lines. Text without any of these is returned as it is.
func Printable(s string) string {
	if strings.IndexFunc(s, needsEscape) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r' && strings.HasPrefix(s[i+1:], "\n"), !needsEscape(r):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// PrintableLine is s as one line (a reason, a piece of evidence: the short fields CheckLine
// rules), Printable: every run of white space, line breaks included, becomes one space, so a
// line break in it cannot forge the next line of what quotes it.
func PrintableLine(s string) string { return Printable(strings.Join(strings.Fields(s), " ")) }

// needsEscape reports a rune a terminal would not show as itself: anything but tab, LF and
// graphic characters (letters, marks, numbers, punctuation, symbols and spaces). CR is
// decided by Printable, which keeps it before LF.
func needsEscape(r rune) bool {
	return r != '\n' && r != '\t' && !unicode.IsGraphic(r)
}
