package openaihttp

import (
	"context"
	"time"
)

// HealthBudget is how long a plugin's Health may wait for its runtime: at most ceiling, and
// short of the deadline the host set on ctx by a fifth of the time left (at most 250 ms), so
// the plugin's "the runtime does not answer" reaches the host before the host stops waiting.
// A Health the host has to time out reads as the plugin's process being wedged, and counts
// towards restarting it, which mends nothing when the runtime is what hangs.
func HealthBudget(ctx context.Context, ceiling time.Duration) time.Duration {
	d, ok := ctx.Deadline()
	if !ok {
		return ceiling
	}
	left := time.Until(d)
	return max(0, min(ceiling, left-min(left/5, 250*time.Millisecond)))
}
