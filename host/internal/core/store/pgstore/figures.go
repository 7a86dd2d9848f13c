package pgstore

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// The operator console's figures (store/figures.go): read-only aggregates over the history
// ledger, the memories and worker_calls.

// layerKinds are the project brain's rows, which the fact figures leave out.
var layerKinds = []string{string(store.KindGoal), string(store.KindPlan), string(store.KindJournal)}

// DailyActivity counts what happened to project key's facts per UTC day since since, oldest
// day first; days without events are absent.
func (s *Store) DailyActivity(ctx context.Context, key string, since time.Time) ([]store.DayActivity, error) {
	return queryCollect(ctx, s.pool, fmt.Sprintf("daily activity of %q", key), func(row pgx.CollectableRow) (store.DayActivity, error) {
		var d store.DayActivity
		err := row.Scan(&d.Day, &d.Added, &d.Folded, &d.Merged, &d.Archived, &d.Restored)
		d.Day = d.Day.UTC()
		return d, err
	}, `
		SELECT date_trunc('day', h.created_at AT TIME ZONE 'UTC'),
		       count(*) FILTER (WHERE h.event IN ('add', 'import')),
		       count(*) FILTER (WHERE h.event = 'fold'),
		       count(*) FILTER (WHERE h.event = 'merge'),
		       count(*) FILTER (WHERE h.event = 'archive'),
		       count(*) FILTER (WHERE h.event = 'restore')
		FROM memory_history h
		WHERE h.scope = 'project' AND h.scope_key = $1 AND h.created_at >= $2
		  AND NOT EXISTS (SELECT 1 FROM memories d WHERE d.id = h.memory_id AND d.kind = ANY($3))
		GROUP BY 1 ORDER BY 1`, key, since, layerKinds)
}

// UseSpread counts project key's live facts by use count (store.UseBounds).
func (s *Store) UseSpread(ctx context.Context, key string) (store.UseSpread, error) {
	var u store.UseSpread
	counts := make([]int64, len(store.UseBounds))
	targets := []any{&u.Live, &u.NeverRetrieved}
	sql := `SELECT count(*), count(*) FILTER (WHERE last_retrieved_at IS NULL)`
	for i, b := range store.UseBounds {
		if b[1] < 0 {
			sql += fmt.Sprintf(", count(*) FILTER (WHERE hit_count >= %d)", b[0])
		} else {
			sql += fmt.Sprintf(", count(*) FILTER (WHERE hit_count BETWEEN %d AND %d)", b[0], b[1])
		}
		targets = append(targets, &counts[i])
	}
	sql += ` FROM memories WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL AND kind <> ALL($2)`
	if err := s.pool.QueryRow(ctx, sql, key, layerKinds).Scan(targets...); err != nil {
		return u, fmt.Errorf("use spread of %q: %w", key, err)
	}
	for i, b := range store.UseBounds {
		u.Buckets = append(u.Buckets, store.UseBucket{Min: b[0], Max: b[1], Facts: counts[i]})
	}
	return u, nil
}

// DailyCalls sums the LLM worker calls per UTC day since since, oldest day first.
func (s *Store) DailyCalls(ctx context.Context, since time.Time) ([]store.DayCalls, error) {
	return queryCollect(ctx, s.pool, "daily worker calls", func(row pgx.CollectableRow) (store.DayCalls, error) {
		var d store.DayCalls
		err := row.Scan(&d.Day, &d.Calls, &d.Failed, &d.Tokens, &d.P50Ms, &d.P95Ms)
		d.Day = d.Day.UTC()
		return d, err
	}, `
		SELECT date_trunc('day', started_at AT TIME ZONE 'UTC'), count(*), count(*) FILTER (WHERE outcome <> 'ok'),
		       coalesce(sum(input_tokens + output_tokens), 0),
		       percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms)
		FROM worker_calls WHERE started_at >= $1 GROUP BY 1 ORDER BY 1`, since)
}

// LatestEvents returns the newest history entry of each of ids that has one.
func (s *Store) LatestEvents(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID]store.LatestEvent, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT DISTINCT ON (memory_id) memory_id, event, actor, created_at
		FROM memory_history WHERE memory_id = ANY($1) ORDER BY memory_id, id DESC`, ids)
	if err != nil {
		return nil, fmt.Errorf("latest events: %w", err)
	}
	out := make(map[uuid.UUID]store.LatestEvent, len(ids))
	var e store.LatestEvent
	var event string
	_, err = pgx.ForEachRow(rows, []any{&e.MemoryID, &event, &e.Actor, &e.At}, func() error {
		e.Event = store.Event(event)
		out[e.MemoryID] = e
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("latest events: %w", err)
	}
	return out, nil
}
