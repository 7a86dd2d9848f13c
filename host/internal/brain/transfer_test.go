package brain_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/transfer"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestLayersTravelWithExportAndImport: goal, plan and journal are exported and imported with
// everything else; an imported goal never makes a second live goal.
func TestLayersTravelWithExportAndImport(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.populate(t, operatorA, agentA, "AAA")
	_, err := b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: "JOURNAL-AAA: fixed the flaky test.", Agent: "claude-code"})
	require.NoError(t, err, "the same journal text twice")

	var buf bytes.Buffer
	n, err := transfer.Export(ctx, b.store, store.Project(keyA), &buf)
	require.NoError(t, err)
	require.Equal(t, 9, n, "5 facts, goal, plan, 2 journal entries")

	redactor, err := redact.New()
	require.NoError(t, err)
	opts := transfer.ImportOptions{MaxTextBytes: 16 << 10, MergedFromMax: 20, Redactor: redactor}

	// Into a fresh project: everything arrives live.
	fresh := "github.com/acme/copy"
	res, err := transfer.Import(ctx, b.store, store.Project(fresh), bytes.NewReader(buf.Bytes()), opts)
	require.NoError(t, err)
	require.Equal(t, 9, res.Inserted)
	goal, err := b.store.Document(ctx, fresh, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "GOAL-AAA: ship the thing.", goal.Text)
	page, err := b.brain.Journal(ctx, memory.Access{Project: fresh}, brain.JournalQuery{})
	require.NoError(t, err)
	require.Len(t, page.Entries, 2, "repeated journal text is not a duplicate")

	// Into a project with its own goal: the imported goal is kept, archived.
	_, err = b.brain.SetDocument(ctx, operatorB, store.KindGoal, brain.SetRequest{Text: "B's own goal"})
	require.NoError(t, err)
	_, err = transfer.Import(ctx, b.store, store.Project(keyB), bytes.NewReader(buf.Bytes()), opts)
	require.NoError(t, err)
	live, err := b.store.Document(ctx, keyB, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "B's own goal", live.Text)
	var archived int
	require.NoError(t, b.pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE scope_key = $1 AND kind = 'goal' AND archived_at IS NOT NULL`, keyB).Scan(&archived))
	require.Equal(t, 1, archived)
}
