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

// Follower keeps an Index in step with the store's change feed, and hands each batch it
// applies to its subscribers (the operator console's live feed), so the host follows its
// feed once for both.
type Follower struct {
	store    store.Store
	index    *Index
	interval time.Duration

	mu     sync.Mutex // serialises catch-up reads
	cursor int64

	subMu sync.Mutex
	subs  map[chan []store.Change]struct{}
}

// Subscribe returns a channel that receives every batch of changes the follower applies from
// now on, and the function that ends the subscription (closing the channel). A subscriber
// that lets buffer batches pile up misses the next ones rather than holding the follower up:
// the index must never wait for a reader.
func (f *Follower) Subscribe(buffer int) (<-chan []store.Change, func()) {
	ch := make(chan []store.Change, buffer)
	f.subMu.Lock()
	if f.subs == nil {
		f.subs = map[chan []store.Change]struct{}{}
	}
	f.subs[ch] = struct{}{}
	f.subMu.Unlock()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			f.subMu.Lock()
			delete(f.subs, ch)
			f.subMu.Unlock()
			close(ch)
		})
	}
}

// publish hands one applied batch to every subscriber that has room for it.
func (f *Follower) publish(changes []store.Change) {
	f.subMu.Lock()
	defer f.subMu.Unlock()
	for ch := range f.subs {
		select {
		case ch <- changes:
		default:
		}
	}
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
		if len(changes) > 0 {
			f.publish(changes)
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
