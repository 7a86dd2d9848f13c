package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
)

// TestBootRetiresSharedVectorIndex: a database holding the one shared ANN graph per embedder of
// earlier versions (walked by every project under a filter) loses it once the host runs:
// each large scope gets a graph of its own instead, and smaller scopes are scanned exactly.
func TestBootRetiresSharedVectorIndex(t *testing.T) {
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
	require.Contains(t, h.logs.String(), "vector index ready")
	require.Eventually(t, func() bool {
		var exists bool
		require.NoError(t, conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, name).Scan(&exists))
		return !exists
	}, 30*time.Second, 50*time.Millisecond, "the shared graph is retired")
}
