package server

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/jobs/pace"
)

// TestWaitQuiet: the indexer starts at once on an idle host, waits for a pause after a call,
// and goes ahead anyway (forced) on a host whose calls never pause.
func TestWaitQuiet(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	forced, err := waitQuiet(ctx, func() time.Time { return time.Time{} }, time.Hour, time.Hour)
	require.NoError(t, err)
	require.False(t, forced, "no call yet: quiet")

	call := time.Now()
	start := time.Now()
	forced, err = waitQuiet(ctx, func() time.Time { return call }, 50*time.Millisecond, time.Hour)
	require.NoError(t, err)
	require.False(t, forced)
	require.GreaterOrEqual(t, time.Since(start), 45*time.Millisecond, "waited for the pause after the call")

	start = time.Now()
	forced, err = waitQuiet(ctx, time.Now, time.Hour, 30*time.Millisecond)
	require.NoError(t, err)
	require.True(t, forced, "calls never pause: go ahead after the longest wait")
	require.GreaterOrEqual(t, time.Since(start), 30*time.Millisecond)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = waitQuiet(cancelled, time.Now, time.Hour, time.Hour)
	require.ErrorIs(t, err, context.Canceled)
}

// backlog is a store with rows waiting for the ANN index, each step taking step.
type backlog struct {
	mu     sync.Mutex
	left   int
	step   time.Duration
	starts []time.Time
	limits []int
}

func (b *backlog) IndexDeferred(ctx context.Context, limit int) (int, error) {
	b.mu.Lock()
	b.starts, b.limits = append(b.starts, time.Now()), append(b.limits, limit)
	n := min(limit, b.left)
	b.left -= n
	b.mu.Unlock()
	time.Sleep(b.step)
	return n, nil
}

func (b *backlog) remaining() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.left
}

// TestIndexerPacesItselfWhenCallsNeverPause: on a host whose calls never pause, the indexer
// starts after the longest wait and then moves a few rows at a time, resting three times as
// long as each step took, rather than holding a core with a whole batch.
func TestIndexerPacesItselfWhenCallsNeverPause(t *testing.T) {
	t.Parallel()
	b := &backlog{left: 12, step: 20 * time.Millisecond}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	begin := time.Now()
	go func() {
		done <- indexer{store: b, pacer: &pace.Pacer{LastCall: time.Now, Quiet: time.Hour, Yield: 3}, maxWait: 30 * time.Millisecond,
			indexed: prometheus.NewCounter(prometheus.CounterOpts{Name: "indexed"}), log: slog.New(slog.DiscardHandler)}.run(ctx)
	}()
	require.Eventually(t, func() bool { return b.remaining() == 0 }, 5*time.Second, 5*time.Millisecond)
	cancel()
	require.NoError(t, <-done)

	b.mu.Lock()
	defer b.mu.Unlock()
	require.GreaterOrEqual(t, len(b.starts), 3)
	require.Equal(t, []int{indexStep, indexStep, indexStep}, b.limits[:3], "a few rows at a time")
	require.GreaterOrEqual(t, b.starts[0].Sub(begin), 30*time.Millisecond, "not before the longest wait")
	for i := 1; i < 3; i++ {
		require.GreaterOrEqual(t, b.starts[i].Sub(b.starts[i-1]), 4*b.step, "step %d rests three times its length", i)
	}
}
