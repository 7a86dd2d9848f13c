package server

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
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
