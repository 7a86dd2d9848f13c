package lexical

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/memhost/memhost/host/internal/core/store"
)

// feedBatch is how many changes one catch-up read takes.
const feedBatch = 5000

// Follower keeps an Index in step with the store's change feed.
type Follower struct {
	store    store.Store
	index    *Index
	interval time.Duration

	mu     sync.Mutex // serialises catch-up reads
	cursor int64
}

// NewFollower follows st into ix, polling every interval once running.
func NewFollower(st store.Store, ix *Index, interval time.Duration) *Follower {
	return &Follower{store: st, index: ix, interval: interval}
}

// CatchUp applies every change the index has not seen yet. Seqs become visible in commit order
// (see store.Store.Changes), so resuming from the last seq seen never skips a change.
func (f *Follower) CatchUp(ctx context.Context) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	applied := 0
	for {
		changes, err := f.store.Changes(ctx, f.cursor, feedBatch)
		if err != nil {
			return applied, fmt.Errorf("lexical: follow change feed: %w", err)
		}
		for _, c := range changes {
			f.index.Apply(c)
			f.cursor = c.Seq
		}
		applied += len(changes)
		if len(changes) < feedBatch {
			return applied, nil
		}
	}
}

// Cursor is the last seq applied from the feed.
func (f *Follower) Cursor() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.cursor
}

// Run polls the feed until ctx ends. Transient errors are reported through onErr and retried
// on the next tick: a database blip must not stop the host following.
func (f *Follower) Run(ctx context.Context, onErr func(error)) {
	t := time.NewTicker(f.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := f.CatchUp(ctx); err != nil && ctx.Err() == nil && onErr != nil {
				onErr(err)
			}
		}
	}
}
