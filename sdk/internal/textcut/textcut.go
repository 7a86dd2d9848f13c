package textcut

import (
	"strings"
	"unicode/utf8"
)

// Cut cuts s to at most n bytes on a rune boundary, ending a cut text with mark ("…", "...").
func Cut(s string, n int, mark string) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + mark
}

// Line squeezes s's whitespace (newlines included) into single spaces and cuts it to n bytes
// (Cut, marked "...").
func Line(s string, n int) string {
	return Cut(strings.Join(strings.Fields(s), " "), n, "...")
}
