package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// A job idles as long as it worked, and no longer than its run lasts.
func TestYieldCPUIdlesAsLongAsTheWorkUnlessTheRunEnds(t *testing.T) {
	t.Parallel()
	start := time.Now()
	yieldCPU(context.Background(), 50*time.Millisecond)
	require.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	yieldCPU(ctx, time.Hour)
	require.Less(t, time.Since(start), time.Second, "an ended run does not wait")
}
