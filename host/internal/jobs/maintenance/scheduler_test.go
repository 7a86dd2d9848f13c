package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// TestPeriodicRunClaimsItsWindowOnce: a second periodic run in the same window does nothing,
// whichever host asks; the next window runs; status shows the last run and the next.
func TestPeriodicRunClaimsItsWindowOnce(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	a := e.newMaintenance(t, "host-a", clock, 24*time.Hour)
	b := e.newMaintenance(t, "host-b", clock, 24*time.Hour)

	first, err := a.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.False(t, first.Skipped)
	clock.Advance(time.Hour)
	second, err := b.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.True(t, second.Skipped, "the window already ran on host-a")

	st, err := b.Status(ctx, "")
	require.NoError(t, err)
	require.Len(t, st, 1)
	require.Equal(t, "maintenance.stale", st[0].Kind)
	require.Equal(t, "host-a", st[0].Last.Host)
	require.Equal(t, "ok", st[0].Last.Outcome)
	require.Equal(t, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC), st[0].Next.UTC())

	clock.Advance(24 * time.Hour)
	third, err := b.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.False(t, third.Skipped, "the next window runs")
	st, err = a.Status(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "host-b", st[0].Last.Host)
}

// TestARunWhoseHostDiedIsAbandonedAndItsWindowRetried (issue 25): a run whose host was killed
// mid-run says "running" while its lease holds, and its window stays claimed; once the lease
// lapses, status says "abandoned", naming the host, the window is due again and the next
// periodic run claims it. A run its own host lost the database under (no outcome recorded) is
// abandoned by that host's next run at once.
func TestARunWhoseHostDiedIsAbandonedAndItsWindowRetried(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	clock := &fakeClock{now: time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)}
	a := e.newMaintenance(t, "host-a", clock, 24*time.Hour)
	window := func() *time.Time {
		w := clock.Now().Truncate(24 * time.Hour)
		return &w
	}
	claim := func(host string) {
		t.Helper()
		_, claimed, err := e.store.StartRun(ctx, store.MaintenanceRun{Job: "stale", Trigger: TriggerPeriodic, WindowStart: window(),
			Host: host, StartedAt: clock.Now()}, store.LiveRuns{Since: clock.Now().Add(-RunLease)})
		require.NoError(t, err)
		require.True(t, claimed)
	}
	claim("host-dead") // and then the host was killed: no heartbeat, no outcome

	st, err := a.Status(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "running", st[0].Last.Outcome, "within its lease the run may be alive")
	rep, err := a.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.True(t, rep.Skipped)

	clock.Advance(RunLease + time.Minute)
	st, err = a.Status(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "abandoned", st[0].Last.Outcome)
	require.Contains(t, st[0].Last.Error, "host-dead")
	require.NotNil(t, st[0].Last.FinishedAt)
	require.Equal(t, clock.Now(), st[0].Next.UTC(), "the window is due again")
	rep, err = a.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.False(t, rep.Skipped, "the abandoned window is retried")
	require.Equal(t, "ok", rep.Run.Outcome)
	require.Equal(t, *window(), *rep.Run.WindowStart)
	st, err = a.Status(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "ok", st[0].Last.Outcome)
	require.Equal(t, window().Add(24*time.Hour), st[0].Next.UTC())

	clock.Advance(24 * time.Hour)
	claim("host-a") // host-a's run whose outcome the database never got
	rep, err = a.execute(ctx, "stale", TriggerPeriodic, wire.RunOptions{})
	require.NoError(t, err)
	require.False(t, rep.Skipped, "host-a knows it no longer works on its earlier run")
	rows, err := e.pool.Query(ctx, `SELECT outcome FROM maintenance_runs WHERE window_start = $1 ORDER BY id`, window())
	require.NoError(t, err)
	outcomes, err := pgx.CollectRows(rows, pgx.RowTo[string])
	require.NoError(t, err)
	require.Equal(t, []string{"abandoned", "ok"}, outcomes)
}

// TestTwoHostsRunEachWindowOnceAndFailOver: two hosts' River clients on one schema; the
// leader schedules the periodic job and it runs once per window on one host; when the leader
// stops, the other host is elected and the job goes on.
func TestTwoHostsRunEachWindowOnceAndFailOver(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	const every = time.Second
	a := e.newMaintenance(t, "host-a", SystemClock{}, every)
	b := e.newMaintenance(t, "host-b", SystemClock{}, every)
	stopA := start(t, a)
	stopB := start(t, b)

	type row struct {
		host   string
		window time.Time
	}
	runs := func() []row {
		rows, err := e.pool.Query(ctx, `SELECT host, window_start FROM maintenance_runs WHERE trigger = 'periodic' ORDER BY id`)
		require.NoError(t, err)
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.host, &x.window)
		})
		require.NoError(t, err)
		return out
	}
	require.Eventually(t, func() bool { return len(runs()) >= 3 }, 30*time.Second, 100*time.Millisecond)
	leader := func() string {
		var id string
		if err := e.pool.QueryRow(ctx, `SELECT leader_id FROM river_leader`).Scan(&id); err != nil {
			return ""
		}
		return id
	}
	first := leader()
	require.Contains(t, []string{"host-a", "host-b"}, first)
	stopLeader, follower := stopA, "host-b"
	if first == "host-b" {
		stopLeader, follower = stopB, "host-a"
	}
	stopLeader()
	before := len(runs())
	require.Eventually(t, func() bool { return leader() == follower }, 30*time.Second, 100*time.Millisecond, "the other host is elected")
	require.Eventually(t, func() bool {
		rs := runs()
		return len(rs) > before+1 && rs[len(rs)-1].host == follower
	}, 30*time.Second, 100*time.Millisecond, "the periodic job goes on, on the host left")

	seen := map[time.Time]bool{}
	for _, r := range runs() {
		require.False(t, seen[r.window], "window %s ran twice", r.window)
		seen[r.window] = true
	}
	var jobs int
	require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'maintenance.stale'`).Scan(&jobs))
	require.Positive(t, jobs, "River's table names the job by its kind")
}

// TestEventJobIsTransactionalAndUniquePerSubject: an event job exists only if the write's
// transaction commits, and a burst queues one job per (job, project).
func TestEventJobIsTransactionalAndUniquePerSubject(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	m := e.newMaintenance(t, "host-a", SystemClock{}, time.Hour)
	count := func() int {
		var n int
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM river_job WHERE kind = 'maintenance.stale' AND args->>'trigger' = 'event'`).Scan(&n))
		return n
	}
	tx, err := e.pool.Begin(ctx)
	require.NoError(t, err)
	require.NoError(t, m.EnqueueTx(ctx, tx, "stale", proj.Project))
	require.NoError(t, tx.Rollback(ctx))
	require.Zero(t, count(), "a rolled-back write queues nothing")

	for range 5 {
		require.NoError(t, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return m.EnqueueTx(ctx, tx, "stale", proj.Project) }))
	}
	require.Equal(t, 1, count(), "a burst queues one job per subject")
	require.NoError(t, pgx.BeginFunc(ctx, e.pool, func(tx pgx.Tx) error { return m.EnqueueTx(ctx, tx, "stale", "github.com/acme/other") }))
	require.Equal(t, 2, count())

	start(t, m)
	require.Eventually(t, func() bool {
		var n int
		require.NoError(t, e.pool.QueryRow(ctx, `SELECT count(*) FROM maintenance_runs WHERE trigger = 'event' AND outcome = 'ok'`).Scan(&n))
		return n == 2
	}, 30*time.Second, 100*time.Millisecond, "the queued event jobs run")
}
