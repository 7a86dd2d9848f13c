package storetest

import (
	"math"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseLookups runs the fold's lookups: the exact normalised text and the nearest live
// neighbours of one scope, and whole-text matches.
func exerciseLookups(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "LookupFindsTheNormalisedLiveTextOfTheScope", func(t *testing.T, s store.Store) {
		m := k.insert(t, s, NewWrite("p", "Use pnpm, not npm.", Vec(1, 0)))
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			got := k.exact(t, tx, "use   PNPM, not npm.")
			require.NotNil(t, got)
			require.Equal(t, m.ID, got.ID)
			require.Nil(t, k.exact(t, tx, "Use pnpm, not yarn."), "a lookup may follow a lookup")
			return nil
		})
		k.locked(t, s, "q", func(tx store.ScopeTx) error {
			require.Nil(t, k.exact(t, tx, "Use pnpm, not npm."), "another project's text is not a duplicate")
			return nil
		})
		_, err := s.SetArchived(ctx, store.ArchiveParams{ID: m.ID, Archived: true, Reason: "old", Actor: "t"})
		require.NoError(t, err)
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			require.Nil(t, k.exact(t, tx, "Use pnpm, not npm."), "archived rows are not duplicates")
			return nil
		})
	})

	k.run(t, "LookupLoadsLiveNeighboursOfTheScope", func(t *testing.T, s store.Store) {
		a := k.insert(t, s, NewWrite("p", "a", Vec(2, 0)))
		b := k.insert(t, s, NewWrite("p", "b", Vec(2, 0.3)))
		k.insert(t, s, NewWrite("q", "same vector, other project", Vec(2, 0)))
		archived := k.insert(t, s, NewWrite("p", "archived", Vec(2, 0.01)))
		_, err := s.SetArchived(ctx, store.ArchiveParams{ID: archived.ID, Archived: true, Reason: "old", Actor: "t"})
		require.NoError(t, err)
		other := NewWrite("p", "other embedder", store.Vector{Embedder: "suite-other-16", Dimensions: Dims, Values: Vec(2, 0).Values})
		k.insert(t, s, other)
		unknown := uuid.Must(uuid.NewV7())
		all := []uuid.UUID{b.ID, archived.ID, other.ID, a.ID, unknown}
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "a", Vec(2, 0.05), all)
			require.NoError(t, err)
			require.NotNil(t, c.Exact, "the exact match comes with the neighbours")
			require.Equal(t, a.ID, c.Exact.ID)
			got := c.Neighbours
			require.Len(t, got, 2, "archived rows, other embedders' and unknown ids are no candidates")
			require.Equal(t, []uuid.UUID{a.ID, b.ID}, []uuid.UUID{got[0].ID, got[1].ID}, "best first")
			require.Equal(t, "a", got[0].Text, "neighbours arrive loaded")
			require.InDelta(t, math.Cos(0.05), got[0].Similarity, 1e-4)
			require.InDelta(t, math.Cos(0.25), got[1].Similarity, 1e-4)
			return nil
		})
	})

	k.run(t, "MatchTextFindsWholeTexts", func(t *testing.T, s store.Store) {
		party := k.insert(t, s, NewWrite("p", "🎉🎉🎉", ZeroVec()))
		gw := NewWrite("", "🎉 🎉🎉", ZeroVec())
		gw.Scope, gw.Kind = store.ScopeGlobal, store.KindPreference
		global := k.insert(t, s, gw)
		k.insert(t, s, NewWrite("q", "🎉🎉🎉", ZeroVec()))
		k.insert(t, s, NewWrite("p", "🎉🎉🎉 shipped", Vec(7, 0)))
		ids, err := s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p"), store.Global}, Limit: 10})
		require.NoError(t, err)
		require.ElementsMatch(t, []uuid.UUID{party.ID}, ids, "whole texts only, of the asked scopes")
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉  🎉🎉", Scopes: []store.ScopeRef{store.Project("p"), store.Global}, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{global.ID}, ids, "compared by NormalizeText")
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉 🎉🎉", Scopes: []store.ScopeRef{store.Global}, Kinds: []store.Kind{store.KindFact}, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, ids, "kinds filter")
		_, err = s.SetArchived(ctx, store.ArchiveParams{ID: party.ID, Archived: true, Reason: "old", Actor: "t"})
		require.NoError(t, err)
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, ids)
		ids, err = s.MatchText(ctx, store.TextQuery{Text: "🎉🎉🎉", Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 10})
		require.NoError(t, err)
		require.Equal(t, []uuid.UUID{party.ID}, ids)
	})
}
