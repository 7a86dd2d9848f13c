package banner

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/tiktoken-go/tokenizer/codec"
)

// trickyRunes covers every branch of the split pattern and the classes' edges: contractions,
// the long s, Unicode spaces, line breaks, combining marks, digits of other scripts, CJK,
// emoji, and ASCII punctuation.
var trickyRunes = []rune("aZsStTrReEvVlLmMdDſ'’ \t\n\r\v\f\u00a0\u0085\u2028\u2029\u3000\u200b\u180e0123456789²½٣一中文é\u0301ñ😀🎉-_.,;:!?()[]{}<>/\\\"#*`~@$%^&|+=")

func randomText(rng *rand.Rand, maxRunes int) string {
	var b strings.Builder
	n := rng.IntN(maxRunes + 1)
	for range n {
		if rng.IntN(4) == 0 {
			// Real words keep the byte-pair merges busy, not just single runes.
			b.WriteString([]string{"the", " memhost", "pnpm", " don't", "HTTP", "parseJSON", " 2026", "\n\n", "  ", "...", "—"}[rng.IntN(11)])
			continue
		}
		b.WriteRune(trickyRunes[rng.IntN(len(trickyRunes))])
	}
	return b.String()
}

func libraryCount(t testing.TB, lib *codec.Codec, s string) int {
	n, err := lib.Count(s)
	require.NoError(t, err)
	return n
}

func TestCountTokensMatchesLibrary(t *testing.T) {
	t.Parallel()
	lib := codec.NewCl100kBase()
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 20000 {
		s := randomText(rng, 40)
		require.Equal(t, libraryCount(t, lib, s), CountTokens(s), "sample %d: %q", i, s)
	}
}

func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"", "hello world", "we'LL see", "a\n \n b", "x  \n\t\n   y", "12345 ½²", "\u00a0\u2028x", "ſ's'ſ", "\xff\xfe broken"} {
		f.Add(s)
	}
	lib := codec.NewCl100kBase()
	f.Fuzz(func(t *testing.T, s string) {
		// The library's compiled pattern leaves DEL out of every class, so it drops DEL without
		// a token; tiktoken and CountTokens count it. Banner text never holds control runes.
		s = strings.ReplaceAll(s, "\x7f", "")
		require.Equal(t, libraryCount(t, lib, s), CountTokens(s), "%q", s)
	})
}

var writeCorpus = flag.Bool("write-corpus", false, "rewrite testdata/tiktoken/corpus.json's texts (then count them with count.cjs)")

// corpusEntry is one text and its token count by OpenAI's tiktoken (cl100k_base), written by
// testdata/tiktoken/count.cjs.
type corpusEntry struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"`
}

// TestCountTokensMatchesTiktoken checks CountTokens against the reference tokenizer itself on
// banner text: rendered banners of random and golden inputs. docs/banner.md says how to
// regenerate the corpus.
func TestCountTokensMatchesTiktoken(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "tiktoken", "corpus.json")
	if *writeCorpus {
		var corpus []corpusEntry
		rng := rand.New(rand.NewPCG(42, 42))
		for range 24 {
			in, opts := randomInput(rng)
			opts.Budget = MinBudget + rng.IntN(900)
			res, err := Render(in, opts)
			require.NoError(t, err)
			corpus = append(corpus, corpusEntry{Text: res.Text, Tokens: -1})
		}
		res, err := Render(fullInput(200), Options{CLI: CLIClaude})
		require.NoError(t, err)
		corpus = append(corpus, corpusEntry{Text: res.Text, Tokens: -1})
		js, err := json.MarshalIndent(corpus, "", " ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(path, js, 0o644))
		t.Logf("wrote %s; now count it: node testdata/tiktoken/count.cjs", path)
		return
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var corpus []corpusEntry
	require.NoError(t, json.Unmarshal(data, &corpus))
	require.NotEmpty(t, corpus)
	total := 0
	for i, e := range corpus {
		require.Positive(t, e.Tokens, "entry %d was not counted by count.cjs", i)
		require.Equal(t, e.Tokens, CountTokens(e.Text), "entry %d", i)
		total += e.Tokens
	}
	t.Logf("%d texts, %d tokens: all counts equal tiktoken's", len(corpus), total)
}
