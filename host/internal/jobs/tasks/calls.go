package tasks

import (
	"context"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/sdk/worker"
)

// window is the span of the daily budgets and of the rollup.
const window = 24 * time.Hour

// record writes one call to worker_calls.
func (r *Runner) record(ctx context.Context, c Call) error {
	_, err := r.pool.Exec(ctx, `INSERT INTO worker_calls
		(task, worker, model, started_at, latency_ms, outcome, input_tokens, output_tokens, bytes_in, bytes_out)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		c.Task, c.Worker, c.Model, c.Started, c.Latency.Milliseconds(), string(c.Outcome), c.InputTokens, c.OutputTokens, c.BytesIn, c.BytesOut)
	if err != nil {
		return fmt.Errorf("record worker call: %w", err)
	}
	return nil
}

// spend is what was used in the window.
type spend struct {
	tokens int64
	time   time.Duration
}

// spentBy sums the window's calls of one task kind (column "task") or one worker ("worker"),
// from the table every host sharing the database writes to.
func (r *Runner) spentBy(ctx context.Context, column, value string) (spend, error) {
	if column != "task" && column != "worker" {
		return spend{}, fmt.Errorf("spentBy: bad column %q", column)
	}
	var tokens, ms int64
	err := r.pool.QueryRow(ctx, `SELECT coalesce(sum(input_tokens + output_tokens), 0), coalesce(sum(latency_ms), 0)
		FROM worker_calls WHERE `+column+` = $1 AND started_at > $2`, value, r.now().Add(-window)).Scan(&tokens, &ms)
	if err != nil {
		return spend{}, fmt.Errorf("read worker spend: %w", err)
	}
	return spend{tokens: tokens, time: time.Duration(ms) * time.Millisecond}, nil
}

// checkDaily refuses a task of a kind that has spent its daily tokens or time.
func (r *Runner) checkDaily(ctx context.Context, kind worker.TaskKind) error {
	if r.tasks.DailyTokens == 0 && r.tasks.DailyTime == 0 {
		return nil
	}
	s, err := r.spentBy(ctx, "task", string(kind))
	if err != nil {
		return err
	}
	if why := r.overDaily(s); why != "" {
		return fmt.Errorf("%w (%s); it waits until the 24-hour window has room", ErrWaiting, why)
	}
	return nil
}

// overDaily says which daily budget s is over, or "".
func (r *Runner) overDaily(s spend) string {
	switch {
	case r.tasks.DailyTokens > 0 && s.tokens >= int64(r.tasks.DailyTokens):
		return fmt.Sprintf("%d tokens used, tasks.daily_tokens is %d", s.tokens, r.tasks.DailyTokens)
	case r.tasks.DailyTime > 0 && s.time >= r.tasks.DailyTime:
		return fmt.Sprintf("%s of worker time used, tasks.daily_time is %s", s.time.Round(time.Second), r.tasks.DailyTime)
	}
	return ""
}

// rollups returns the window's rollup per value of column ("worker" or "task").
func (r *Runner) rollups(ctx context.Context, column string) (map[string]wire.Rollup, error) {
	if column != "task" && column != "worker" {
		return nil, fmt.Errorf("rollups: bad column %q", column)
	}
	rows, err := r.pool.Query(ctx, `SELECT `+column+`, count(*), count(*) FILTER (WHERE outcome = 'ok'),
		percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms), percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms),
		sum(input_tokens), sum(output_tokens), sum(latency_ms)
		FROM worker_calls WHERE started_at > $1 GROUP BY 1`, r.now().Add(-window))
	if err != nil {
		return nil, fmt.Errorf("read worker calls: %w", err)
	}
	defer rows.Close()
	out := map[string]wire.Rollup{}
	for rows.Next() {
		var key string
		var ru wire.Rollup
		if err := rows.Scan(&key, &ru.Calls, &ru.OK, &ru.P50Ms, &ru.P95Ms, &ru.InputTokens, &ru.OutputTokens, &ru.TimeMs); err != nil {
			return nil, fmt.Errorf("read worker calls: %w", err)
		}
		ru.SuccessRate = float64(ru.OK) / float64(ru.Calls)
		out[key] = ru
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read worker calls: %w", err)
	}
	return out, nil
}
