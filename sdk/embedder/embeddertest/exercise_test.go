package embeddertest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
)

// recorder is a testing.TB that records failures instead of failing the
// real test, so that the kit's checks can be run against broken embedders.
// Like testing.T, FailNow and SkipNow end the calling goroutine.
type recorder struct {
	testing.TB // nil: calling a method not overridden here panics

	mu       sync.Mutex
	failed   bool
	skipped  bool
	messages []string
	cleanups []func()
}

func (r *recorder) Helper()      {}
func (r *recorder) Name() string { return "recorder" }

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = true
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); r.FailNow() }
func (r *recorder) Fail()                             { r.Errorf("Fail called") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Logf(string, ...any)               {}
func (r *recorder) Skip(...any)                       { r.SkipNow() }

func (r *recorder) SkipNow() {
	r.mu.Lock()
	r.skipped = true
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// first returns the first recorded failure.
func (r *recorder) first() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.messages) == 0 {
		return ""
	}
	return r.messages[0]
}

// run runs f with a recorder on its own goroutine, as testing.T runs a test.
func run(f func(t testing.TB)) *recorder {
	r := &recorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

// fastLimits keeps the kit's tests of hanging embedders short.
// Its cancel bound is still far above what a well-behaved plugin needs: a cancelled call that
// returns at once took over 100 ms on a machine loaded by two make test runs.
var fastLimits = limits{Call: 2 * time.Second, Cancel: time.Second}

// kitResults runs newKit and every check against e with a recorder each.
func kitResults(t *testing.T, e embedder.Embedder) map[string]*recorder {
	t.Helper()
	var k *kit
	setup := run(func(tb testing.TB) { k = newKit(tb, e, fastLimits) })
	require.False(t, setup.Failed(), "setup failed: %s", setup.first())
	results := map[string]*recorder{}
	for _, c := range checks {
		results[c.Name] = run(func(tb testing.TB) { c.Run(tb, k) })
	}
	return results
}

// requireFails checks that the named checks failed with a short message
// containing want, and that no other check failed.
func requireFails(t *testing.T, results map[string]*recorder, want string, names ...string) {
	t.Helper()
	for name, r := range results {
		if !contains(names, name) {
			require.False(t, r.Failed(), "check %s failed unexpectedly: %s", name, r.first())
			continue
		}
		require.True(t, r.Failed(), "check %s passed; it must catch this embedder", name)
		require.Contains(t, r.first(), want, "check %s", name)
		require.LessOrEqual(t, len(r.first()), 200, "check %s: failure message too long: %s", name, r.first())
	}
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// bagEmbedder is a well-behaved embedder: a normalised hashed bag of bytes.
// Each test breaks one aspect of it.
type bagEmbedder struct {
	dims     int
	maxBatch int
	// mutate, when set, changes the result of each Embed call.
	mutate func(texts []string, vecs [][]float32) [][]float32
	// block, when set, makes Embed wait for it to close, ignoring ctx.
	block chan struct{}
	// panicWith, when set, is what Embed panics with.
	panicWith any
}

var _ embedder.Embedder = (*bagEmbedder)(nil)

func newBag() *bagEmbedder { return &bagEmbedder{dims: 8, maxBatch: 16} }

func (b *bagEmbedder) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{
		Name: "bag-v1", Version: "1.0.0", Dimensions: b.dims, MaxBatch: b.maxBatch,
		MaxInputBytes: 1 << 10, SuggestedFoldThreshold: 0.9,
	}, nil
}

func (b *bagEmbedder) Embed(ctx context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	if b.panicWith != nil {
		panic(b.panicWith)
	}
	if b.block != nil {
		<-b.block
	} else if err := ctx.Err(); err != nil {
		return nil, err
	}
	vecs := make([][]float32, len(texts))
	for i, text := range texts {
		v := make([]float32, b.dims)
		for _, c := range []byte(text) {
			v[int(c)%b.dims]++
		}
		v[0]++ // never all zeros, even for ""
		vecs[i] = v
	}
	if b.mutate != nil {
		vecs = b.mutate(texts, vecs)
	}
	return vecs, nil
}

func (b *bagEmbedder) Health(context.Context) error { return nil }

func TestKitPassesAWellBehavedEmbedder(t *testing.T) {
	t.Parallel()
	requireFails(t, kitResults(t, newBag()), "")
}

func TestKitCatchesNonFiniteComponents(t *testing.T) {
	t.Parallel()
	for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
		t.Run(fmt.Sprint(bad), func(t *testing.T) {
			t.Parallel()
			e := newBag()
			e.mutate = func(_ []string, vecs [][]float32) [][]float32 {
				for _, v := range vecs {
					v[3] = bad
				}
				return vecs
			}
			results := kitResults(t, e)
			for _, name := range []string{"OneVectorPerText", "Deterministic", "OrderIndependent", "EmptyText", "MaxBatch", "MaxInputBytes", "Unicode"} {
				require.True(t, results[name].Failed(), name)
				require.Contains(t, results[name].first(), "component 3 is "+fmt.Sprint(bad), name)
			}
		})
	}
}

func TestKitCatchesReorderedVectors(t *testing.T) {
	t.Parallel()
	e := newBag()
	e.mutate = func(_ []string, vecs [][]float32) [][]float32 {
		// A plugin that returns a batch's vectors in the wrong order.
		for i, j := 0, len(vecs)-1; i < j; i, j = i+1, j-1 {
			vecs[i], vecs[j] = vecs[j], vecs[i]
		}
		return vecs
	}
	requireFails(t, kitResults(t, e), "the vectors differ (cosine", "OrderIndependent")
}

func TestKitCatchesNondeterminismWithShortMessages(t *testing.T) {
	t.Parallel()
	e := newBag()
	e.dims = 384
	e.mutate = func(_ []string, vecs [][]float32) [][]float32 {
		for _, v := range vecs {
			for j := range v {
				v[j] = rand.Float32()
			}
		}
		return vecs
	}
	results := kitResults(t, e)
	for _, name := range []string{"Deterministic", "OrderIndependent"} {
		require.True(t, results[name].Failed(), name)
		msg := results[name].first()
		require.Contains(t, msg, "the vectors differ")
		require.Less(t, len(msg), 120, "a 384-component vector must not be dumped: %s", msg)
	}
}

func TestKitCatchesShortResultsWithoutPanicking(t *testing.T) {
	t.Parallel()
	t.Run("fewer vectors", func(t *testing.T) {
		t.Parallel()
		e := newBag()
		e.mutate = func(_ []string, vecs [][]float32) [][]float32 {
			if len(vecs) == 0 {
				return vecs
			}
			return vecs[:len(vecs)-1]
		}
		results := kitResults(t, e)
		require.Contains(t, results["MaxBatch"].first(), "Embed returned 15 vectors for 16 texts")
		for _, name := range []string{"OneVectorPerText", "Deterministic", "OrderIndependent", "EmptyText", "Unicode"} {
			require.True(t, results[name].Failed(), name)
			require.Contains(t, results[name].first(), "vectors for", name)
		}
	})
	t.Run("no vectors", func(t *testing.T) {
		t.Parallel()
		e := newBag()
		e.mutate = func([]string, [][]float32) [][]float32 { return nil }
		results := kitResults(t, e)
		require.Contains(t, results["OneVectorPerText"].first(), "Embed returned 0 vectors for 3 texts")
		require.False(t, results["EmptyBatch"].Failed())
	})
	t.Run("shorter vectors", func(t *testing.T) {
		t.Parallel()
		e := newBag()
		e.mutate = func(_ []string, vecs [][]float32) [][]float32 {
			for i := range vecs {
				vecs[i] = vecs[i][:2]
			}
			return vecs
		}
		results := kitResults(t, e)
		for _, name := range []string{"OneVectorPerText", "Deterministic", "OrderIndependent", "EmptyText", "MaxBatch", "Unicode"} {
			require.Contains(t, results[name].first(), "vector 0 has 2 components, Describe promised 8", name)
		}
	})
	t.Run("extra vectors", func(t *testing.T) {
		t.Parallel()
		e := newBag()
		e.mutate = func(_ []string, vecs [][]float32) [][]float32 { return append(vecs, make([]float32, 8)) }
		results := kitResults(t, e)
		require.Contains(t, results["EmptyBatch"].first(), "Embed returned 1 vectors for 0 texts")
	})
}

func TestKitCatchesAnEmbedderThatIgnoresCancellation(t *testing.T) {
	t.Parallel()
	e := newBag()
	e.block = make(chan struct{})
	var results map[string]*recorder
	func() {
		// Release the blocked calls once the checks have given up on them.
		defer close(e.block)
		var k *kit
		setup := run(func(tb testing.TB) { k = newKit(tb, e, fastLimits) })
		require.False(t, setup.Failed(), setup.first())
		results = map[string]*recorder{}
		for _, name := range []string{"CancelledContext", "CancelDuringCall"} {
			for _, c := range checks {
				if c.Name == name {
					results[name] = run(func(tb testing.TB) { c.Run(tb, k) })
				}
			}
		}
	}()
	require.Equal(t, "Embed with a cancelled context did not return within 1s", results["CancelledContext"].first())
	require.Equal(t, "Embed after its context was cancelled did not return within 1s", results["CancelDuringCall"].first())
}

// wrongCancelError reports cancellation with an error that hides it.
type wrongCancelError struct{ bagEmbedder }

func (w *wrongCancelError) Embed(ctx context.Context, _ embedder.Purpose, _ []string) ([][]float32, error) {
	if ctx.Err() != nil {
		return nil, fmt.Errorf("embed failed: %v", ctx.Err()) // %v, not %w
	}
	return nil, nil
}

func TestKitCatchesACancellationErrorThatDoesNotWrapCanceled(t *testing.T) {
	t.Parallel()
	w := &wrongCancelError{*newBag()}
	var k *kit
	require.False(t, run(func(tb testing.TB) { k = newKit(tb, w, fastLimits) }).Failed())
	r := run(func(tb testing.TB) { checkCancelledContext(tb, k) })
	require.Equal(t, "a cancelled Embed returned an error that does not wrap context.Canceled: embed failed: context canceled", r.first())
}

func TestKitReportsAPanicInsteadOfPanicking(t *testing.T) {
	t.Parallel()
	e := newBag()
	e.panicWith = strings.Repeat("boom ", 100)
	results := kitResults(t, e)
	msg := results["MaxBatch"].first()
	require.True(t, strings.HasPrefix(msg, "Embed of 16 texts (document) panicked: boom boom"), msg)
	require.LessOrEqual(t, len(msg), 220)
	require.False(t, results["Health"].Failed())
}

// badInfo returns a Describe that breaks the contract.
type badInfo struct{ bagEmbedder }

func (badInfo) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{Name: "bad", Dimensions: 0, MaxBatch: 1, SuggestedFoldThreshold: 0.5}, nil
}

func TestKitStopsAtInvalidInfo(t *testing.T) {
	t.Parallel()
	r := run(func(tb testing.TB) { newKit(tb, &badInfo{*newBag()}, fastLimits) })
	require.Equal(t, "Describe returned invalid info: dimensions 0 must be > 0", r.first())
}

func TestKitHandlesMaxBatchOfOne(t *testing.T) {
	t.Parallel()
	e := newBag()
	e.maxBatch = 1
	requireFails(t, kitResults(t, e), "")
}

func TestExerciseOverTheWire(t *testing.T) {
	t.Parallel()
	Exercise(t, Serve(t, newBag()))
}
