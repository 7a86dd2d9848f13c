package pgstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestMigration0013FreesWindowsStuckBeforeIt upgrades a database whose run was left "running"
// by a host killed under the previous release: its window is claimed again, the stuck run is
// abandoned, and the finished runs keep their outcomes.
func TestMigration0013FreesWindowsStuckBeforeIt(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, testdb.Schema(t))
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	applyUpTo(t, pool, 12)
	window := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	_, err = pool.Exec(ctx, `INSERT INTO maintenance_runs (job, trigger, window_start, host, started_at, outcome)
		VALUES ('stale', 'periodic', $1, 'host-killed', $2, 'running'), ('stale', 'periodic', $3, 'host-a', $3, 'ok')`,
		window, window.Add(time.Hour), window.Add(-24*time.Hour))
	require.NoError(t, err)
	_, err = migrate.Up(ctx, pool)
	require.NoError(t, err)

	st := pgstore.New(pool)
	now := window.Add(5 * time.Hour)
	_, claimed, err := st.StartRun(ctx, store.MaintenanceRun{Job: "stale", Trigger: "periodic", WindowStart: &window, Host: "host-b", StartedAt: now},
		store.LiveRuns{Since: now.Add(-2 * time.Minute), Host: "host-b"})
	require.NoError(t, err)
	require.True(t, claimed, "the stuck window is claimed again")
	rows, err := pool.Query(ctx, `SELECT host || ' ' || outcome FROM maintenance_runs ORDER BY id`)
	require.NoError(t, err)
	got, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"host-killed abandoned", "host-a ok", "host-b running"}, got)
}
