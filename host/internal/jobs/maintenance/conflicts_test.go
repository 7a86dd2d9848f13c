package maintenance

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	sdkworker "github.com/memhost/memhost/sdk/worker"
)

// lineOf finds the number of the input line holding text, as the conflicts chain sees it; 0
// when the input does not hold it (a superseded fact is not shown again).
func lineOf(t *testing.T, input, text string) int {
	t.Helper()
	for _, l := range strings.Split(input, "\n") {
		if strings.HasSuffix(l, "] "+text) {
			var n int
			_, err := fmt.Sscanf(l, "%d.", &n)
			require.NoError(t, err)
			return n
		}
	}
	return 0
}

func (e env) conflictsJob(t *testing.T, clock Clock, tk Tasks) *Maintenance {
	t.Helper()
	m, err := New(e.pool, e.store, Config{Host: "host-a", Clock: clock, testOnly: true, Jobs: []Scheduled{{
		Job: Conflicts{Store: e.store, Memory: e.svc, Tasks: tk, Facts: 50, Journal: 10}, Enabled: true, Every: 24 * time.Hour,
		Budget: Budget{MaxRows: 10, MaxLLMCalls: 10},
	}}})
	require.NoError(t, err)
	return m
}

// TestConflictsSupersedesAndFilesTheRest: the conflicts chain reads the project's statements;
// a clear replacement marks the older fact superseded by the newer (kept live, shown as such,
// ranked below it), a contradiction goes to the inbox, and a pair made up by the chain is
// ignored; an undone supersession is not found again; a second run flags nothing twice, and a
// dismissed pair is never flagged again.
func TestConflictsSupersedesAndFilesTheRest(t *testing.T) {
	t.Parallel()
	e := setupWith(t, noFold())
	ctx := context.Background()
	npm := e.write(t, proj, "Frontend packages install with npm install")
	pnpm := e.write(t, proj, "Frontend packages install with pnpm now")
	fri := e.write(t, proj, "Releases ship on Fridays")
	tue := e.write(t, proj, "Releases ship on Tuesdays")

	answer := func(_ context.Context, task sdkworker.Task) (string, error) {
		l := func(text string) int { return lineOf(t, task.Input, text) }
		return fmt.Sprintf(`{"pairs": [
			{"a": %d, "b": %d, "evidence": "pnpm replaced npm", "severity": "medium", "replaces": "a"},
			{"a": %d, "b": %d, "evidence": "two release days", "severity": "high", "replaces": ""},
			{"a": 1, "b": 99, "evidence": "made up", "severity": "low", "replaces": ""}]}`,
			l("Frontend packages install with pnpm now"), l("Frontend packages install with npm install"),
			l("Releases ship on Fridays"), l("Releases ship on Tuesdays")), nil
	}
	chain := &scripted{answer: answer}
	m := e.conflictsJob(t, &fakeClock{now: time.Now()}, chain)
	rep, err := m.RunNow(ctx, "conflicts", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.EqualValues(t, 1, rep.Result.LLMCalls)
	require.EqualValues(t, 2, rep.Result.Changed)
	asked := chain.tasks()
	require.Equal(t, sdkworker.TaskConflicts, asked[0].Kind)
	require.NotEmpty(t, asked[0].Schema)

	old := e.memory(t, npm)
	require.Equal(t, &pnpm, old.SupersededBy)
	require.False(t, old.Archived(), "a superseded fact stays live")
	v, err := e.svc.Get(ctx, proj, npm)
	require.NoError(t, err)
	require.Equal(t, &pnpm, v.SupersededBy)
	res, err := e.svc.Search(ctx, proj, memory.SearchRequest{Query: "frontend packages install npm"})
	require.NoError(t, err)
	var order []uuid.UUID
	for _, h := range res.Hits {
		order = append(order, h.ID)
	}
	require.Equal(t, []uuid.UUID{pnpm, npm}, order[:2], "the superseded fact ranks below its successor")

	// Undone, the supersession stays undone: the chain names the pair again, and the job skips it.
	v, err = e.svc.Unsupersede(ctx, proj, npm)
	require.NoError(t, err)
	require.Nil(t, v.SupersededBy)
	require.Equal(t, []store.Event{store.EventAdd, store.EventUpdate, store.EventUpdate}, events(t, e, npm))
	undone, err := m.RunNow(ctx, "conflicts", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Nil(t, e.memory(t, npm).SupersededBy, "an undone supersession is never found again")
	require.Zero(t, undone.Result.Changed)
	_, err = e.svc.Unsupersede(ctx, proj, npm)
	var fe *rules.FieldError
	require.ErrorAs(t, err, &fe, "not superseded")

	open, err := e.store.Conflicts(ctx, store.ConflictQuery{ScopeKey: proj.Project, Statuses: []store.ConflictStatus{store.ConflictOpen}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, open, 1)
	require.ElementsMatch(t, []uuid.UUID{fri, tue}, []uuid.UUID{open[0].MemoryA, open[0].MemoryB})
	require.Equal(t, "high", open[0].Severity)
	require.Equal(t, "two release days", open[0].Evidence)

	again, err := m.RunNow(ctx, "conflicts", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Zero(t, again.Result.Changed, "nothing is flagged twice")

	_, err = e.store.DecideConflict(ctx, store.ConflictDecision{ScopeKey: proj.Project, ID: open[0].ID, Status: store.ConflictDismissed, Actor: "alice"})
	require.NoError(t, err)
	third, err := m.RunNow(ctx, "conflicts", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Zero(t, third.Result.Changed, "a dismissed pair is never flagged again")
	n, _, err := e.store.OpenConflicts(ctx, proj.Project)
	require.NoError(t, err)
	require.Zero(t, n)
}

// TestConflictsWithoutAWorkerDoNothing: no worker, or one that fails, flags nothing and
// changes nothing; the run reports no worker as ok and a failure as partial.
func TestConflictsWithoutAWorkerDoNothing(t *testing.T) {
	t.Parallel()
	e := setupWith(t, noFold())
	ctx := context.Background()
	e.write(t, proj, "Releases ship on Fridays")
	e.write(t, proj, "Releases ship on Tuesdays")
	for _, tc := range []struct {
		name    string
		err     error
		partial bool
	}{{"no worker", tasks.ErrNoWorker, false}, {"chain fails", tasks.ErrNoAnswer, true}} {
		chain := &scripted{answer: func(context.Context, sdkworker.Task) (string, error) { return "", tc.err }}
		m := e.conflictsJob(t, &fakeClock{now: time.Now()}, chain)
		rep, err := m.RunNow(ctx, "conflicts", wire.RunOptions{})
		require.NoError(t, err, tc.name)
		require.Zero(t, rep.Result.Changed, tc.name)
		require.Equal(t, tc.partial, rep.Result.Partial, tc.name)
	}
	n, _, err := e.store.OpenConflicts(ctx, proj.Project)
	require.NoError(t, err)
	require.Zero(t, n)
}
