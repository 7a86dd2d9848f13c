package tokenize_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/tokenize"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, in string
		want     []string
	}{
		{"empty", "", nil},
		{"only punctuation", " ,.;!? -- ", nil},
		{"sentence with stopwords", "We use pnpm, not npm, in this repo.", []string{"use", "pnpm", "not", "npm", "repo"}},
		{"path", "internal/memory/service.go", []string{"internal/memory/service.go", "intern", "memori", "servic", "go"}},
		{"camel case with acronym", "parseHTTPResponse", []string{"parsehttpresponse", "pars", "http", "respons"}},
		{"pascal case acronym first", "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}},
		{"snake case", "max_batch_size", []string{"max_batch_size", "max", "batch", "size"}},
		{"kebab case", "go-plugin", []string{"go-plugin", "go", "plugin"}},
		{"digit boundaries", "utf8 bm25", []string{"utf8", "utf", "8", "bm25", "bm", "25"}},
		{"version keeps single digits", "v1.8.0", []string{"v1.8.0", "1", "8", "0"}},
		{"single letters dropped", "x y z 7", []string{"7"}},
		{"no whole identifier when nothing survives", "e.g. a.b", nil},
		{"apostrophes elided", "don't break the user's build", []string{"dont", "break", "user", "build"}},
		{"quotes are not apostrophes", "'quoted'", []string{"quot"}},
		{"leading and trailing connectors", "__init__ --force ./run.sh.", []string{"init", "forc", "run.sh", "run", "sh"}},
		{"duplicates kept", "test tests testing", []string{"test", "test", "test"}},
		{"non-ASCII not stemmed", "naïve café", []string{"naïve", "café"}},
		{"mixed script identifier", "ÉcoleNormale", []string{"écolenormale", "école", "normal"}},
		{"CJK run is one term", "東京タワー", []string{"東京タワー"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, tokenize.Terms(tc.in))
		})
	}
}

func TestAppendTermsReusesSlice(t *testing.T) {
	t.Parallel()
	buf := make([]string, 0, 16)
	got := tokenize.AppendTerms(buf[:0], "pnpm lockfile")
	require.Equal(t, []string{"pnpm", "lockfil"}, got)
	require.Equal(t, &buf[:1][0], &got[0], "AppendTerms must append in place when capacity allows")
	got = tokenize.AppendTerms(got, "committed")
	require.Equal(t, []string{"pnpm", "lockfil", "commit"}, got)
}

func TestStopword(t *testing.T) {
	t.Parallel()
	require.True(t, tokenize.Stopword("the"))
	require.False(t, tokenize.Stopword("not"), "negations change the meaning of a fact")
	require.False(t, tokenize.Stopword("pnpm"))
}

func TestTermsLongAndInvalidInput(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("veryLongIdentifierPart", 50)
	got := tokenize.Terms(long)
	require.Equal(t, strings.ToLower(long), got[0])
	require.NotPanics(t, func() { tokenize.Terms("bad \xff\xfe utf8 \xc3") })
}

func FuzzTerms(f *testing.F) {
	f.Add("parseHTTPResponse internal/memory/service.go don't")
	f.Fuzz(func(t *testing.T, s string) {
		for _, term := range tokenize.Terms(s) {
			if term == "" {
				t.Fatalf("empty term from %q", s)
			}
		}
	})
}

var sink []string

func BenchmarkTerms(b *testing.B) {
	text := "We use pnpm, not npm, in this repo. The handler in internal/memory/service.go calls " +
		"parseHTTPResponse before writing max_batch_size rows; see go-plugin v1.8.0 for the handshake."
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var buf []string
	for b.Loop() {
		buf = tokenize.AppendTerms(buf[:0], text)
	}
	sink = buf
}
