package maintenance

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/pace"
	"github.com/memhost/memhost/sdk/embedder"
)

// dense is an in-process embedder of another identity than BM25's: each word hashed to one of
// 32 axes, normalised. It fails every call while down is set, and refuses (for good) any
// text holding "REFUSED".
type dense struct {
	down  atomic.Bool
	calls atomic.Int64
	// perText, when set, is how long each text takes (a model on a CPU); onCall runs at
	// every call with its size.
	perText time.Duration
	onCall  func(n int)
}

const denseDims = 32

func (d *dense) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{Name: "dense-test-v1-32", Version: "1", Dimensions: denseDims, MaxBatch: 16, SuggestedFoldThreshold: 0.95}, nil
}

func (d *dense) Embed(_ context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	d.calls.Add(1)
	if d.onCall != nil {
		d.onCall(len(texts))
	}
	time.Sleep(time.Duration(len(texts)) * d.perText)
	if d.down.Load() {
		return nil, fmt.Errorf("%w: connection refused", embedder.ErrUnavailable)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if strings.Contains(t, "REFUSED") {
			return nil, fmt.Errorf("%w: text too long for the model", embedder.ErrInvalidInput)
		}
		out[i] = denseVec(t)
	}
	return out, nil
}

func (d *dense) Health(context.Context) error { return nil }

func denseVec(text string) []float32 {
	v := make([]float32, denseDims)
	for _, w := range strings.Fields(strings.ToLower(text)) {
		h := fnv.New32a()
		_, _ = h.Write([]byte(strings.Trim(w, ".,")))
		v[h.Sum32()%denseDims]++
	}
	var n float64
	for _, x := range v {
		n += float64(x * x)
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// reembedOn builds a Maintenance running job alone on e's schema.
func (e env) reembedOn(t *testing.T, host string, clock Clock, job *Reembed, budget Budget) *Maintenance {
	t.Helper()
	m, err := New(e.pool, e.store, Config{Host: host, Clock: clock, testOnly: true, Jobs: []Scheduled{{Job: job, Budget: budget}}})
	require.NoError(t, err)
	return m
}

// denseService is a second memory service on e's store with the dense embedder active: the
// host after an embedder switch.
func (e env) denseService(t *testing.T, d *dense) *memory.Service {
	t.Helper()
	ctx := context.Background()
	ix := lexical.New()
	_, err := lexical.NewFollower(e.store, ix, time.Hour).CatchUp(ctx)
	require.NoError(t, err)
	svc := memory.New(e.store, ix, memory.Fixed(d), func(s string) (string, int) { return s, 0 }, memory.DefaultConfig())
	require.NoError(t, svc.Prepare(ctx))
	return svc
}

var reembedTexts = []string{
	"The billing api listens on port 8080.",
	"Deploys go through ArgoCD.",
	"Never force-push to main.",
	"Tests need TZ=UTC.",
	"The legacy cron host is called kestrel.",
	"Use pnpm, not npm.",
	"Prefer fakes over mocks.",
	"Migrations are forward-only.",
	"Logs go to Loki.",
	"The staging database is db-stage-2.",
	"Feature flags live in LaunchDarkly.",
	"Every service has a /healthz endpoint.",
}

// TestReembedConvergesAfterAnEmbedderSwitch: memories written under BM25 are found lexically
// by the host that switched to a dense embedder before the job runs, have dense vectors after
// it (in budgeted runs that resume where the last stopped), and the BM25 vectors stay, so
// switching back is instant.
func TestReembedConvergesAfterAnEmbedderSwitch(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	for _, text := range reembedTexts {
		_, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
	}
	clock := &fakeClock{now: time.Now()}
	d := &dense{}
	svc := e.denseService(t, d)
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d), Batch: 5}
	m := e.reembedOn(t, "host-a", clock, job, Budget{MaxRows: 8})

	p, err := job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.Equal(t, wire.ReembedProgress{Embedder: "dense-test-v1-32", Total: 12, Missing: 12}, p)
	res, err := svc.Search(ctx, proj, memory.SearchRequest{Query: "which port does billing listen on"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits, "a row without a vector of the active embedder is found lexically")
	require.Equal(t, reembedTexts[0], res.Hits[0].Text)

	d.calls.Store(0)                                        // the search embedded its query
	d.onCall = func(int) { clock.Advance(3 * time.Second) } // each call takes 3 s of the run's time
	dry, err := m.RunNow(ctx, ReembedName, wire.RunOptions{DryRun: true})
	require.NoError(t, err)
	require.Len(t, dry.Result.Items, 8)
	require.Equal(t, "embed", dry.Result.Items[0].Action)
	require.Zero(t, d.calls.Load(), "a dry run embeds nothing")

	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "partial", rep.Run.Outcome)
	require.Equal(t, int64(8), rep.Run.Changed)
	require.Equal(t, int64(2), d.calls.Load(), "a first call of 4 while the speed is unknown, then batches of up to 5: two calls for 8 rows")
	clock.Advance(time.Minute)
	p, err = job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.Equal(t, int64(4), p.Missing)
	require.InDelta(t, 8.0/6, p.RatePerSecond, 1e-6, "8 rows in the 6 s the run spent, not over the minute since it started")
	require.NotNil(t, p.ETASeconds)
	require.InDelta(t, 3, *p.ETASeconds, 1e-3)

	rep, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "ok", rep.Run.Outcome)
	require.Equal(t, int64(4), rep.Run.Changed, "the second run carries on where the first stopped")
	p, err = job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.Zero(t, p.Missing)

	// Every row now answers by its dense vector, and by its BM25 vector still.
	for _, text := range []string{reembedTexts[1], reembedTexts[6]} {
		hits, err := e.store.Nearest(ctx, store.VectorQuery{Vector: store.Vector{Embedder: "dense-test-v1-32", Dimensions: denseDims, Values: denseVec(text)},
			Scopes: []store.ScopeRef{store.Project(proj.Project)}, Limit: 1})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		got, err := e.store.Get(ctx, hits[0].ID)
		require.NoError(t, err)
		require.Equal(t, text, got.Text)
	}
	counts, err := e.store.Counts(ctx)
	require.NoError(t, err)
	require.Equal(t, map[string]int64{"bm25-v1-384": 12, "dense-test-v1-32": 12}, counts.ByEmbedder)
	res, err = e.svc.Search(ctx, proj, memory.SearchRequest{Query: "ArgoCD deploys"})
	require.NoError(t, err)
	require.Equal(t, reembedTexts[1], res.Hits[0].Text, "switching back to BM25 needs no re-embed")

	rep, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Zero(t, rep.Run.Examined, "a converged database has nothing to do")
}

// TestReembedBacksOffWhileTheEmbedderIsDown: a failed call stops the run with the reason; the
// next runs wait (without calling the embedder) for a backoff that doubles with each failure,
// and the first run after recovery converges and ends the backoff.
func TestReembedBacksOffWhileTheEmbedderIsDown(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	for _, text := range reembedTexts[:3] {
		_, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
	}
	d := &dense{}
	d.down.Store(true)
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d), BackoffMin: time.Minute, BackoffMax: 3 * time.Minute}
	clock := &fakeClock{now: time.Now()}
	m := e.reembedOn(t, "host-a", clock, job, Budget{})

	_, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.ErrorIs(t, err, rules.ErrUnavailable)
	require.ErrorContains(t, err, "next try after 1m0s")
	require.Equal(t, int64(1), d.calls.Load())
	p, err := job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.NotNil(t, p.RetryAt)
	require.True(t, clock.Now().Add(time.Minute).Equal(*p.RetryAt), "retry at %s", p.RetryAt)
	require.Contains(t, p.LastError, "connection refused")
	st, err := m.Status(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "failed", st[0].Last.Outcome)

	clock.Advance(30 * time.Second)
	_, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	var limit *rules.LimitError
	require.ErrorAs(t, err, &limit, "backing off is not an outage whose callers retry in seconds")
	require.Equal(t, 30*time.Second, limit.Retry)
	require.Contains(t, limit.Message, "re-embed is backing off after the embedder failed (embed with dense-test-v1-32: plugin unavailable: connection refused (a call of 3 texts))")
	require.Contains(t, limit.Message, "nothing was changed; the next try is at "+clock.Now().Add(30*time.Second).Format(time.RFC3339)+" (in 30s)")
	require.Equal(t, int64(1), d.calls.Load(), "backing off: the embedder is not called")

	for _, want := range []string{"2m0s", "3m0s", "3m0s"} { // doubles, up to the maximum
		clock.Advance(time.Hour)
		_, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
		require.ErrorContains(t, err, "next try after "+want)
	}

	d.down.Store(false)
	clock.Advance(time.Hour)
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(3), rep.Run.Changed)
	p, err = job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.Nil(t, p.RetryAt)
	require.Zero(t, p.Missing)
}

// TestReembedSkipsWhatTheEmbedderRefuses: one text the embedder refuses for good does not
// hold its batch back; it is listed and stays lexical-only.
func TestReembedSkipsWhatTheEmbedderRefuses(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	var refused string
	for i, text := range append([]string{"This note is REFUSED by the dense model."}, reembedTexts[:4]...) {
		r, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		if i == 0 {
			refused = r.ID.String()
		}
	}
	d := &dense{}
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d)}
	m := e.reembedOn(t, "host-a", &fakeClock{now: time.Now()}, job, Budget{})
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(4), rep.Run.Changed)
	require.Equal(t, int64(5), rep.Run.Examined)
	require.Equal(t, []wire.MaintenanceItem{{ID: refused, Action: "skip", Reason: "refused by dense-test-v1-32"}}, rep.Result.Items)
	p, err := job.Progress(ctx, time.Now())
	require.NoError(t, err)
	require.Equal(t, int64(1), p.Missing)
}

// TestReembedRunsOnOneHostAtATime: while one host re-embeds, a run on another changes nothing.
func TestReembedRunsOnOneHostAtATime(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	_, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: reembedTexts[0]})
	require.NoError(t, err)
	d := &dense{}
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d)}
	m := e.reembedOn(t, "host-b", &fakeClock{now: time.Now()}, job, Budget{})
	var wg sync.WaitGroup
	holding, release := make(chan struct{}), make(chan struct{})
	wg.Go(func() {
		_, _ = e.store.WithExclusive(ctx, ReembedName, func() error {
			close(holding)
			<-release
			return nil
		})
	})
	<-holding
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	close(release)
	wg.Wait()
	require.NoError(t, err)
	require.Zero(t, rep.Run.Examined)
	require.Zero(t, d.calls.Load())
	rep, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rep.Run.Changed)
}

// TestReembedKeepsToItsRate: 30 rows at 100 a second in batches of 10 take two waits of a
// tenth of a second after the first batch.
func TestReembedKeepsToItsRate(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.storeServices(t, 30)
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(&dense{}), Batch: 10, Rate: 100}
	m := e.reembedOn(t, "host-a", &fakeClock{now: time.Now()}, job, Budget{})
	start := time.Now()
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(30), rep.Run.Changed)
	require.GreaterOrEqual(t, time.Since(start), 180*time.Millisecond)
	require.False(t, errors.Is(err, rules.ErrUnavailable))
}

// TestReembedSizesBatchesByTheEmbeddersSpeed: against a model that takes 20 ms a text, the
// first call carries 4 texts and the next ones about BatchTime's worth (100 ms: 5 texts), never
// the 64 a fast endpoint gets; against a fast one the batches grow to Batch.
func TestReembedSizesBatchesByTheEmbeddersSpeed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.storeServices(t, 40)
	var mu sync.Mutex
	var sizes []int
	d := &dense{perText: 20 * time.Millisecond, onCall: func(n int) { mu.Lock(); sizes = append(sizes, n); mu.Unlock() }}
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d), Batch: 64, BatchTime: 100 * time.Millisecond}
	m := e.reembedOn(t, "host-a", &fakeClock{now: time.Now()}, job, Budget{MaxRows: 20})
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(20), rep.Run.Changed)
	mu.Lock()
	require.Equal(t, 4, sizes[0], "the speed unknown, a small first call")
	for _, n := range sizes[1:] {
		require.InDelta(t, 5, n, 2, "about 100 ms of texts at 20 ms each: %v", sizes)
	}
	sizes = nil
	mu.Unlock()

	d.perText = 0 // a fast endpoint now
	rep, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(20), rep.Run.Changed)
	mu.Lock()
	defer mu.Unlock()
	require.Greater(t, sizes[len(sizes)-1], 5, "the batches grow with the measured speed: %v", sizes)
}

// TestReembedFailureAfterProgressIsPartial: an embedder that fails after some batches were
// stored ends the run as partial with what it stored, not as a failure that says nothing
// changed; the backoff and its reason show in the progress.
func TestReembedFailureAfterProgressIsPartial(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	for _, text := range reembedTexts {
		_, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
	}
	d := &dense{}
	d.onCall = func(int) {
		if d.calls.Load() == 2 {
			d.down.Store(true)
		}
	}
	clock := &fakeClock{now: time.Now()}
	job := &Reembed{Store: e.store, Embedders: memory.Fixed(d), BackoffMin: time.Minute}
	m := e.reembedOn(t, "host-a", clock, job, Budget{})
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, "partial", rep.Run.Outcome)
	require.Equal(t, int64(4), rep.Run.Changed, "the first batch stayed stored")
	p, err := job.Progress(ctx, clock.Now())
	require.NoError(t, err)
	require.Equal(t, int64(8), p.Missing)
	require.NotNil(t, p.RetryAt)
	require.Contains(t, p.LastError, "connection refused")
}

// TestReembedYieldsToAgentsCalls: while agents are calling, each batch is followed by a rest
// the host's pacer decides (Yield times the batch's time), and progress says the run is
// yielding and how long it rested; on an idle host the same run never rests.
func TestReembedYieldsToAgentsCalls(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	e.storeServices(t, 30)
	var lastCall atomic.Int64
	pacer := &pace.Pacer{LastCall: func() time.Time { return time.Unix(0, lastCall.Load()) }, Quiet: time.Hour, Yield: 2}
	var job *Reembed
	var mu sync.Mutex
	var during []wire.ReembedProgress
	d := &dense{perText: time.Millisecond, onCall: func(int) {
		p, err := job.Progress(ctx, time.Now())
		require.NoError(t, err)
		mu.Lock()
		during = append(during, p)
		mu.Unlock()
	}}
	job = &Reembed{Store: e.store, Embedders: memory.Fixed(d), Batch: 10, BatchTime: time.Hour, Pacer: pacer}
	m := e.reembedOn(t, "host-a", &fakeClock{now: time.Now()}, job, Budget{MaxRows: 15})

	// An idle host: an agent's call long ago (or none) is no reason to rest.
	lastCall.Store(time.Now().Add(-2 * time.Hour).UnixNano())
	rep, err := m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(15), rep.Run.Changed)
	require.Zero(t, pacer.Stats().Rests, "full speed with no agent calling")
	p, err := job.Progress(ctx, time.Now())
	require.NoError(t, err)
	require.False(t, p.Yielding)
	require.Zero(t, p.YieldedSeconds)

	// Agents calling: each batch (10 texts, then the last 5, at the speed now measured) rests
	// after it.
	lastCall.Store(time.Now().UnixNano())
	mu.Lock()
	during = nil
	mu.Unlock()
	rep, err = m.RunNow(ctx, ReembedName, wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(15), rep.Run.Changed)
	s := pacer.Stats()
	require.Equal(t, int64(2), s.Rests, "a rest after each of the run's two batches")
	require.Positive(t, s.Rested)
	p, err = job.Progress(ctx, time.Now())
	require.NoError(t, err)
	require.False(t, p.Yielding, "the run is over")
	require.InDelta(t, s.Rested.Seconds(), p.YieldedSeconds, 1e-9, "the finished run's rests")
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, during, 2)
	require.False(t, during[0].Yielding, "no rest before the first batch")
	require.True(t, during[1].Yielding, "the second batch follows a rest: %+v", during[1])
	require.Positive(t, during[1].YieldedSeconds)
}

// storeServices stores n distinct facts ("Service svc-i listens on port 9000+i.") in proj.
func (e env) storeServices(t *testing.T, n int) {
	t.Helper()
	for i := range n {
		_, err := e.svc.Store(context.Background(), proj, memory.StoreRequest{Text: fmt.Sprintf("Service svc-%d listens on port %d.", i, 9000+i)})
		require.NoError(t, err)
	}
}
