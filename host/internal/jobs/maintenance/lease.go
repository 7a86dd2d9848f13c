package maintenance

import (
	"context"
	"slices"
	"time"

	"github.com/memhost/memhost/host/internal/core/store"
)

// This file is how a run shows it is alive. A host killed mid-run, or one that lost the
// database under a run, never records the run's outcome: without a lease its row would say
// "running" forever, and a periodic window it claimed would never run again. A running run
// renews its lease every heartbeatEvery; one whose lease is older than RunLease, or one its
// own host no longer works on, is abandoned the next time a run starts or status is read, and
// its window may be claimed again.

// RunLease is how long a running run's last heartbeat holds: past it, the run's host is
// taken for dead. Generous against a stalled database, since a run wrongly taken for dead
// costs a second run of an idempotent job, never a wrong result.
const RunLease = 2 * time.Minute

// heartbeatEvery is how often a running run renews its lease: several times per lease.
const heartbeatEvery = RunLease / 4

// live says which running runs have a host working on them at now.
func (m *Maintenance) live(now time.Time) store.LiveRuns {
	m.mu.Lock()
	defer m.mu.Unlock()
	l := store.LiveRuns{Since: now.Add(-RunLease), Host: m.cfg.Host}
	for id := range m.active {
		l.Active = append(l.Active, id)
	}
	slices.Sort(l.Active)
	return l
}

// working marks run id as this host's and renews its lease until the returned func is called
// (when the run has recorded its outcome, or failed to).
func (m *Maintenance) working(id int64) (done func()) {
	m.mu.Lock()
	m.active[id] = true
	m.mu.Unlock()
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(heartbeatEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if err := m.store.Heartbeat(ctx, id, m.cfg.Clock.Now().UTC()); err != nil && ctx.Err() == nil {
					// The database is away: the lease lapses unless it comes back in time.
					m.cfg.Logger.Warn("maintenance run lease not renewed", "run", id, "err", err)
				}
			}
		}
	}()
	return func() {
		cancel()
		<-stopped
		m.mu.Lock()
		delete(m.active, id)
		m.mu.Unlock()
	}
}
