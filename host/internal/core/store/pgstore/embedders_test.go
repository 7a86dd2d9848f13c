package pgstore_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestEmbeddersWithVectors: an embedder counts once a vector of it is stored, not when it is
// merely registered (the host registers its active embedder at boot).
func TestEmbeddersWithVectors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	names, err := s.EmbeddersWithVectors(ctx)
	require.NoError(t, err)
	require.Empty(t, names)

	_, err = storetest.Insert(ctx, s, storetest.NewWrite("p", "a fact", storetest.Vec(0, 0)))
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `WITH m AS (INSERT INTO memories (id, scope, scope_key, kind, text, text_hash, embedder, seq)
			VALUES (gen_random_uuid(), 'project', 'p', 'fact', 'dense', '\x01', 'dense-v1', 1) RETURNING id)
		INSERT INTO memory_vectors (memory_id, embedder, scope, scope_key, kind, embedding)
		SELECT id, 'dense-v1', 'project', 'p', 'fact', '[1,0,0,0]' FROM m`)
	require.NoError(t, err)
	names, err = s.EmbeddersWithVectors(ctx)
	require.NoError(t, err)
	require.Equal(t, []string{"dense-v1", storetest.Embedder}, names)
}
