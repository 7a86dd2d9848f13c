package storetest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseScopeLock runs the scope lock: writers of one scope serialise, and each scope has its
// own lock.
func exerciseScopeLock(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "TheScopeLockSerialisesWriters", func(t *testing.T, s store.Store) {
		// Each writer reads, then writes what it read plus one: without serialisation two
		// writers insert the same text at once (a unique violation) or fold over each other
		// (a lost count).
		const writers = 12
		var wg sync.WaitGroup
		errs := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				errs[i] = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
					c, err := tx.Lookup(ctx, "tests need TZ=UTC", Vec(8, 0), nil)
					if err != nil {
						return err
					}
					if c.Exact == nil {
						_, err = tx.Insert(ctx, NewWrite("p", "tests need TZ=UTC", Vec(8, 0)))
						return err
					}
					m := *c.Exact
					_, err = tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: m.Kind, Importance: m.Importance, Confidence: m.Confidence,
						DedupedCount: m.DedupedCount + 1, Before: m.Text, After: m.Text, Actor: "suite"})
					return err
				})
			})
		}
		wg.Wait()
		for _, err := range errs {
			require.NoError(t, err)
		}
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 100})
		require.NoError(t, err)
		require.Len(t, live, 1)
		require.Equal(t, writers-1, live[0].DedupedCount)
	})

	k.run(t, "EachScopeHasItsOwnLock", func(t *testing.T, s store.Store) {
		holding, release := make(chan struct{}), make(chan struct{})
		done := make(chan error, 1)
		go func() {
			done <- s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
				// The lock is taken with the first call on tx.
				if _, err := tx.Lookup(ctx, "anything", Vec(9, 0), nil); err != nil {
					return err
				}
				close(holding)
				<-release
				return nil
			})
		}()
		<-holding
		k.insert(t, s, NewWrite("q", "another project writes meanwhile", Vec(9, 0)))
		g := NewWrite("", "and so does global", Vec(9, 0))
		g.Scope = store.ScopeGlobal
		k.insert(t, s, g)
		close(release)
		require.NoError(t, <-done)
	})
}
