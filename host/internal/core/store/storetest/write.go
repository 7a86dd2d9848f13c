package storetest

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseWrites runs the write primitives: an insert read back, a fold recorded in history,
// writes that stay in the locked scope, a failed write that leaves nothing, and zero vectors
// that never yield NaN.
func exerciseWrites(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "InsertThenGet", func(t *testing.T, s store.Store) {
		m := k.insert(t, s, NewWrite("p", "CI runs on Buildkite", Vec(0, 0)))
		got, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, "CI runs on Buildkite", got.Text)
		require.Equal(t, store.ScopeProject, got.Scope)
		require.Equal(t, "p", got.ScopeKey)
		require.Equal(t, Embedder, got.Embedder)
		require.Equal(t, "suite", got.Provenance.Agent)
		require.Positive(t, got.Seq)
		require.Equal(t, m.Seq, got.Seq)
		h, err := s.History(ctx, got.ID)
		require.NoError(t, err)
		require.Len(t, h, 1)
		require.Equal(t, store.EventAdd, h[0].Event)
		require.Equal(t, "CI runs on Buildkite", *h[0].AfterText)
		require.Equal(t, "suite", h[0].Actor)
		require.Equal(t, "suite", h[0].Detail["agent"])
	})

	k.run(t, "FoldRewritesTheRowAndRecordsIt", func(t *testing.T, s store.Store) {
		m := k.insert(t, s, NewWrite("p", "We use pnpm here", Vec(3, 0)))
		merged := []store.Merged{{Text: "We use pnpm here", Agent: "suite", At: time.Now().UTC().Truncate(time.Millisecond)}}
		var folded store.Memory
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			var err error
			folded, err = tx.Fold(ctx, store.FoldParams{
				ID: m.ID, Kind: store.KindConvention, Importance: 0.9, Confidence: 0.95, Pinned: true,
				DedupedCount: 1, MergedFrom: merged,
				Replacement: &store.Replacement{Text: "This repo uses pnpm", Vector: Vec(5, 0), Provenance: store.Provenance{Agent: "codex", Session: "s1"}},
				Before:      "We use pnpm here", After: "This repo uses pnpm", Actor: "bob", Detail: map[string]any{"similarity": 0.93},
			})
			return err
		})
		require.Equal(t, m.ID, folded.ID)
		require.Greater(t, folded.Seq, m.Seq, "a fold advances the change feed")
		got, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, folded, got, "Fold returns the row as stored")
		require.Equal(t, "This repo uses pnpm", got.Text)
		require.Equal(t, store.KindConvention, got.Kind)
		require.InDelta(t, 0.9, got.Importance, 1e-6)
		require.InDelta(t, 0.95, got.Confidence, 1e-6)
		require.True(t, got.Pinned)
		require.Equal(t, 1, got.DedupedCount)
		require.Len(t, got.MergedFrom, 1)
		require.Equal(t, merged[0].Text, got.MergedFrom[0].Text)
		require.Equal(t, store.Provenance{Agent: "codex", Session: "s1"}, got.Provenance)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(5, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, m.ID, hits[0].ID)
		require.InDelta(t, 1, hits[0].Similarity, 1e-4, "the replacement's vector went with its text")
		h, err := s.History(ctx, m.ID)
		require.NoError(t, err)
		require.Len(t, h, 2)
		require.Equal(t, store.EventFold, h[1].Event)
		require.Equal(t, "We use pnpm here", *h[1].BeforeText)
		require.Equal(t, "This repo uses pnpm", *h[1].AfterText)
		require.Equal(t, "bob", h[1].Actor)
		require.InDelta(t, 0.93, h[1].Detail["similarity"], 1e-9)

		// Without a replacement the row keeps its text, vector and provenance.
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			_, err := tx.Fold(ctx, store.FoldParams{ID: m.ID, Kind: store.KindConvention, Importance: 0.9, Confidence: 0.95,
				DedupedCount: 2, MergedFrom: merged, Before: got.Text, After: got.Text, Actor: "bob"})
			return err
		})
		again, err := s.Get(ctx, m.ID)
		require.NoError(t, err)
		require.Equal(t, "This repo uses pnpm", again.Text)
		require.Equal(t, "codex", again.Provenance.Agent)
		require.Equal(t, 2, again.DedupedCount)
		require.False(t, again.Pinned)
		require.Greater(t, again.Seq, got.Seq)
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			ex := k.exact(t, tx, "this repo uses PNPM")
			require.NotNil(t, ex, "the text hash followed the replaced text")
			require.Equal(t, m.ID, ex.ID)
			return nil
		})
	})

	k.run(t, "WritesStayInTheLockedScope", func(t *testing.T, s store.Store) {
		q := k.insert(t, s, NewWrite("q", "a fact of project q", Vec(4, 0)))
		p := k.insert(t, s, NewWrite("p", "an archived fact of p", Vec(4, 0)))
		_, err := s.SetArchived(ctx, store.ArchiveParams{ID: p.ID, Archived: true, Reason: "old", Actor: "t"})
		require.NoError(t, err)
		for _, id := range []uuid.UUID{q.ID, p.ID} {
			err := s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
				_, err := tx.Fold(ctx, store.FoldParams{ID: id, Kind: store.KindFact, DedupedCount: 1, Before: "x", After: "x"})
				return err
			})
			require.ErrorIs(t, err, rules.ErrNotFound, "a fold reaches only live rows of the locked scope")
			h, err := s.History(ctx, id)
			require.NoError(t, err)
			require.NotContains(t, events(h), store.EventFold)
		}
		err = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Insert(ctx, NewWrite("q", "smuggled into q", Vec(4, 0)))
			return err
		})
		require.Error(t, err, "an insert must be of the locked scope")
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("q")}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, live, 1)
	})

	k.run(t, "AFailedWriteLeavesNothing", func(t *testing.T, s store.Store) {
		live := k.insert(t, s, NewWrite("p", "written once", Vec(5, 0)))
		boom := errors.New("boom")
		err := s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Lookup(ctx, "written once", Vec(5, 0), []uuid.UUID{live.ID})
			require.NoError(t, err)
			return boom
		})
		require.ErrorIs(t, err, boom, "fn's error comes back")
		// The insert fails after its add entry went out in the same batch: both go back.
		dup := NewWrite("p", "written once", Vec(5, 0))
		err = s.WithScopeLock(ctx, store.Project("p"), func(tx store.ScopeTx) error {
			_, err := tx.Insert(ctx, dup)
			return err
		})
		require.ErrorIs(t, err, rules.ErrConflict)
		_, err = s.Get(ctx, dup.ID)
		require.ErrorIs(t, err, rules.ErrNotFound)
		h, err := s.History(ctx, dup.ID)
		require.NoError(t, err)
		require.Empty(t, h, "the add entry went back with the row")
		changes, err := s.Changes(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, changes, 1)
		require.Equal(t, live.ID, changes[0].ID)
	})

	k.run(t, "NothingFollowsTheFinalChange", func(t *testing.T, s store.Store) {
		var first store.Memory
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			var err error
			first, err = tx.Insert(ctx, NewWrite("p", "the final change", Vec(10, 0)))
			require.NoError(t, err)
			_, err = tx.Insert(ctx, NewWrite("p", "a second change", Vec(11, 0)))
			require.Error(t, err, "no call may follow Insert or Fold")
			_, err = tx.Fold(ctx, store.FoldParams{ID: first.ID, Kind: first.Kind, DedupedCount: 1, Before: first.Text, After: first.Text})
			require.Error(t, err)
			_, err = tx.Lookup(ctx, "the final change", Vec(10, 0), []uuid.UUID{first.ID})
			require.Error(t, err)
			return nil
		})
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, live, 1)
		require.Equal(t, first.ID, live[0].ID)
		require.Zero(t, live[0].DedupedCount)
	})

	k.run(t, "ZeroVectorsNeverYieldNaN", func(t *testing.T, s store.Store) {
		party := k.insert(t, s, NewWrite("p", "🎉🎉🎉", ZeroVec()))
		fact := k.insert(t, s, NewWrite("p", "deploys go through argo", Vec(6, 0)))
		// An imported row may wait outside the ANN index, where an exact scan meets it.
		imported := NewWrite("p", "🚀🚀", ZeroVec())
		_, err := s.Import(ctx, []store.ExportRecord{{Memory: store.Memory{ID: imported.ID, Scope: imported.Scope, ScopeKey: "p",
			Kind: imported.Kind, Text: imported.Text, Importance: 0.5, Confidence: 0.5}, Vector: imported.Vector}})
		require.NoError(t, err)
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "deploys go through argo cd", Vec(6, 0.1), []uuid.UUID{party.ID, fact.ID, imported.ID})
			require.NoError(t, err)
			require.Len(t, c.Neighbours, 1, "a zero-vector row has no similarity to anything")
			require.Equal(t, fact.ID, c.Neighbours[0].ID)
			c, err = tx.Lookup(ctx, "🎉🎉🎉", ZeroVec(), []uuid.UUID{party.ID, fact.ID, imported.ID})
			require.NoError(t, err)
			require.Empty(t, c.Neighbours, "a zero vector has no neighbours")
			require.NotNil(t, c.Exact, "identical texts still match")
			require.Equal(t, party.ID, c.Exact.ID)
			return nil
		})
		scopes := []store.ScopeRef{store.Project("p")}
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(6, 0.1), Scopes: scopes, Limit: 10})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: ZeroVec(), Scopes: scopes, Limit: 10})
		require.NoError(t, err)
		require.Empty(t, hits)
		for _, q := range []store.Vector{Vec(6, 0.1), ZeroVec()} {
			loaded, err := s.GetMany(ctx, []uuid.UUID{party.ID, fact.ID}, &q)
			require.NoError(t, err)
			require.Len(t, loaded, 2)
			for _, l := range loaded {
				if l.ID == party.ID || q.IsZero() {
					require.Nil(t, l.Similarity, "undefined similarity is unknown, not NaN")
					continue
				}
				require.NotNil(t, l.Similarity)
				require.InDelta(t, math.Cos(0.1), *l.Similarity, 1e-4)
			}
		}
	})
}
