package pgstore_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestAWriteWaitsForTheFlushUnlessTradedAway: by default a memory write's transaction keeps
// the session's synchronous_commit, so its commit waits for the disk and an acknowledged write
// survives a crash of Postgres or the machine; WithFlushedWrites(false), the operator's opt-in,
// runs it with synchronous_commit off (acknowledged once Postgres holds it, which a kill of the
// host does not undo), set by the statement that takes the lock. The connection's own setting
// is left as it was either way.
func TestAWriteWaitsForTheFlushUnlessTradedAway(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	_, dsn := testdb.Migrated(t)
	for _, c := range []struct {
		name string
		opts []pgstore.Option
		want string
	}{
		{"default", nil, "on"},
		{"unflushed", []pgstore.Option{pgstore.WithFlushedWrites(false)}, "off"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := pgxpool.ParseConfig(dsn)
			require.NoError(t, err)
			cfg.MaxConns = 1
			pool, err := pgxpool.NewWithConfig(ctx, cfg)
			require.NoError(t, err)
			t.Cleanup(pool.Close)
			s := pgstore.New(pool, c.opts...)
			require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
			w := storetest.NewWrite("flush-"+c.name, "tests need TZ=UTC", storetest.Vec(1, 0))
			var inside string
			require.NoError(t, s.WithScopeLock(ctx, w.Ref(), func(tx store.ScopeTx) error {
				if _, err := tx.Lookup(ctx, w.Text, w.Vector, nil); err != nil {
					return err
				}
				if inside, err = pgstore.WriteSetting(ctx, tx, "synchronous_commit"); err != nil {
					return err
				}
				_, err := tx.Insert(ctx, w)
				return err
			}))
			require.Equal(t, c.want, inside, "synchronous_commit inside the write")
			var after string
			require.NoError(t, pool.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&after))
			require.Equal(t, "on", after, "the connection's setting outside the write")
			got, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{w.Ref()}, Limit: 10})
			require.NoError(t, err)
			require.Len(t, got, 1)
		})
	}
}
