package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestStaleArchivesOnlyOldNeverRetrievedUnpinnedFacts travels 91 days forward: the fact no
// search or get returned is archived with reason "stale" and a history row, and restorable;
// the searched one, the read one and the pinned one are kept; a dry run changes nothing; a
// second run changes nothing more.
func TestStaleArchivesOnlyOldNeverRetrievedUnpinnedFacts(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	ids := map[string]uuid.UUID{}
	for name, text := range map[string]string{
		"forgotten": "The legacy cron host is called kestrel.",
		"searched":  "The billing api listens on port 8080.",
		"read":      "Deploys go through ArgoCD.",
		"pinned":    "Never force-push to main.",
	} {
		r, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		ids[name] = r.ID
	}
	_, err := e.svc.SetPinned(ctx, proj, ids["pinned"], true)
	require.NoError(t, err)
	res, err := e.svc.Search(ctx, proj, memory.SearchRequest{Query: "billing api port"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	_, err = e.svc.Get(ctx, proj, ids["read"])
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		a, err1 := e.store.LastRetrieved(ctx, ids["searched"])
		b, err2 := e.store.LastRetrieved(ctx, ids["read"])
		return err1 == nil && err2 == nil && a != nil && b != nil
	}, 5*time.Second, 20*time.Millisecond)

	clock := &fakeClock{now: time.Now()}
	m := e.newMaintenance(t, "host-a", clock, 24*time.Hour)

	rep, err := m.RunNow(ctx, "stale", wire.RunOptions{})
	require.NoError(t, err)
	require.Zero(t, rep.Result.Changed, "nothing is 90 days old yet")

	clock.Advance(91 * 24 * time.Hour)
	dry, err := m.RunNow(ctx, "stale", wire.RunOptions{DryRun: true})
	require.NoError(t, err)
	require.Equal(t, []wire.MaintenanceItem{{ID: ids["forgotten"].String(), Action: "archive", Reason: "stale"}}, dry.Result.Items)
	got, err := e.store.Get(ctx, ids["forgotten"])
	require.NoError(t, err)
	require.False(t, got.Archived(), "a dry run changes nothing")

	rep, err = m.RunNow(ctx, "stale", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rep.Result.Changed)
	require.Equal(t, "ok", rep.Run.Outcome)
	for name, id := range ids {
		got, err := e.store.Get(ctx, id)
		require.NoError(t, err)
		require.Equal(t, name == "forgotten", got.Archived(), name)
	}
	got, err = e.store.Get(ctx, ids["forgotten"])
	require.NoError(t, err)
	require.Equal(t, "stale", got.ArchivedReason)
	hist, err := e.svc.History(ctx, proj, ids["forgotten"])
	require.NoError(t, err)
	last := hist[len(hist)-1]
	require.Equal(t, store.EventArchive, last.Event)
	require.Equal(t, "maintenance:stale", last.Actor)
	require.Equal(t, "stale", last.Detail["reason"])

	again, err := m.RunNow(ctx, "stale", wire.RunOptions{})
	require.NoError(t, err)
	require.Zero(t, again.Result.Changed, "idempotent")

	_, err = e.svc.Restore(ctx, proj, ids["forgotten"])
	require.NoError(t, err)
	got, err = e.store.Get(ctx, ids["forgotten"])
	require.NoError(t, err)
	require.False(t, got.Archived(), "restorable")
}

// TestStaleRespectsProjectAndBudget: --project limits a run to that project's facts, and a
// run stops at max_rows with outcome partial, the next run carrying on.
func TestStaleRespectsProjectAndBudget(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	other := memory.Access{Project: "github.com/acme/other", Actor: "bob"}
	for i, text := range []string{"Alpha uses Postgres 15.", "Bravo uses Redis 7.", "Charlie uses Kafka."} {
		_, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err, i)
	}
	_, err := e.svc.Store(ctx, other, memory.StoreRequest{Text: "Delta uses SQLite."})
	require.NoError(t, err)
	clock := &fakeClock{now: time.Now().Add(100 * 24 * time.Hour)}
	m, err := New(e.pool, e.store, Config{Host: "h", Clock: clock, Jobs: []Scheduled{{
		Job: Stale{Store: e.store, After: 90 * 24 * time.Hour}, Budget: Budget{MaxRows: 2},
	}}})
	require.NoError(t, err)

	rep, err := m.RunNow(ctx, "stale", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Equal(t, int64(2), rep.Result.Changed)
	require.Equal(t, "partial", rep.Run.Outcome)
	rep, err = m.RunNow(ctx, "stale", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Equal(t, int64(1), rep.Result.Changed)
	require.Equal(t, "ok", rep.Run.Outcome)
	rep, err = m.RunNow(ctx, "stale", wire.RunOptions{Project: proj.Project})
	require.NoError(t, err)
	require.Zero(t, rep.Result.Changed, "the other project is not touched")

	_, err = m.RunNow(ctx, "nope", wire.RunOptions{})
	require.ErrorIs(t, err, ErrUnknownJob)
}
