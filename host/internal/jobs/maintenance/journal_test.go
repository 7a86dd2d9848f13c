package maintenance

import (
	"context"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// journalEntry writes a journal entry to proj as the brain does (through the scope lock).
func (e env) journalEntry(t *testing.T, text string) uuid.UUID {
	t.Helper()
	return e.insert(t, store.KindJournal, text)
}

// insert writes a memory of kind to proj through the scope lock, past the write path's rules
// and fold: as the brain writes an entry, or as a row an earlier version stored.
func (e env) insert(t *testing.T, kind store.Kind, text string) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	v, err := e.svc.EmbedDocument(ctx, text)
	require.NoError(t, err)
	var id uuid.UUID
	require.NoError(t, e.store.WithScopeLock(ctx, store.Project(proj.Project), func(tx store.ScopeTx) error {
		m, err := tx.Insert(ctx, store.Write{Scope: store.ScopeProject, ScopeKey: proj.Project, Kind: kind, Text: text,
			Importance: 0.5, Confidence: 0.8, Vector: v, Actor: "test"})
		id = m.ID
		return err
	}))
	return id
}

// TestJournalPruneSkipsEntriesAnOpenConflictReferences: an old entry an open conflict names
// stays live while the conflict is open, and is pruned once it is dismissed.
func TestJournalPruneSkipsEntriesAnOpenConflictReferences(t *testing.T) {
	t.Parallel()
	e := setup(t)
	ctx := context.Background()
	cited := e.journalEntry(t, "Session: moved the release day to Tuesday.")
	plain := e.journalEntry(t, "Session: fixed the login bug.")
	fact := e.write(t, proj, "Releases ship on Fridays")
	_, err := e.store.FileConflict(ctx, store.Conflict{ScopeKey: proj.Project, MemoryA: fact, MemoryB: cited, TextA: "a", TextB: "b",
		Evidence: "release day", Severity: "high", CreatedAt: time.Now()})
	require.NoError(t, err)

	clock := &fakeClock{now: time.Now().Add(100 * 24 * time.Hour)}
	m, err := New(e.pool, e.store, Config{Host: "host-a", Clock: clock, testOnly: true, Jobs: []Scheduled{{
		Job: Journal{Store: e.store, OlderThan: 90 * 24 * time.Hour}, Every: 24 * time.Hour,
	}}})
	require.NoError(t, err)
	rep, err := m.RunNow(ctx, "journal", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, []wire.MaintenanceItem{{ID: plain.String(), Action: "archive", Reason: "journal prune"}}, rep.Result.Items)
	require.False(t, e.memory(t, cited).Archived())

	open, err := e.store.Conflicts(ctx, store.ConflictQuery{ScopeKey: proj.Project, Limit: 1})
	require.NoError(t, err)
	_, err = e.store.DecideConflict(ctx, store.ConflictDecision{ScopeKey: proj.Project, ID: open[0].ID, Status: store.ConflictDismissed, Actor: "alice"})
	require.NoError(t, err)
	rep, err = m.RunNow(ctx, "journal", wire.RunOptions{})
	require.NoError(t, err)
	require.Equal(t, []wire.MaintenanceItem{{ID: cited.String(), Action: "archive", Reason: "journal prune"}}, rep.Result.Items)
}
