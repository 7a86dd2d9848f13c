package pgstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		pool, _ := testdb.Migrated(t)
		return pgstore.New(pool)
	})
}

// TestScopeLockHoldsAcrossHosts: two hosts (two pools on one database) writing the same fact
// at once end in one row, because the scope lock lives in Postgres, not in a process.
func TestScopeLockHoldsAcrossHosts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, dsn := testdb.Migrated(t)
	other, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	hosts := []*pgstore.Store{pgstore.New(pool), pgstore.New(other)}
	require.NoError(t, hosts[0].EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))

	const writers = 16
	var wg sync.WaitGroup
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			errs[i] = hosts[i%2].WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
				c, err := tx.Lookup(ctx, "tests need TZ=UTC", storetest.Vec(1, 0), nil)
				if err != nil {
					return err
				}
				if c.Exact == nil {
					_, err = tx.Insert(ctx, storetest.NewWrite("p", "tests need TZ=UTC", storetest.Vec(1, 0)))
					return err
				}
				m := *c.Exact
				_, err = tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: m.Kind, Importance: m.Importance, Confidence: m.Confidence,
					DedupedCount: m.DedupedCount + 1, Before: m.Text, After: m.Text})
				return err
			})
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	live, err := hosts[1].List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.Equal(t, writers-1, live[0].DedupedCount, "no fold was lost")
}
