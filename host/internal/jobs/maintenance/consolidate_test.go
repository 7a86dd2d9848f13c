package maintenance

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	sdkworker "github.com/memhost/memhost/sdk/worker"
)

// scripted is a fake worker chain: answer decides each task's answer (deterministically, from
// its input), and every task is kept for the test to read.
type scripted struct {
	mu     sync.Mutex
	seen   []sdkworker.Task
	answer func(ctx context.Context, t sdkworker.Task) (string, error)
}

func (s *scripted) Run(ctx context.Context, kind sdkworker.TaskKind, t sdkworker.Task) (sdkworker.Answer, tasks.Call, error) {
	t.Kind = kind
	s.mu.Lock()
	s.seen = append(s.seen, t)
	s.mu.Unlock()
	text, err := s.answer(ctx, t)
	call := tasks.Call{Task: string(kind), Worker: "scripted", InputTokens: len(t.Input) / 4, OutputTokens: len(text) / 4}
	if err != nil {
		return sdkworker.Answer{}, tasks.Call{}, err
	}
	return sdkworker.Answer{Text: text}, call, nil
}

func (s *scripted) tasks() []sdkworker.Task {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sdkworker.Task(nil), s.seen...)
}

// noFold turns the write-time semantic fold off, so the tests can hold the near-duplicates it
// would otherwise absorb (those it misses in real use).
func noFold() memory.Config {
	cfg := memory.DefaultConfig()
	cfg.FoldThresholds = map[string]float64{"bm25-v1-384": -1}
	return cfg
}

// consolidator builds a Maintenance with the consolidate job on e's schema.
func (e env) consolidator(t *testing.T, clock Clock, tk Tasks, near float64, budget Budget) *Maintenance {
	t.Helper()
	m, err := New(e.pool, e.store, Config{Host: "host-a", Clock: clock, testOnly: true, Jobs: []Scheduled{{
		Job:     Consolidate{Store: e.store, Memory: e.svc, Tasks: tk, Same: 0.95, Near: near, MaxCluster: 8},
		Enabled: true, Every: 24 * time.Hour, Budget: budget,
	}}})
	require.NoError(t, err)
	return m
}

func (e env) write(t *testing.T, a memory.Access, text string) uuid.UUID {
	t.Helper()
	r, err := e.svc.Store(context.Background(), a, memory.StoreRequest{Text: text})
	require.NoError(t, err)
	require.False(t, r.Folded, "%q folded at write time", text)
	return r.ID
}

func (e env) memory(t *testing.T, id uuid.UUID) store.Memory {
	t.Helper()
	m, err := e.store.Get(context.Background(), id)
	require.NoError(t, err)
	return m
}

func events(t *testing.T, e env, id uuid.UUID) []store.Event {
	t.Helper()
	h, err := e.store.History(context.Background(), id)
	require.NoError(t, err)
	var out []store.Event
	for _, x := range h {
		out = append(out, x.Event)
	}
	return out
}

// TestConsolidateMergesIdenticalFactsWithoutAModel: two facts the same but for case and
// punctuation merge with no worker call, the pinned one surviving; the absorbed is archived
// "merged into <id>", its text in the survivor's merged_from and history; a fact of another
// project and an unrelated fact are untouched; unmerge restores it.
func TestConsolidateMergesIdenticalFactsWithoutAModel(t *testing.T) {
	t.Parallel()
	e := setupWith(t, noFold())
	ctx := context.Background()
	older := e.write(t, proj, "Deploys go through ArgoCD.")
	pinned := e.write(t, proj, "deploys go through ArgoCD!")
	_, err := e.svc.SetPinned(ctx, proj, pinned, true)
	require.NoError(t, err)
	other := e.write(t, proj, "The billing api listens on port 8080.")
	elsewhere := e.write(t, memory.Access{Project: "github.com/acme/other", Actor: "bob"}, "Deploys go through ArgoCD.")

	chain := &scripted{answer: func(context.Context, sdkworker.Task) (string, error) {
		t.Error("the deterministic pass asked a worker")
		return "", errors.New("unexpected")
	}}
	m := e.consolidator(t, &fakeClock{now: time.Now()}, chain, 0.99, Budget{MaxRows: 100})

	dry, err := m.RunNow(ctx, "consolidate", RunOptions{Project: proj.Project, DryRun: true})
	require.NoError(t, err)
	require.Equal(t, []Item{{ID: older.String(), Action: "merge", Reason: "merged into " + pinned.String()}}, dry.Result.Items)
	require.False(t, e.memory(t, older).Archived(), "a dry run changes nothing")

	rep, err := m.RunNow(ctx, "consolidate", RunOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Result.Changed)
	require.Zero(t, rep.Result.LLMCalls)
	got := e.memory(t, older)
	require.True(t, got.Archived())
	require.Equal(t, "merged into "+pinned.String(), got.ArchivedReason)
	sv := e.memory(t, pinned)
	require.Equal(t, "deploys go through ArgoCD!", sv.Text, "a deterministic merge keeps the survivor's text")
	require.Len(t, sv.MergedFrom, 1)
	require.Equal(t, "Deploys go through ArgoCD.", sv.MergedFrom[0].Text)
	require.Contains(t, events(t, e, pinned), store.EventMerge)
	require.False(t, e.memory(t, other).Archived())
	require.False(t, e.memory(t, elsewhere).Archived(), "projects are consolidated apart")

	again, err := m.RunNow(ctx, "consolidate", RunOptions{})
	require.NoError(t, err)
	require.Zero(t, again.Result.Changed, "a second run finds nothing more")

	v, err := e.svc.Unmerge(ctx, proj, pinned)
	require.NoError(t, err)
	require.Empty(t, v.MergedFrom)
	require.False(t, e.memory(t, older).Archived(), "unmerge restores what was absorbed")
	require.Equal(t, []store.Event{store.EventAdd, store.EventArchive, store.EventRestore}, events(t, e, older))
	_, err = e.svc.Unmerge(ctx, proj, pinned)
	var fe *memory.FieldError
	require.ErrorAs(t, err, &fe, "nothing left to unmerge")
}

// TestConsolidateMergeChainKeepsSpecifics: a cluster the deterministic rule does not cover
// goes to the merge chain; an answer that drops a number, a path or a "not" is rejected and
// the cluster left alone; a faithful answer becomes the survivor's text, and unmerge gives
// the survivor its own text back and restores the absorbed fact.
func TestConsolidateMergeChainKeepsSpecifics(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, a, b, answer string
		merged             bool
	}{
		{"drops a number", "The api runs 28 replicas in prod", "Production has 28 api pods", "The api runs replicas in prod", false},
		{"drops a path", "Config lives in /etc/acme/app.toml on the hosts", "The hosts keep config at /etc/acme/app.toml", "Config lives on the hosts", false},
		{"drops a not", "Do not run the migrations by hand", "Migrations are not run by hand ever", "Run the migrations by hand", false},
		{"keeps everything", "The api runs 28 replicas in prod", "Production has 28 api pods", "In prod the api runs 28 replicas", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setupWith(t, noFold())
			ctx := context.Background()
			a := e.write(t, proj, tc.a)
			b := e.write(t, proj, tc.b)
			chain := &scripted{answer: func(_ context.Context, task sdkworker.Task) (string, error) {
				return `{"same": true, "text": "` + tc.answer + `"}`, nil
			}}
			m := e.consolidator(t, &fakeClock{now: time.Now()}, chain, 0.05, Budget{MaxRows: 100, MaxLLMCalls: 5})
			rep, err := m.RunNow(ctx, "consolidate", RunOptions{Project: proj.Project})
			require.NoError(t, err)
			require.EqualValues(t, 1, rep.Result.LLMCalls)
			asked := chain.tasks()
			require.Len(t, asked, 1)
			require.Equal(t, sdkworker.TaskMerge, asked[0].Kind)
			require.Contains(t, asked[0].Input, tc.a)
			require.Contains(t, asked[0].Input, tc.b)
			require.NotEmpty(t, asked[0].Schema)
			if !tc.merged {
				require.Zero(t, rep.Result.Changed)
				require.Equal(t, "reject", rep.Result.Items[0].Action)
				require.False(t, e.memory(t, a).Archived())
				require.False(t, e.memory(t, b).Archived())
				return
			}
			require.EqualValues(t, 1, rep.Result.Changed)
			sv, gone := a, b // equal use: the older survives
			require.Equal(t, tc.answer, e.memory(t, sv).Text)
			require.True(t, e.memory(t, gone).Archived())
			found, err := e.svc.Search(ctx, proj, memory.SearchRequest{Query: "replicas prod"})
			require.NoError(t, err)
			require.Len(t, found.Hits, 1, "search finds the survivor alone")

			_, err = e.svc.Unmerge(ctx, proj, sv)
			require.NoError(t, err)
			require.Equal(t, tc.a, e.memory(t, sv).Text, "unmerge restores the survivor's own text")
			require.False(t, e.memory(t, gone).Archived())
			require.Equal(t, []store.Event{store.EventAdd, store.EventMerge, store.EventUpdate}, events(t, e, sv))
		})
	}
}

// TestConsolidateWorkerFailuresNeverBlock: a merge chain that hangs, crashes, answers garbage
// or is over budget leaves its cluster alone, never blocks a write to the project meanwhile,
// and the deterministic pass still runs; the next period asks again and merges.
func TestConsolidateWorkerFailuresNeverBlock(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		fail   func(ctx context.Context) (string, error)
		budget Budget
	}{
		{"hangs", func(ctx context.Context) (string, error) { <-ctx.Done(); return "", ctx.Err() }, Budget{MaxDuration: 2 * time.Second}},
		{"crashes", func(context.Context) (string, error) {
			return "", errors.Join(tasks.ErrNoAnswer, sdkworker.ErrUnavailable)
		}, Budget{}},
		{"answers garbage", func(context.Context) (string, error) { return "sure! here you go", nil }, Budget{}},
		{"is over its daily budget", func(context.Context) (string, error) { return "", tasks.ErrWaiting }, Budget{}},
		{"blows its token budget", func(context.Context) (string, error) {
			return "", errors.Join(tasks.ErrNoAnswer, sdkworker.ErrOverBudget)
		}, Budget{MaxTokens: 10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := setupWith(t, noFold())
			ctx := context.Background()
			a := e.write(t, proj, "The api runs 28 replicas in prod")
			b := e.write(t, proj, "Production has 28 api pods")
			same := e.write(t, proj, "Tests need TZ=UTC.")
			dup := e.write(t, proj, "tests need TZ=UTC")

			var mu sync.Mutex
			healthy := false
			called := make(chan struct{}, 10)
			chain := &scripted{answer: func(ctx context.Context, task sdkworker.Task) (string, error) {
				called <- struct{}{}
				mu.Lock()
				ok := healthy
				mu.Unlock()
				if ok {
					return `{"same": true, "text": "In prod the api runs 28 replicas"}`, nil
				}
				return tc.fail(ctx)
			}}
			budget := tc.budget
			budget.MaxRows = 100
			clock := &fakeClock{now: time.Now()}
			m := e.consolidator(t, clock, chain, 0.05, budget)

			done := make(chan Report, 1)
			go func() {
				rep, err := m.execute(ctx, "consolidate", TriggerPeriodic, RunOptions{})
				require.NoError(t, err)
				done <- rep
			}()
			select {
			case <-called:
				// While the chain is busy (or hung), a write to the project goes through.
				start := time.Now()
				e.write(t, proj, "The release train leaves on Thursdays")
				require.Less(t, time.Since(start), time.Second)
			case rep := <-done:
				done <- rep
			}
			rep := <-done
			require.False(t, e.memory(t, a).Archived())
			require.False(t, e.memory(t, b).Archived())
			require.True(t, e.memory(t, dup).Archived() != e.memory(t, same).Archived(), "the deterministic pass ran")

			mu.Lock()
			healthy = true
			mu.Unlock()
			require.True(t, rep.Result.Partial, "the cluster left alone is work for the next run")
			rerun, err := m.execute(ctx, "consolidate", TriggerPeriodic, RunOptions{})
			require.NoError(t, err)
			require.True(t, rerun.Skipped, "the window already ran")
			clock.Advance(24 * time.Hour)
			next, err := m.execute(ctx, "consolidate", TriggerPeriodic, RunOptions{})
			require.NoError(t, err)
			require.False(t, next.Skipped)
			require.EqualValues(t, 1, next.Result.Changed, "the next period merges")
			require.True(t, e.memory(t, a).Archived() != e.memory(t, b).Archived())
			require.True(t, strings.HasPrefix(next.Result.Items[0].Reason, "merged into "))
		})
	}
}

// TestConsolidateHoldsTheCanonicalTextToTheWriteRules: a merged statement over the memory
// text limit is refused as a write would be, naming the field and the limit, and the cluster
// is left alone.
func TestConsolidateHoldsTheCanonicalTextToTheWriteRules(t *testing.T) {
	t.Parallel()
	cfg := noFold()
	cfg.MaxTextBytes = 64
	e := setupWith(t, cfg)
	ctx := context.Background()
	a := e.write(t, proj, "The api runs 28 replicas in prod")
	b := e.write(t, proj, "Production has 28 api pods")
	long := "In production the api service runs 28 replicas, which are also known as the 28 api pods"
	chain := &scripted{answer: func(context.Context, sdkworker.Task) (string, error) {
		return `{"same": true, "text": "` + long + `"}`, nil
	}}
	m := e.consolidator(t, &fakeClock{now: time.Now()}, chain, 0.05, Budget{MaxRows: 100})
	rep, err := m.RunNow(ctx, "consolidate", RunOptions{})
	require.NoError(t, err)
	require.Zero(t, rep.Result.Changed)
	require.Len(t, rep.Result.Items, 1)
	require.Equal(t, "reject", rep.Result.Items[0].Action)
	require.Contains(t, rep.Result.Items[0].Reason, "text")
	require.Contains(t, rep.Result.Items[0].Reason, "64")
	require.False(t, e.memory(t, a).Archived())
	require.False(t, e.memory(t, b).Archived())
}
