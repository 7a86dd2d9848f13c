package pgstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestConsoleFigures: the console's plots count one project's fact events per day (not its
// goal's nor another project's), its facts by use, the worker calls per day, and each
// memory's latest history event.
func TestConsoleFigures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	var ids []uuid.UUID
	for i := range 6 {
		m, err := storetest.Insert(ctx, s, storetest.NewWrite("p", fmt.Sprintf("fact %d of the figures", i), storetest.Vec(i, 0)))
		require.NoError(t, err)
		ids = append(ids, m.ID)
	}
	other := storetest.NewWrite("q", "another project's fact", storetest.Vec(1, 0))
	_, err := storetest.Insert(ctx, s, other)
	require.NoError(t, err)
	goal := storetest.NewWrite("p", "the goal", storetest.Vec(2, 0))
	goal.Kind = store.KindGoal
	_, err = storetest.Insert(ctx, s, goal)
	require.NoError(t, err)
	_, err = s.SetArchived(ctx, store.ArchiveParams{ID: ids[0], Archived: true, Reason: "stale", Actor: "test"})
	require.NoError(t, err)
	exec := func(sql string, args ...any) {
		_, err := pool.Exec(ctx, sql, args...)
		require.NoError(t, err)
	}
	exec(`UPDATE memory_history SET created_at = created_at - interval '2 days' WHERE memory_id = ANY($1) AND event = 'add'`, ids[:2])
	exec(`UPDATE memories SET hit_count = 3, last_retrieved_at = now() WHERE id = $1`, ids[1])
	exec(`UPDATE memories SET hit_count = 70, last_retrieved_at = now() WHERE id = $1`, ids[2])
	now := time.Now().UTC()
	exec(`INSERT INTO worker_calls (task, worker, started_at, latency_ms, outcome, input_tokens, output_tokens)
		VALUES ('merge', 'w', $1, 100, 'ok', 10, 5), ('merge', 'w', $1, 300, 'timeout', 0, 0), ('merge', 'w', $2, 50, 'ok', 1, 1)`, now, now.Add(-48*time.Hour))

	days, err := s.DailyActivity(ctx, "p", now.Add(-7*24*time.Hour))
	require.NoError(t, err)
	require.Len(t, days, 2)
	require.Equal(t, store.DayActivity{Day: days[0].Day, Added: 2}, days[0])
	require.Equal(t, store.DayActivity{Day: days[1].Day, Added: 4, Archived: 1}, days[1], "the goal is no fact")
	require.Equal(t, now.Truncate(24*time.Hour), days[1].Day)

	u, err := s.UseSpread(ctx, "p")
	require.NoError(t, err)
	require.Equal(t, int64(5), u.Live)
	require.Equal(t, int64(3), u.NeverRetrieved)
	facts := make([]int64, len(u.Buckets))
	for i, b := range u.Buckets {
		require.Equal(t, store.UseBounds[i], [2]int64{b.Min, b.Max})
		facts[i] = b.Facts
	}
	require.Equal(t, []int64{3, 0, 1, 0, 0, 1}, facts)

	calls, err := s.DailyCalls(ctx, now.Add(-7*24*time.Hour))
	require.NoError(t, err)
	require.Len(t, calls, 2)
	require.Equal(t, store.DayCalls{Day: calls[1].Day, Calls: 2, Failed: 1, Tokens: 15, P50Ms: 200, P95Ms: 290}, calls[1])

	latest, err := s.LatestEvents(ctx, append(ids[:2:2], uuid.New()))
	require.NoError(t, err)
	require.Len(t, latest, 2)
	require.Equal(t, store.EventArchive, latest[ids[0]].Event)
	require.Equal(t, store.EventAdd, latest[ids[1]].Event)
}
