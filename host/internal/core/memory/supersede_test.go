package memory_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestSearchRanksTheCurrentStatementAboveTheOneItReplaced: an old memory that matches the
// query better than its newer replacement ("moved from npm to pnpm") ranks directly below
// it, for any top_k, and stays in the results.
func TestSearchRanksTheCurrentStatementAboveTheOneItReplaced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := seed(t, b, alice,
		"Frontend dependencies are managed with npm (package.json and package-lock.json).",
		"Frontend dependencies moved from npm to pnpm (pnpm-lock.yaml); install them with make deps-frontend.",
		"Maintainers and any account with write access must use 2FA.",
		"Run make lint-frontend before pushing frontend changes.",
		"Backend dependencies are Go modules; touch go.mod only when the change needs it.",
	)
	pool, err := pgxpool.New(ctx, b.dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - make_interval(days => 600), updated_at = now() - make_interval(days => 600) WHERE id = $1`, ids[0])
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - make_interval(days => 40), updated_at = now() - make_interval(days => 40) WHERE id = $1`, ids[1])
	require.NoError(t, err)

	hits, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "which npm package manager do frontend dependencies use?"}))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(hits), 2)
	require.Equal(t, ids[1], hits[0].ID, "the current statement first")
	require.Equal(t, ids[0], hits[1].ID, "the replaced one right below it, still found")
	require.Greater(t, *hits[1].Lexical, *hits[0].Lexical, "the replaced statement matched the query better")
	require.LessOrEqual(t, hits[1].Score, hits[0].Score, "scores stay in rank order")

	top, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "which npm package manager do frontend dependencies use?", TopK: 1}))
	require.NoError(t, err)
	require.Len(t, top, 1)
	require.Equal(t, ids[1], top[0].ID, "a narrower top_k sees the same order")
}
