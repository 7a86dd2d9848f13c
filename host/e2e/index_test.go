package e2e

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// TestBootRebuildsStaleVectorIndex: a database whose ANN index was built with pgvector's default
// parameters (as by an older memhost) gets the current index before the host reports ready.
func TestBootRebuildsStaleVectorIndex(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHost(t)
	h.run("migrate")
	conn, err := pgx.Connect(ctx, h.dsn)
	require.NoError(t, err)
	defer func() { _ = conn.Close(ctx) }()
	const name = "memories_ann_bm25_v1_384"
	_, err = conn.Exec(ctx, `CREATE INDEX `+name+` ON memories USING hnsw ((embedding::vector(384)) vector_cosine_ops) WHERE embedder = 'bm25-v1-384'`)
	require.NoError(t, err)

	h.start()
	var opts []string
	require.NoError(t, conn.QueryRow(ctx, `SELECT coalesce(reloptions, '{}') FROM pg_class WHERE oid = to_regclass($1)`, name).Scan(&opts))
	require.ElementsMatch(t, []string{"m=16", "ef_construction=128"}, opts)
	require.Contains(t, h.logs.String(), "vector index ready")
}
