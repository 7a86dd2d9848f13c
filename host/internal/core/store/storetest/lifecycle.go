package storetest

import (
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseLifecycle runs soft delete and pins: archive and restore recorded in history, pin and
// unpin.
func exerciseLifecycle(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "ArchiveRestoreAndHistory", func(t *testing.T, s store.Store) {
		id := k.insert(t, s, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0))).ID
		m, err := s.SetArchived(ctx, store.ArchiveParams{ID: id, Archived: true, Reason: "obsolete", Actor: "alice"})
		require.NoError(t, err)
		require.True(t, m.Archived())
		require.Equal(t, "obsolete", m.ArchivedReason)
		again, err := s.SetArchived(ctx, store.ArchiveParams{ID: id, Archived: true, Reason: "obsolete", Actor: "alice"})
		require.NoError(t, err, "archiving twice is idempotent")
		require.Equal(t, m.Seq, again.Seq)

		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}})
		require.NoError(t, err)
		require.Empty(t, live)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 5})
		require.NoError(t, err)
		require.Empty(t, hits, "archived rows are excluded unless asked")
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 5})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		archived, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, OnlyArchived: true})
		require.NoError(t, err)
		require.Len(t, archived, 1)

		// While archived, the same text may be written again as a new live row; restoring the
		// old one would then duplicate it, which is refused.
		dup := k.insert(t, s, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0)))
		_, err = s.SetArchived(ctx, store.ArchiveParams{ID: id, Actor: "alice"})
		require.ErrorIs(t, err, rules.ErrConflict)
		_, err = s.SetArchived(ctx, store.ArchiveParams{ID: dup.ID, Archived: true, Reason: "dup", Actor: "alice"})
		require.NoError(t, err)
		restored, err := s.SetArchived(ctx, store.ArchiveParams{ID: id, Actor: "alice"})
		require.NoError(t, err)
		require.False(t, restored.Archived())

		h, err := s.History(ctx, id)
		require.NoError(t, err)
		require.Equal(t, []store.Event{store.EventAdd, store.EventArchive, store.EventRestore}, events(h))
		require.Equal(t, "alice", h[1].Actor)
	})

	k.run(t, "PinUnpin", func(t *testing.T, s store.Store) {
		res := k.insert(t, s, NewWrite("p", "pin me", Vec(10, 0)))
		m, err := s.SetPinned(ctx, res.ID, true, "bob")
		require.NoError(t, err)
		require.True(t, m.Pinned)
		m, err = s.SetPinned(ctx, res.ID, false, "bob")
		require.NoError(t, err)
		require.False(t, m.Pinned)
		h, err := s.History(ctx, res.ID)
		require.NoError(t, err)
		require.Len(t, h, 3)
		_, err = s.SetPinned(ctx, uuid.Must(uuid.NewV7()), true, "bob")
		require.ErrorIs(t, err, rules.ErrNotFound)
	})
}
