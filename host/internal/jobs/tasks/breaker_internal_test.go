package tasks

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBreakerBacksOffAndProbes: three failures open the breaker for 30s; then one caller at a
// time is let through; a failed probe doubles the backoff, a success closes it.
func TestBreakerBacksOffAndProbes(t *testing.T) {
	t.Parallel()
	var b breaker
	now := time.Unix(1_700_000_000, 0)
	for range breakerThreshold - 1 {
		b.failed(now)
		_, blocked := b.blocked(now)
		require.False(t, blocked, "below the threshold the worker is still called")
	}
	b.failed(now)
	until, blocked := b.blocked(now)
	require.True(t, blocked)
	require.Equal(t, now.Add(breakerInitial), until)

	now = now.Add(breakerInitial)
	_, blocked = b.blocked(now)
	require.False(t, blocked, "the backoff passed: one probe goes through")
	_, blocked = b.blocked(now)
	require.True(t, blocked, "only one probe at a time")
	b.failed(now)
	until, blocked = b.blocked(now)
	require.True(t, blocked)
	require.Equal(t, now.Add(2*breakerInitial), until, "a failed probe doubles the backoff")

	now = now.Add(2 * breakerInitial)
	_, blocked = b.blocked(now)
	require.False(t, blocked)
	b.succeeded()
	_, blocked = b.blocked(now)
	require.False(t, blocked)
	require.True(t, b.until(now).IsZero(), "a success closes the breaker")

	for range 20 {
		b.failed(now)
	}
	require.Equal(t, now.Add(breakerMax), b.until(now), "the backoff is capped")
}
