package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestPurgeLeavesATombstoneAndOtherHostsDropTheRow travels past the grace window: a memory
// archived over 30 days ago is hard-deleted; its history still answers, texts erased, ending in
// a purge row with who, when, why and the text's hash; another host's lexical index (fed by
// the change feed) drops it; a pinned archived memory, one archived recently and a live one
// stay; until the purge, the archived memory was restorable.
func TestPurgeLeavesATombstoneAndOtherHostsDropTheRow(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	store1 := func(text string) memory.StoreResult {
		r, err := e.svc.Store(ctx, proj, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		return r
	}
	old, pinned, live := store1("The legacy cron host is called kestrel."), store1("Never force-push to main."), store1("Deploys go through ArgoCD.")
	_, err := e.svc.Archive(ctx, proj, old.ID, "moved to nomad")
	require.NoError(t, err)
	_, err = e.svc.SetPinned(ctx, proj, pinned.ID, true)
	require.NoError(t, err)
	_, err = e.svc.Archive(ctx, proj, pinned.ID, "")
	require.NoError(t, err)

	// Another host: its own index, following the shared change feed.
	other := lexical.New()
	follower := lexical.NewFollower(e.store, other, time.Hour)
	_, err = follower.CatchUp(ctx)
	require.NoError(t, err)
	require.Equal(t, 3, other.Len())

	clock := &fakeClock{now: time.Now()}
	m, err := New(e.pool, e.store, Config{Host: "host-a", Clock: clock, Jobs: []Scheduled{{Job: Purge{Store: e.store, Grace: 30 * 24 * time.Hour}}}})
	require.NoError(t, err)
	rep, err := m.RunNow(ctx, "purge", wire.RunOptions{})
	require.NoError(t, err)
	require.Zero(t, rep.Result.Changed, "within the grace window nothing is purged")

	clock.Advance(31 * 24 * time.Hour)
	dry, err := m.RunNow(ctx, "purge", wire.RunOptions{DryRun: true})
	require.NoError(t, err)
	require.Len(t, dry.Result.Items, 1)
	_, err = e.store.Get(ctx, old.ID)
	require.NoError(t, err, "a dry run deletes nothing")

	rep, err = m.RunNow(ctx, "purge", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rep.Result.Changed)
	_, err = e.store.Get(ctx, old.ID)
	require.ErrorIs(t, err, rules.ErrNotFound)
	for _, id := range []uuid.UUID{pinned.ID, live.ID} {
		_, err = e.store.Get(ctx, id)
		require.NoError(t, err, "pinned and live memories stay")
	}

	hist, err := e.svc.History(ctx, proj, old.ID)
	require.NoError(t, err)
	last := hist[len(hist)-1]
	require.Equal(t, store.EventPurge, last.Event)
	require.Equal(t, "maintenance:purge", last.Actor)
	require.Equal(t, "moved to nomad", last.Detail["archived_reason"])
	require.Len(t, last.Detail["text_sha256"], 64)
	for _, h := range hist {
		require.Nil(t, h.BeforeText, "the purged text is gone from history too")
		require.Nil(t, h.AfterText)
	}
	_, err = e.svc.History(ctx, memory.Access{Project: "github.com/acme/other", Actor: "eve"}, old.ID)
	require.ErrorIs(t, err, rules.ErrNotFound, "another project's caller learns nothing")

	_, err = follower.CatchUp(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, other.Len(), "the other host's index dropped the purged row")

	again, err := m.RunNow(ctx, "purge", wire.RunOptions{})
	require.NoError(t, err)
	require.Zero(t, again.Result.Changed, "idempotent; pinned memories are never purged")
}
