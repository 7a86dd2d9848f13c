package bm25_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/embed-bm25/bm25"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

func TestConformanceOverGRPC(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, embeddertest.Serve(t, bm25.New()))
}

// TestConformanceInProcess runs the kit on the implementation itself, which
// is where cancellation is observable (over the wire the client returns on
// its own).
func TestConformanceInProcess(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, bm25.New())
}

func embedOne(t *testing.T, text string) []float32 {
	t.Helper()
	v, err := bm25.New().Embed(t.Context(), embedder.PurposeDocument, []string{text})
	require.NoError(t, err)
	return v[0]
}

func TestParaphraseScoresAboveDistinctFact(t *testing.T) {
	t.Parallel()
	cases := []struct{ fact, paraphrase, distinct string }{
		{"We use pnpm, not npm, in this repo.", "This project uses pnpm instead of npm.", "The pnpm lockfile is committed."},
		{"parseHTTPResponse lives in internal/http/parse.go.", "internal/http/parse.go contains parseHTTPResponse.", "parseHTTPRequest returns an error on empty bodies."},
		{"Timestamps are stored in UTC.", "All timestamps are saved as UTC.", "Timestamps are displayed in the user's local time zone."},
	}
	for _, tc := range cases {
		fact := embedOne(t, tc.fact)
		same := calibration.Cosine(fact, embedOne(t, tc.paraphrase))
		diff := calibration.Cosine(fact, embedOne(t, tc.distinct))
		require.Greater(t, same, diff, "%q", tc.fact)
		require.Less(t, diff, bm25.FoldThreshold, "distinct fact %q must not fold with %q", tc.distinct, tc.fact)
	}
}

func TestVectorProperties(t *testing.T) {
	t.Parallel()
	v := embedOne(t, "The API server listens on port 8080.")
	require.Len(t, v, bm25.Dimensions)
	require.InDelta(t, 1.0, calibration.Cosine(v, v), 1e-6)
	var sq float64
	for _, x := range v {
		sq += float64(x) * float64(x)
	}
	require.InDelta(t, 1.0, sq, 1e-5, "vectors are L2-normalised")

	require.Equal(t, make([]float32, bm25.Dimensions), embedOne(t, "the of and, !!"), "no terms gives the zero vector")
	require.Equal(t, embedOne(t, "Run make test"), embedOne(t, "run MAKE tests!"), "case, stemming and punctuation do not matter")
}

func TestIdentifierQueryMatchesItsDefinition(t *testing.T) {
	t.Parallel()
	doc := embedOne(t, "parseHTTPResponse lives in internal/http/parse.go")
	exact := calibration.Cosine(doc, embedOne(t, "parseHTTPResponse"))
	part := calibration.Cosine(doc, embedOne(t, "response"))
	unrelated := calibration.Cosine(doc, embedOne(t, "stripe payments"))
	require.Greater(t, exact, part, "the whole identifier adds a strong match")
	require.Greater(t, part, unrelated)
}

func TestLimits(t *testing.T) {
	t.Parallel()
	e := bm25.New()
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, make([]string, bm25.MaxBatch+1))
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	_, err = e.Embed(t.Context(), embedder.PurposeDocument, []string{string(make([]byte, bm25.MaxInputBytes+1))})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
}

// TestFoldThresholdCalibration is the evidence for bm25.FoldThreshold: on the
// labelled pairs, at most 5% of distinct facts may fold.
func TestFoldThresholdCalibration(t *testing.T) {
	t.Parallel()
	pairs, err := calibration.ReadPairsFile("testdata/pairs.jsonl")
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pairs), 80)

	rates, err := calibration.Calibrate(t.Context(), bm25.New(), pairs, bm25.FoldThreshold)
	require.NoError(t, err)
	t.Logf("threshold %.2f over %d paraphrase + %d distinct pairs: false-fold %.1f%%, missed-fold %.1f%%",
		bm25.FoldThreshold, rates.Paraphrases, rates.Distinct, 100*rates.FalseFold, 100*rates.MissedFold)
	require.LessOrEqual(t, rates.FalseFold, 0.05)
	require.LessOrEqual(t, rates.MissedFold, 0.25, "threshold so high it rarely folds anything")
}

func BenchmarkEmbed(b *testing.B) {
	texts := []string{
		"We use pnpm, not npm, in this repo.",
		"parseHTTPResponse lives in internal/http/parse.go and is called by the client package.",
	}
	e := bm25.New()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Embed(b.Context(), embedder.PurposeDocument, texts); err != nil {
			b.Fatal(err)
		}
	}
}
