package memory_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestEdit: an operator's edit keeps the memory's id, is found by its new words and not its
// old, redacts a secret in the new text, records the before and after text in history, and
// refuses (changing nothing) a bad kind or importance, a text another live memory has, an
// archived memory, a memory changed since the editor read it (Version), and another project's
// memory.
func TestEdit(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := seed(t, b, alice, "the staging deploy runs from the release branch", "integration tests need docker compose")
	imp := 0.9
	before, err := b.svc.Peek(ctx, alice, ids[0])
	require.NoError(t, err)
	res, err := b.svc.Edit(ctx, alice, ids[0], memory.EditRequest{Version: before.UpdatedAt,
		Text: ptr("the staging deploy runs from main with SECRETVALUE"), Kind: ptr("decision"), Importance: &imp})
	require.NoError(t, err)
	require.True(t, res.Changed)
	v := res.Memory
	require.Equal(t, ids[0], v.ID)
	require.Equal(t, store.KindDecision, v.Kind)
	require.InDelta(t, 0.9, v.Importance, 1e-6)
	require.Equal(t, "the staging deploy runs from main with [REDACTED:test]", v.Text, "the new text is redacted like any write")

	hits, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "staging deploy main", Kinds: []string{"decision"}}))
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, ids[0], hits[0].ID)
	none, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "release branch"}))
	require.NoError(t, err)
	for _, h := range none {
		if h.ID == ids[0] {
			require.Nil(t, h.Lexical, "the old words no longer match it (its hashed vector may still be near)")
		}
	}
	pool, err := pgxpool.New(ctx, b.dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	var vectors int
	var kind string
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*), min(kind) FROM memory_vectors WHERE memory_id = $1`, ids[0]).Scan(&vectors, &kind))
	require.Equal(t, 1, vectors, "one vector, of the new text")
	require.Equal(t, "decision", kind)
	h, err := b.svc.History(ctx, alice, ids[0])
	require.NoError(t, err)
	last := h[len(h)-1]
	require.Equal(t, store.EventUpdate, last.Event)
	require.Equal(t, "the staging deploy runs from the release branch", *last.BeforeText)
	require.Equal(t, v.Text, *last.AfterText)
	require.ElementsMatch(t, []any{"text", "kind", "importance"}, last.Detail["edited"])

	bad := 1.5
	for _, req := range []memory.EditRequest{{Kind: ptr("goal")}, {Kind: ptr("nonsense")}, {Importance: &bad}, {Text: ptr("integration tests need docker compose")}, {Version: before.UpdatedAt, Text: ptr("anything")}} {
		_, err := b.svc.Edit(ctx, alice, ids[0], req)
		require.Error(t, err, "%+v", req)
	}
	_, err = b.svc.Edit(ctx, alice, ids[0], memory.EditRequest{Version: before.UpdatedAt, Text: ptr("anything")})
	require.ErrorIs(t, err, rules.ErrConflict)
	after, err := b.svc.Peek(ctx, alice, ids[0])
	require.NoError(t, err)
	require.Equal(t, v.Text, after.Text, "a refused edit changes nothing")
	require.Equal(t, store.KindDecision, after.Kind)

	_, err = b.svc.Archive(ctx, alice, ids[1], "")
	require.NoError(t, err)
	_, err = b.svc.Edit(ctx, alice, ids[1], memory.EditRequest{Text: ptr("integration tests need podman")})
	require.Error(t, err)
	other := memory.Access{Project: "github.com/acme/other", Actor: "mallory"}
	_, err = b.svc.Edit(ctx, other, ids[0], memory.EditRequest{Text: ptr("hijacked")})
	require.ErrorIs(t, err, rules.ErrNotFound)
}

func ptr[T any](v T) *T { return &v }
