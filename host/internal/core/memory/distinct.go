package memory

import (
	"strings"
	"unicode"
)

// Distinct reports whether two similar texts name different things and so must not fold:
// each contains a specific the other lacks. Specifics are numbers and identifiers — tokens
// with a digit, an inner connector (x-web, pg_stage, v1.2, a/b) or an inner capital
// (parseHTTP). "api-web runs 28 replicas" and "billing-web runs 16 replicas" share almost
// every word, and a lexical embedder scores them as near-duplicates, but they are two facts.
// A text that only adds a specific ("use pnpm" then "use pnpm 9") is a refinement and folds.
// It is one of SameStatement's checks, which the write path applies.
func Distinct(a, b string) bool {
	sa, sb := specifics(a), specifics(b)
	return hasExtra(sa, sb) && hasExtra(sb, sa)
}

func hasExtra(x, y map[string]bool) bool {
	for t := range x {
		if !y[t] {
			return true
		}
	}
	return false
}

func specifics(text string) map[string]bool {
	out := map[string]bool{}
	for _, tok := range strings.FieldsFunc(text, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:", r))
	}) {
		tok = strings.Trim(tok, "-_./:")
		if isSpecific(tok) {
			out[strings.ToLower(tok)] = true
		}
	}
	return out
}

func isSpecific(tok string) bool {
	runes := []rune(tok)
	for i, r := range runes {
		switch {
		case unicode.IsDigit(r):
			return true
		case i > 0 && i < len(runes)-1 && strings.ContainsRune("-_./:", r):
			return true
		case i > 0 && unicode.IsUpper(r) && unicode.IsLower(runes[i-1]):
			return true
		}
	}
	return false
}
