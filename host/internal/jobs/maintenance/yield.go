package maintenance

import (
	"context"
	"time"
)

// yieldCPU idles as long as busy, the time a job just spent computing (reading rows and
// comparing vectors in this process), unless ctx ends first. A maintenance job shares the
// host's cores with agents' calls; idling as long as it worked keeps it to half of one core,
// so a pass over a large database takes about twice its compute time rather than the calls'
// latency. Waits on a worker or on a write are not busy time.
func yieldCPU(ctx context.Context, busy time.Duration) {
	if busy <= 0 {
		return
	}
	t := time.NewTimer(busy)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}
