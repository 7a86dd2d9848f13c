package embeddertest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/internal/plugintest"
)

// limits are the time bounds Exercise holds an embedder to.
type limits = plugintest.Limits

var defaultLimits = plugintest.DefaultLimits

// agreeTolerance is how far two vectors for the same text may drift apart
// (1 - cosine) and still agree: float noise from batching passes, a vector
// that belongs to another text does not.
const agreeTolerance = 1e-6

// Exercise runs the conformance checks against e, which may be an
// implementation, the result of Serve, Launch or Attach. Subtests run in
// parallel; e must be safe for concurrent use, as the host requires.
//
// Every result is checked for one vector per text, of the promised
// dimensions, with finite components. Beyond that the checks cover Describe,
// determinism, order independence (a text's vector does not depend on its
// neighbours in the batch), empty and full batches, a text at the byte
// limit, unicode and invalid UTF-8, cancellation (Embed returns promptly once
// its context is done) and health. Over the wire the client already returns
// when the context ends, so run Exercise on the implementation itself too to
// check that it honours cancellation.
//
// A check never panics on a malformed result and keeps its failure message
// to one short line.
func Exercise(t *testing.T, e embedder.Embedder) {
	t.Helper()
	k := newKit(t, e, defaultLimits)
	plugintest.RunChecks(t, k, checks)
}

// check is one conformance subtest (see plugintest.Check).
type check = plugintest.Check[*kit]

var checks = []check{
	{Name: "DescribeIsSane", Run: checkDescribe},
	{Name: "OneVectorPerText", Run: checkOneVectorPerText},
	{Name: "Deterministic", Run: checkDeterministic},
	{Name: "OrderIndependent", Run: checkOrderIndependent},
	{Name: "EmptyBatch", Run: checkEmptyBatch},
	{Name: "EmptyText", Run: checkEmptyText},
	{Name: "MaxBatch", Run: checkMaxBatch},
	{Name: "MaxInputBytes", Run: checkMaxInputBytes},
	{Name: "Unicode", Run: checkUnicode},
	{Name: "CancelledContext", Run: checkCancelledContext},
	{Name: "CancelDuringCall", Run: checkCancelDuringCall},
	{Name: "Health", Run: checkHealth},
}

// kit is the embedder under test and what Describe said about it.
type kit struct {
	plugintest.Kit[embedder.Embedder, embedder.Info]
}

func newKit(t testing.TB, e embedder.Embedder, l limits) *kit {
	t.Helper()
	return &kit{plugintest.NewKit(t, e, l)}
}

var sampleTexts = []string{
	"we use pnpm, not npm, in this repo",
	"the API listens on port 8080",
	"tests need TEST_DATABASE_URL",
}

func checkDescribe(t testing.TB, k *kit) { k.CheckDescribe(t, k.Info.Version) }

func checkOneVectorPerText(t testing.TB, k *kit) {
	texts := sampleTexts[:min(len(sampleTexts), k.Info.MaxBatch)]
	for _, p := range []embedder.Purpose{embedder.PurposeDocument, embedder.PurposeQuery} {
		for i, v := range k.embed(t, p, texts) {
			if norm(v) == 0 {
				t.Fatalf("vector %d (%s) is all zeros", i, p)
			}
		}
	}
}

func checkDeterministic(t testing.TB, k *kit) {
	text := "deploys go through the staging cluster first"
	alone := k.embed(t, embedder.PurposeDocument, []string{text})
	again := k.embed(t, embedder.PurposeDocument, []string{text})
	requireAgree(t, alone[0], again[0], "the same text in two calls")
	if k.Info.MaxBatch >= 2 {
		twice := k.embed(t, embedder.PurposeDocument, []string{text, text})
		requireAgree(t, twice[0], twice[1], "the same text twice in one batch")
		requireAgree(t, twice[0], alone[0], "the same text in a batch and alone")
	}
}

func checkOrderIndependent(t testing.TB, k *kit) {
	texts := sampleTexts[:min(len(sampleTexts), k.Info.MaxBatch)]
	if len(texts) < 2 {
		return // a batch of one has no neighbours
	}
	forward := k.embed(t, embedder.PurposeDocument, texts)
	reversed := make([]string, len(texts))
	for i, text := range texts {
		reversed[len(texts)-1-i] = text
	}
	backward := k.embed(t, embedder.PurposeDocument, reversed)
	for i, text := range texts {
		requireAgree(t, forward[i], backward[len(texts)-1-i], "text %d %s in a batch and in the reversed batch", i, quote(text))
		alone := k.embed(t, embedder.PurposeDocument, []string{text})
		requireAgree(t, forward[i], alone[0], "text %d %s in a batch and alone", i, quote(text))
	}
}

func checkEmptyBatch(t testing.TB, k *kit) {
	k.embed(t, embedder.PurposeDocument, nil)
}

func checkEmptyText(t testing.TB, k *kit) {
	k.embed(t, embedder.PurposeDocument, []string{""})
}

func checkMaxBatch(t testing.TB, k *kit) {
	k.embed(t, embedder.PurposeDocument, batch(k.Info.MaxBatch))
}

func checkMaxInputBytes(t testing.TB, k *kit) {
	if k.Info.MaxInputBytes == 0 {
		t.Skip("no input limit declared")
	}
	word := "memory "
	text := strings.Repeat(word, k.Info.MaxInputBytes/len(word))
	k.embed(t, embedder.PurposeDocument, []string{text})
}

func checkUnicode(t testing.TB, k *kit) {
	texts := []string{"naïve café ünïcödé", "東京タワーの設定", "emoji 🚀 deploys", "invalid \xff\xfe utf8"}
	for i := 0; i < len(texts); i += k.Info.MaxBatch {
		k.embed(t, embedder.PurposeDocument, texts[i:min(len(texts), i+k.Info.MaxBatch)])
	}
}

// checkCancelledContext: Embed called with a context that is already done
// returns within the grace period, with an error wrapping context.Canceled
// or (an embedder fast enough to finish anyway) a well-formed result.
func checkCancelledContext(t testing.TB, k *kit) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	texts := []string{"cancelled before it started"}
	call := k.start(ctx, embedder.PurposeDocument, texts)
	vecs, err := call.Wait(t, "Embed with a cancelled context", k.Limits.Cancel)
	k.requireCancelled(t, texts, vecs, err)
}

// checkCancelDuringCall: Embed returns within the grace period once its
// context is cancelled mid-call.
func checkCancelDuringCall(t testing.TB, k *kit) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	texts := batch(k.Info.MaxBatch)
	call := k.start(ctx, embedder.PurposeDocument, texts)
	select {
	case <-call.Done():
		// Finished before the cancellation: nothing to observe.
	case <-time.After(10 * time.Millisecond):
		cancel()
	}
	vecs, err := call.Wait(t, "Embed after its context was cancelled", k.Limits.Cancel)
	k.requireCancelled(t, texts, vecs, err)
}

func checkHealth(t testing.TB, k *kit) { k.CheckHealth(t) }

// embed calls Embed, requiring success and a well-formed result.
func (k *kit) embed(t testing.TB, p embedder.Purpose, texts []string) [][]float32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), k.Limits.Call)
	defer cancel()
	what := fmt.Sprintf("Embed of %d texts (%s)", len(texts), p)
	vecs, err := k.start(ctx, p, texts).Wait(t, what, k.Limits.Call+k.Limits.Cancel)
	if err != nil {
		t.Fatalf("%s: %s", what, plugintest.Short(err.Error()))
	}
	k.requireVectors(t, texts, vecs)
	return vecs
}

func (k *kit) start(ctx context.Context, p embedder.Purpose, texts []string) *plugintest.Pending[[][]float32] {
	return plugintest.Go(func() ([][]float32, error) { return k.Impl.Embed(ctx, p, texts) })
}

// requireVectors fails unless vecs holds one vector per text, each of the
// promised dimensions and finite. Later checks index vecs only after it.
func (k *kit) requireVectors(t testing.TB, texts []string, vecs [][]float32) {
	t.Helper()
	if len(vecs) != len(texts) {
		t.Fatalf("Embed returned %d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != k.Info.Dimensions {
			t.Fatalf("vector %d has %d components, Describe promised %d", i, len(v), k.Info.Dimensions)
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("vector %d component %d is %v: components must be finite", i, j, x)
			}
		}
	}
}

// requireCancelled accepts the outcomes of a cancelled call: an error that
// says it was cancelled, or a well-formed result.
func (k *kit) requireCancelled(t testing.TB, texts []string, vecs [][]float32, err error) {
	t.Helper()
	if err == nil {
		k.requireVectors(t, texts, vecs)
		return
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled Embed returned an error that does not wrap context.Canceled: %s", plugintest.Short(err.Error()))
	}
}

// requireAgree fails when a and b, two vectors of equal length for the same
// text, point in different directions.
func requireAgree(t testing.TB, a, b []float32, format string, args ...any) {
	t.Helper()
	if c := cosine(a, b); !(1-c <= agreeTolerance) {
		t.Fatalf("%s: the vectors differ (cosine %.6f)", fmt.Sprintf(format, args...), c)
	}
}

func cosine(a, b []float32) float64 {
	na, nb := norm(a), norm(b)
	switch {
	case na == 0 && nb == 0:
		return 1
	case na == 0 || nb == 0:
		return 0
	}
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot / math.Sqrt(na*nb)
}

// norm is the squared Euclidean norm of v.
func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

// batch returns n distinct short texts.
func batch(n int) []string {
	texts := make([]string, n)
	for i := range texts {
		texts[i] = fmt.Sprintf("fact number %d about service%d", i, i%7)
	}
	return texts
}

// quote names a text in a failure message.
func quote(s string) string { return fmt.Sprintf("%q", plugintest.Truncate(s, 24)) }
