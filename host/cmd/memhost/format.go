package main

import (
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// printable is the one escape of what memhost prints to a terminal. Text that agents and
// other clients wrote (proposals, goals, plans, the map, names, keys, reasons) may hold what
// a terminal obeys instead of showing: ESC sequences that erase a line or conceal what follows,
// BEL, C1 controls, a lone CR that rewrites its line. It may also hold what shows as nothing
// or reorders what follows (zero-width spaces, bidi overrides). Every such rune is printed as
// a visible escape (\x1b, \u202e), and every byte of invalid UTF-8 as \xNN, so the operator
// sees what is there; tabs and line breaks (LF, CRLF) are kept so that multi-line text keeps
// its lines. Input refuses these characters, but rows written before that, or directly to the
// database, may still hold them.
func printable(s string) string {
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

// needsEscape reports a rune a terminal would not show as itself: anything but tab, LF and
// graphic characters (letters, marks, numbers, punctuation, symbols and spaces). CR is
// decided by printable, which keeps it before LF.
func needsEscape(r rune) bool {
	return r != '\n' && r != '\t' && !unicode.IsGraphic(r)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func timeOrDash(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.Local().Format("2006-01-02 15:04")
}

// shortNames names each item of a listing by its short id (unique within the listing), or by
// its whole id with --full.
func shortNames[T any](full bool, items []T, id func(T) uuid.UUID) map[uuid.UUID]string {
	ids := make([]uuid.UUID, len(items))
	for i, it := range items {
		ids[i] = id(it)
	}
	if !full {
		return shortid.Shorten(ids)
	}
	names := make(map[uuid.UUID]string, len(ids))
	for _, x := range ids {
		names[x] = x.String()
	}
	return names
}

// count is n with the noun's singular or plural: "1 entry", "2 entries", "0 entries".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// listedStatus is the status filter of an empty inbox listing as a word before its noun
// ("open "), nothing for "all", which is no filter.
func listedStatus(status, byDefault string) string {
	if status = orDefault(status, byDefault); status == "all" {
		return ""
	}
	return printable(status) + " "
}
