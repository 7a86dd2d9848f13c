package banner

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer/codec"
)

// CountTokens returns the number of cl100k_base tokens in s, the unit of every banner budget.
//
// The count equals github.com/tiktoken-go/tokenizer's cl100k_base Count (checked by a fuzz
// test; the one exception is DEL, which the library drops and tiktoken counts) and OpenAI's
// tiktoken on banner text (checked against a corpus counted by tiktoken itself,
// testdata/tiktoken). It is fast because the expensive part of that library, its
// regular-expression split, is replaced by splitPiece, and the byte-pair count of each split
// piece is remembered: banner text repeats the same words across renders, so a render
// mostly looks pieces up instead of encoding them. The first call loads the vocabulary
// (9-15 ms).
func CountTokens(s string) int {
	return counter.count(s)
}

// Memo bounds. Pieces are short (a word with its leading space, a run of punctuation, up to
// three digits); long ones are rare identifiers or hashes not worth keeping. Once the memo is
// full it stops growing, so memory stays bounded (a few MB) and counts stay exact.
const (
	memoMaxPieces     = 1 << 16
	memoMaxPieceBytes = 48
)

var counter tokenCounter

type tokenCounter struct {
	once  sync.Once
	codec *codec.Codec

	mu   sync.RWMutex
	memo map[string]int
}

func (c *tokenCounter) init() {
	c.codec = codec.NewCl100kBase()
	c.memo = make(map[string]int, 1024)
}

func (c *tokenCounter) count(s string) int {
	c.once.Do(c.init)
	if !utf8.ValidString(s) {
		// splitPiece assumes runes; the banner never produces invalid UTF-8 (sanitize).
		return c.encode(s)
	}
	total := 0
	var missed []string
	c.mu.RLock()
	for rest := s; rest != ""; {
		n := splitPiece(rest)
		piece := rest[:n]
		rest = rest[n:]
		if n == 1 {
			total++ // every single byte is a token of its own
			continue
		}
		if v, ok := c.memo[piece]; ok {
			total += v
			continue
		}
		missed = append(missed, piece)
	}
	c.mu.RUnlock()
	if len(missed) == 0 {
		return total
	}
	counts := make([]int, len(missed))
	for i, piece := range missed {
		counts[i] = c.encode(piece)
		total += counts[i]
	}
	c.remember(missed, counts)
	return total
}

func (c *tokenCounter) remember(pieces []string, counts []int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, piece := range pieces {
		if len(c.memo) >= memoMaxPieces {
			return
		}
		if len(piece) <= memoMaxPieceBytes {
			// Clone: the piece is a slice of a caller's string and must not pin it.
			c.memo[strings.Clone(piece)] = counts[i]
		}
	}
}

// encode counts s with the library. Its only error is a regexp timeout, which the library
// does not set; byte length then stands in, an upper bound because every token covers at
// least one byte.
func (c *tokenCounter) encode(s string) int {
	n, err := c.codec.Count(s)
	if err != nil {
		return len(s)
	}
	return n
}

// splitPiece returns the byte length of the first piece of s (s non-empty, valid UTF-8) under
// cl100k_base's split pattern, tried in this order:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d) | [^\r\n\p{L}\p{N}]?\p{L}+ | \p{N}{1,3} |
//	 ?[^\s\p{L}\p{N}]+[\r\n]* | \s*[\r\n]+ | \s+(?!\S) | \s+
//
// \s is unicode.IsSpace, \p{L} unicode.IsLetter and \p{N} unicode.IsNumber, as in the
// library's compiled pattern. For \s*[\r\n]+ the library stops at the first line break of a
// whitespace run where tiktoken stops at the last; this function does the same as the
// library, so counts agree with it exactly, and banner text never holds such runs (lines are
// right-trimmed), where the two agree.
func splitPiece(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	if r == '\'' {
		if m := contraction(s[1:]); m > 0 {
			return 1 + m
		}
	}
	if unicode.IsLetter(r) {
		return n + letters(s[n:])
	}
	if r != '\r' && r != '\n' && !unicode.IsNumber(r) {
		if r2, n2 := utf8.DecodeRuneInString(s[n:]); n2 > 0 && unicode.IsLetter(r2) {
			return n + n2 + letters(s[n+n2:])
		}
	}
	if unicode.IsNumber(r) {
		end := n
		for i := 1; i < 3 && end < len(s); i++ {
			r2, n2 := utf8.DecodeRuneInString(s[end:])
			if !unicode.IsNumber(r2) {
				break
			}
			end += n2
		}
		return end
	}
	start := 0
	if r == ' ' {
		start = 1
	}
	if end := start + symbols(s[start:]); end > start {
		for end < len(s) && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	// r is white space: every other rune was taken above.
	run := spaces(s)
	if i := strings.IndexAny(s[:run], "\r\n"); i >= 0 {
		end := i
		for end < run && (s[end] == '\r' || s[end] == '\n') {
			end++
		}
		return end
	}
	if run == len(s) {
		return run
	}
	if _, last := utf8.DecodeLastRuneInString(s[:run]); run > last {
		return run - last
	}
	return run
}

// contraction matches 's 't 're 've 'm 'll 'd (any case; the library's case folding also
// takes the long s, U+017F) after the apostrophe and returns its length without it.
func contraction(s string) int {
	r, n := utf8.DecodeRuneInString(s)
	switch r {
	case 's', 'S', 't', 'T', 'm', 'M', 'd', 'D', 'ſ':
		return n
	case 'r', 'R', 'v', 'V':
		if len(s) > 1 && s[1]|0x20 == 'e' {
			return 2
		}
	case 'l', 'L':
		if len(s) > 1 && s[1]|0x20 == 'l' {
			return 2
		}
	}
	return 0
}

func letters(s string) int {
	return runLength(s, unicode.IsLetter)
}

func spaces(s string) int {
	return runLength(s, unicode.IsSpace)
}

func symbols(s string) int {
	return runLength(s, func(r rune) bool {
		return !unicode.IsSpace(r) && !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

func runLength(s string, in func(rune) bool) int {
	for i, r := range s {
		if !in(r) {
			return i
		}
	}
	return len(s)
}
