package console

import (
	"strings"
	"unicode"

	"github.com/aymanbagabas/go-udiff"
)

// A before/after diff by words, as the console shows a history entry or a proposal: each side
// is a run of segments, unchanged or changed, so the page can set the two texts side by side
// and mark what one has and the other lacks.

// segment is a run of text on one side of a diff.
type segment struct {
	Text    string
	Changed bool // removed (on the before side) or added (on the after side)
}

// diffView is a diff's two sides.
type diffView struct {
	Before, After []segment
	Same          bool
}

// maxDiffTokens bounds the words diffed: beyond it the two texts are shown whole, changed.
const maxDiffTokens = 20000

// wordDiff compares before and after word by word (white space runs are words too, so the
// text keeps its lines). Each distinct word becomes one rune, the rune strings are diffed by
// go-udiff, and the edits are mapped back to words.
func wordDiff(before, after string) diffView {
	if before == after {
		return diffView{Before: []segment{{Text: before}}, After: []segment{{Text: after}}, Same: true}
	}
	bw, aw := words(before), words(after)
	if len(bw)+len(aw) > maxDiffTokens {
		return diffView{Before: []segment{{Text: before, Changed: true}}, After: []segment{{Text: after, Changed: true}}}
	}
	codes := map[string]rune{}
	encode := func(ws []string) string {
		var b strings.Builder
		for _, w := range ws {
			r, ok := codes[w]
			if !ok {
				r = privateRune(len(codes))
				codes[w] = r
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	eb, ea := encode(bw), encode(aw)
	edits := udiff.Strings(eb, ea)
	// Edits are byte offsets into eb: map them to word indexes.
	wordAt := make(map[int]int, len(bw)+1) // byte offset in eb -> word index
	off := 0
	for i, w := range bw {
		wordAt[off] = i
		off += len(string(codes[w]))
	}
	wordAt[off] = len(bw)
	var v diffView
	bi := 0
	for _, e := range edits {
		start, end := wordAt[e.Start], wordAt[e.End]
		v.Before = appendSeg(v.Before, strings.Join(bw[bi:start], ""), false)
		v.After = appendSeg(v.After, strings.Join(bw[bi:start], ""), false)
		v.Before = appendSeg(v.Before, strings.Join(bw[start:end], ""), true)
		v.After = appendSeg(v.After, decode(e.New, codes), true)
		bi = end
	}
	v.Before = appendSeg(v.Before, strings.Join(bw[bi:], ""), false)
	v.After = appendSeg(v.After, strings.Join(bw[bi:], ""), false)
	return v
}

// appendSeg adds text to a side, merging it into the last segment of the same kind.
func appendSeg(s []segment, text string, changed bool) []segment {
	if text == "" {
		return s
	}
	if n := len(s); n > 0 && s[n-1].Changed == changed {
		s[n-1].Text += text
		return s
	}
	return append(s, segment{Text: text, Changed: changed})
}

// decode maps runes back to their words.
func decode(s string, codes map[string]rune) string {
	words := make(map[rune]string, len(codes))
	for w, r := range codes {
		words[r] = w
	}
	var b strings.Builder
	for _, r := range s {
		b.WriteString(words[r])
	}
	return b.String()
}

// privateRune is the i-th code point of Unicode's private use areas: never in a memory's
// text as a code of ours, and valid UTF-8 for the diff.
func privateRune(i int) rune {
	const bmp = 0xF8FF - 0xE000 + 1
	if i < bmp {
		return rune(0xE000 + i)
	}
	return rune(0xF0000 + i - bmp)
}

// words splits text into runs of letters and digits, runs of white space, and single other
// characters, whose concatenation is text.
func words(text string) []string {
	var out []string
	start := 0
	class := func(r rune) int {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_':
			return 1
		case unicode.IsSpace(r):
			return 2
		}
		return 3
	}
	prev := 0
	for i, r := range text {
		c := class(r)
		if i > start && (c != prev || c == 3) {
			out = append(out, text[start:i])
			start = i
		}
		prev = c
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}
