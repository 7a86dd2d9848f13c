package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestDormancyArchivesIdleOrArchivedProjectsAndUnarchiveRestores: a project whose git HEAD is
// over 60 days old has its never-retrieved facts archived "dormant" (a retrieved one stays);
// an active project is untouched until the operator archives it, which queues the job for it
// in the same transaction; unarchiving restores what dormancy archived.
func TestDormancyArchivesIdleOrArchivedProjectsAndUnarchiveRestores(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	busy := memory.Access{Project: "github.com/acme/busy", Actor: "bob"}
	put := func(a memory.Access, text string) memory.StoreResult {
		r, err := e.svc.Store(ctx, a, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		return r
	}
	idle, used, busyFact := put(proj, "The legacy cron host is called kestrel."), put(proj, "The billing api listens on port 8080."), put(busy, "Busy uses Redis 7.")
	_, err := e.svc.Get(ctx, proj, used.ID)
	require.NoError(t, err)
	require.Eventually(t, func() bool { at, err := e.store.LastRetrieved(ctx, used.ID); return err == nil && at != nil }, 5*time.Second, 20*time.Millisecond)
	for key, head := range map[string]time.Time{proj.Project: time.Now().Add(-61 * 24 * time.Hour), busy.Project: time.Now()} {
		_, err := e.pool.Exec(ctx, `INSERT INTO project_maps (scope_key, map, generated_at) VALUES ($1, jsonb_build_object('git', jsonb_build_object('head', jsonb_build_object('time', $2::timestamptz))), now())`, key, head)
		require.NoError(t, err)
	}
	m, err := New(e.pool, e.store, Config{Host: "host-a", testOnly: true, Jobs: []Scheduled{{
		Job: Dormancy{Store: e.store, After: 60 * 24 * time.Hour}, Budget: Budget{MaxRows: 100},
	}}})
	require.NoError(t, err)
	archived := func(id any) string {
		t.Helper()
		var reason *string
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT archived_reason FROM memories WHERE id = $1`, id).Scan(&reason))
		if reason == nil {
			return ""
		}
		return *reason
	}

	rep, err := m.RunNow(ctx, "dormancy", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, int64(1), rep.Result.Changed)
	require.Equal(t, "dormant", archived(idle.ID))
	require.Empty(t, archived(used.ID), "a retrieved fact stays")
	require.Empty(t, archived(busyFact.ID), "an active project is untouched")

	restored, err := m.UnarchiveProject(ctx, proj.Project, "op")
	require.NoError(t, err)
	require.Len(t, restored, 1)
	require.Empty(t, archived(idle.ID), "unarchiving restores what dormancy archived")

	require.NoError(t, m.ArchiveProject(ctx, busy.Project, "op"))
	var queued int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'maintenance.dormancy' AND args->>'project' = $1`, busy.Project).Scan(&queued))
	require.Equal(t, 1, queued, "archiving the project queued the dormancy job for it")
	start(t, m)
	require.Eventually(t, func() bool { return archived(busyFact.ID) == "dormant" }, 30*time.Second, 100*time.Millisecond)

	restored, err = m.UnarchiveProject(ctx, busy.Project, "op")
	require.NoError(t, err)
	require.Len(t, restored, 1)
	require.Empty(t, archived(busyFact.ID))
}
