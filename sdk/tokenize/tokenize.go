package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"
)

// Terms returns the terms of text in order, duplicates kept. See the package
// documentation for the rules.
func Terms(text string) []string {
	return AppendTerms(nil, text)
}

// AppendTerms appends the terms of text to dst and returns the extended
// slice, letting an indexer reuse one slice across documents.
func AppendTerms(dst []string, text string) []string {
	var t tokenizer
	t.dst = dst
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isWord(r) {
			i += size
			continue
		}
		start := i
		i += size
		for i < len(text) {
			r, size = utf8.DecodeRuneInString(text[i:])
			if !isWord(r) && !isConnector(r) && !(isApostrophe(r) && letterAround(text, i, size)) {
				break
			}
			i += size
		}
		t.chunk(strings.TrimRightFunc(text[start:i], isConnector))
	}
	return t.dst
}

// Stopword reports whether the lower-cased word w is dropped by Terms.
func Stopword(w string) bool {
	_, ok := stopwords[w]
	return ok
}

// stopwords are the function words dropped from every text; see the package
// documentation for what is deliberately left out.
var stopwords = func() map[string]struct{} {
	words := strings.Fields(`
		a an the and or but if then else so than
		of to in on at by for with from as into onto about via per
		is are was were be been being am do does did done has have had having
		it its this that these those there here
		i me my we us our you your he him his she her they them their
		can could will would shall should may might must
		which who whom whose what when where how why
		also just very too`)
	m := make(map[string]struct{}, len(words))
	for _, w := range words {
		m[w] = struct{}{}
	}
	return m
}()

// class is the character class used to find part boundaries.
type class uint8

const (
	classNone class = iota
	classLower
	classUpper
	classDigit
	classConnector
)

func classify(r rune) class {
	switch {
	case unicode.IsDigit(r):
		return classDigit
	case unicode.IsUpper(r):
		return classUpper
	case unicode.IsLetter(r):
		return classLower
	case isConnector(r):
		return classConnector
	default:
		// Apostrophes (elided) and combining marks (part of the letter
		// before them) do not change the class.
		return classNone
	}
}

func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isConnector(r rune) bool {
	switch r {
	case '_', '-', '.', '/', '\\', ':':
		return true
	}
	return false
}

func isApostrophe(r rune) bool { return r == '\'' || r == '’' }

// letterAround reports whether the rune at text[i:i+size] sits between two
// letters, i.e. is an in-word apostrophe rather than a quote.
func letterAround(text string, i, size int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:i])
	after, _ := utf8.DecodeRuneInString(text[i+size:])
	return unicode.IsLetter(before) && unicode.IsLetter(after)
}

type tokenizer struct {
	dst []string
	// buf lower-cases one part or chunk at a time; it is reused so that
	// lower-casing and the stopword lookup do not allocate.
	buf [64]byte
}

// chunk splits one chunk into parts and appends its terms.
func (t *tokenizer) chunk(c string) {
	// Remember where the chunk's terms start so the whole identifier can be
	// inserted in front of its parts once we know it was split.
	first := len(t.dst)
	parts := 0
	start := 0
	prev, prevPrev := classNone, classNone
	for i, r := range c {
		cl := classify(r)
		if cl == classNone {
			continue
		}
		boundary := false
		switch {
		case cl == classConnector:
			boundary = true
		case prev == classConnector:
			start = i
		case prev == classLower && cl == classUpper,
			prev == classDigit && cl != classDigit,
			prev != classDigit && prev != classNone && cl == classDigit:
			boundary = true
		case prevPrev == classUpper && prev == classUpper && cl == classLower:
			// "HTTPResponse": the part boundary is before the 'R', which
			// is the previous rune.
			_, size := utf8.DecodeLastRuneInString(c[:i])
			if start < i-size {
				t.part(c[start : i-size])
				parts++
				start = i - size
			}
		}
		if boundary {
			if start < i {
				t.part(c[start:i])
				parts++
			}
			start = i
			if cl == classConnector {
				start = i + utf8.RuneLen(r)
			}
		}
		prevPrev, prev = prev, cl
	}
	if start < len(c) {
		t.part(c[start:])
		parts++
	}
	if parts > 1 && len(t.dst) > first {
		whole := string(t.lower(c))
		t.dst = append(t.dst, "")
		copy(t.dst[first+1:], t.dst[first:])
		t.dst[first] = whole
	}
}

// part filters, stems and appends one part.
func (t *tokenizer) part(p string) {
	low := t.lower(p)
	if r, size := utf8.DecodeRune(low); size == len(low) && !unicode.IsDigit(r) {
		return
	}
	if _, stop := stopwords[string(low)]; stop {
		return
	}
	if isASCIILetters(low) {
		t.dst = append(t.dst, english.Stem(string(low), true))
		return
	}
	t.dst = append(t.dst, string(low))
}

// lower returns s lower-cased with apostrophes removed, in t.buf when it
// fits. The result is only valid until the next call.
func (t *tokenizer) lower(s string) []byte {
	b := t.buf[:0]
	for _, r := range s {
		if isApostrophe(r) {
			continue
		}
		b = utf8.AppendRune(b, unicode.ToLower(r))
	}
	return b
}

func isASCIILetters(b []byte) bool {
	for _, c := range b {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
