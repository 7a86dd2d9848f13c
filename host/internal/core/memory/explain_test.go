package memory_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestSearchExplainsEachScore: with Explain, every hit carries the ranker's own terms, which
// add up to its score — the demotion of a replaced statement included, as a negative
// supersession term — and the lexical and vector terms make up the base half. Without it the
// answer carries no terms.
func TestSearchExplainsEachScore(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := seed(t, b, alice,
		"Frontend dependencies are managed with npm (package.json and package-lock.json).",
		"Frontend dependencies moved from npm to pnpm (pnpm-lock.yaml); install them with make deps-frontend.",
		"Run make lint-frontend before pushing frontend changes.",
		"Maintainers and any account with write access must use 2FA.",
		"Backend dependencies are Go modules; touch go.mod only when the change needs it.",
	)
	pool, err := pgxpool.New(ctx, b.dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - make_interval(days => 600), updated_at = now() - make_interval(days => 600) WHERE id = $1`, ids[0])
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE memories SET created_at = now() - make_interval(days => 40), updated_at = now() - make_interval(days => 40) WHERE id = $1`, ids[1])
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE memories SET pinned = true WHERE id = $1`, ids[2])
	require.NoError(t, err)

	query := "which npm package manager do frontend dependencies use?"
	hits, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: query, Explain: true}))
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(hits), 3)
	demoted := false
	for _, h := range hits {
		require.NotNil(t, h.Terms, h.Text)
		require.InDelta(t, h.Score, h.Terms.Sum(), 1e-12, h.Text)
		require.InDelta(t, h.Terms.Base, h.Terms.Lexical+h.Terms.Vector, 1e-12, h.Text)
		require.LessOrEqual(t, h.Terms.Supersession, 0.0)
		if h.ID == ids[0] {
			demoted = h.Terms.Supersession < 0
		}
		if h.ID == ids[2] {
			require.Positive(t, h.Terms.Pinned, "a pinned memory's quality half is the pin's")
			require.Zero(t, h.Terms.Confidence)
		}
	}
	require.True(t, demoted, "the replaced statement's demotion is a term of its score")

	plain, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: query}))
	require.NoError(t, err)
	for i, h := range plain {
		require.Nil(t, h.Terms)
		require.Equal(t, hits[i].ID, h.ID, "explaining changes no order")
		require.InDelta(t, hits[i].Score, h.Score, 1e-6, "nor any score (the clock moved on)")
	}
}
