package lexical_test

import (
	"context"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

// feedStore serves a change feed from memory; the follower calls nothing else.
type feedStore struct {
	store.Store
	mu      sync.Mutex
	changes []store.Change
}

func (f *feedStore) add(text string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.changes = append(f.changes, store.Change{Seq: int64(len(f.changes) + 1), ID: uuid.New(), Scope: store.ScopeProject, ScopeKey: "p", Kind: store.KindFact, Text: text})
}

func (f *feedStore) Changes(_ context.Context, after int64, limit int) ([]store.Change, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []store.Change
	for _, c := range f.changes {
		if c.Seq > after && len(out) < limit {
			out = append(out, c)
		}
	}
	return out, nil
}

// TestFollowerHandsItsBatchesToSubscribers: each subscriber gets every batch the follower
// applies to the index after it subscribed, in order; a full subscriber misses a batch rather
// than holding the index up; an ended subscription's channel is closed and gets nothing more.
func TestFollowerHandsItsBatchesToSubscribers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	st := &feedStore{}
	ix := lexical.New()
	f := lexical.NewFollower(st, ix, 0)
	st.add("before anyone listened")
	_, err := f.CatchUp(ctx)
	require.NoError(t, err)

	live, endLive := f.Subscribe(4)
	slow, endSlow := f.Subscribe(1)
	st.add("we use pnpm")
	st.add("tests need TZ=UTC")
	n, err := f.CatchUp(ctx)
	require.NoError(t, err)
	require.Equal(t, 2, n)
	st.add("the deploy runs at 03:00")
	_, err = f.CatchUp(ctx)
	require.NoError(t, err)

	first := <-live
	require.Len(t, first, 2)
	require.Equal(t, "we use pnpm", first[0].Text)
	require.Equal(t, "the deploy runs at 03:00", (<-live)[0].Text)
	require.Len(t, <-slow, 2)
	select {
	case b := <-slow:
		t.Fatalf("a full subscriber got a batch it had no room for: %v", b)
	default:
	}
	require.Equal(t, int64(4), f.Cursor(), "the index followed every change regardless")

	endLive()
	endLive()
	_, open := <-live
	require.False(t, open)
	st.add("after the end")
	_, err = f.CatchUp(ctx)
	require.NoError(t, err)
	endSlow()
}
