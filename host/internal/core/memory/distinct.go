package memory

import (
	"strings"
	"sync"
	"unicode"
)

// Distinct reports whether two similar texts name different things and so must not fold:
// each contains a specific the other lacks. Specifics are numbers and identifiers — tokens
// with a digit, an inner connector (x-web, pg_stage, v1.2, a/b) or an inner capital
// (parseHTTP) —, numbers spelt out ("three" is 3), a number with its unit ("10 MB" is 10mb,
// never 10gb) and paths, which keep what anchors them ("/dist/app" is not "dist/app";
// "./dist/app" is). "api-web runs 28 replicas" and "billing-web runs 16 replicas" share almost
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

// specifics is the set of text's specifics (see Distinct).
func specifics(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range scanWords(text) {
		if w.specific != "" {
			out[w.specific] = true
		}
	}
	return out
}

// scanned is one word of a text as the specifics rules read it: a specific (normalised, lower
// case), or a plain word.
type scanned struct {
	specific string // "" for a plain word
	word     string // the plain word, lower case, as written
	number   bool   // the specific is a number without a unit
	// clauseEnd is set on the last word of a clause: before a comma, a semicolon, a sentence's
	// end, or a conjunction that starts another clause ("and", "but", "while").
	clauseEnd bool
}

// specificRunes are the runes a specific may hold besides letters and digits.
const specificRunes = "-_./:%"

// scanWords splits text into words and reads each as a specific or a plain word, joining a
// number and the unit after it ("10 MB") into one specific.
func scanWords(text string) []scanned {
	var out []scanned
	for _, field := range strings.Fields(text) {
		parts := strings.FieldsFunc(field, func(r rune) bool {
			return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune(specificRunes, r))
		})
		for _, p := range parts {
			out = appendWord(out, p)
		}
		if len(out) > 0 && (strings.ContainsAny(field[len(field)-1:], ",;!?") || strings.HasSuffix(field, ".") && !strings.HasSuffix(field, "..")) {
			out[len(out)-1].clauseEnd = true
		}
	}
	if len(out) > 0 {
		out[len(out)-1].clauseEnd = true
	}
	return out
}

// appendWord reads one token and appends it to words.
func appendWord(words []scanned, tok string) []scanned {
	lower := strings.ToLower(strings.TrimRight(tok, "-_./:"))
	if n := len(words); n > 0 && words[n-1].number {
		if u, ok := units()[lower]; ok {
			// "10 MB", "three weeks": the unit is part of the number.
			words[n-1].specific += u
			words[n-1].number = false
			return words
		}
	}
	if conjunctions[lower] && len(words) > 0 {
		words[len(words)-1].clauseEnd = true
		return append(words, scanned{word: lower})
	}
	if n, ok := numberWords[lower]; ok {
		return append(words, scanned{specific: n, number: true})
	}
	if s, ok := specificOf(tok); ok {
		return append(words, scanned{specific: s, number: isNumber(s)})
	}
	return append(words, scanned{word: lower})
}

// specificOf reads tok as a specific: trailing punctuation goes; a leading "./" goes (the
// same relative path), but a leading "/", "../" or "~/" anchors a path and stays.
func specificOf(tok string) (string, bool) {
	tok = strings.TrimLeft(strings.TrimRight(tok, "-_./:"), "-_:")
	for strings.HasPrefix(tok, "./") {
		tok = tok[2:]
	}
	for _, anchor := range []string{"/", "../", "~/"} {
		if strings.HasPrefix(tok, anchor) && len(tok) > len(anchor) {
			return strings.ToLower(tok), true
		}
	}
	tok = strings.TrimLeft(tok, "./")
	if isSpecific(tok) {
		return strings.ToLower(tok), true
	}
	return "", false
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

// isNumber reports whether a specific is a number alone ("28", "1.5"), which a unit may follow.
func isNumber(s string) bool {
	return strings.Trim(s, "0123456789.") == "" && strings.ContainsAny(s, "0123456789")
}

// conjunctions start another clause: "the api listens on 8080 and metrics on 9090".
var conjunctions = map[string]bool{"and": true, "but": true, "while": true, "whereas": true, "whilst": true}

// units are the units notes write after a number, each mapped to one spelling so "10 MB",
// "10MB" and "10 megabytes" are one specific and "10 GB" another.
var units = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, line := range []string{
		"b byte bytes", "kb kilobyte kilobytes", "mb megabyte megabytes", "gb gigabyte gigabytes",
		"tb terabyte terabytes", "kib", "mib", "gib", "tib", "bit bits",
		"ns nanosecond nanoseconds", "us µs microsecond microseconds", "ms millisecond milliseconds msec",
		"s sec secs second seconds", "min mins minute minutes", "h hr hrs hour hours", "d day days",
		"w wk week weeks", "mo month months", "y yr yrs year years",
		"% percent pct", "x times", "k thousand", "cpu cpus core cores", "px",
	} {
		forms := strings.Fields(line)
		for _, f := range forms {
			m[f] = forms[0]
		}
	}
	return m
})
