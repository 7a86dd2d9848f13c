package pace

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestPacerRestsOnlyWhileAgentsCall: a call within Quiet makes a step rest Yield times its
// busy time, counted; an idle host (no call yet, or none for longer than Quiet) rests never.
func TestPacerRestsOnlyWhileAgentsCall(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var last time.Time
	p := &Pacer{LastCall: func() time.Time { return last }, Quiet: time.Second, Yield: 3}

	require.Zero(t, p.Decide(now, 10*time.Millisecond), "no call yet")
	last = now.Add(-2 * time.Second)
	require.Zero(t, p.Decide(now, 10*time.Millisecond), "the last call is older than Quiet")
	require.Zero(t, p.Stats().Rests)

	last = now.Add(-100 * time.Millisecond)
	require.Equal(t, 30*time.Millisecond, p.Decide(now, 10*time.Millisecond))
	require.Equal(t, 60*time.Millisecond, p.Decide(now, 20*time.Millisecond))
	s := p.Stats()
	require.Equal(t, int64(2), s.Rests)
	require.Equal(t, 90*time.Millisecond, s.Rested)
	require.Equal(t, now.Add(60*time.Millisecond), s.LastRestEnd)

	off := &Pacer{LastCall: func() time.Time { return last }, Quiet: time.Second}
	require.Zero(t, off.Decide(now, time.Second), "Yield 0 never rests")
	var none *Pacer
	require.Zero(t, none.Decide(now, time.Second))
	require.Zero(t, none.Stats())
}
