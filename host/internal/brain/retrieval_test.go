package brain_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/daemon/lifecycle"
)

// project_search cuts the merged layers to its top_k: only what it returns counts as
// retrieved, or a fact every search ranks just below the cut would never age (stale job).
func TestProjectSearchRecordsOnlyWhatItReturns(t *testing.T) {
	t.Parallel()
	b := setup(t)
	g := lifecycle.NewGroup(nil, lifecycle.Func("hit recorder", b.mem.RecordHits))
	require.NoError(t, g.Start(context.Background()))
	ctx := context.Background()
	fact := b.fact(t, agentA, "The payments service keeps its ledger in Postgres.")
	entry, err := b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: "Moved the payments service ledger to Postgres and deployed it", Agent: "claude-code"})
	require.NoError(t, err)

	// Each layer answers its own top 1; the merge keeps the journal entry and cuts the fact.
	res, err := b.brain.Search(ctx, agentA, brain.SearchRequest{Query: "moved payments service ledger postgres deployed", TopK: 1})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	require.Equal(t, entry.Entry.ID, res.Hits[0].ID)
	// Stopping the recorder flushes what it holds.
	require.NoError(t, g.Stop(context.Background()))

	at := func(id uuid.UUID) *time.Time {
		v, err := b.store.LastRetrieved(ctx, id)
		require.NoError(t, err)
		return v
	}
	require.NotNil(t, at(entry.Entry.ID), "returned: retrieved")
	require.Nil(t, at(fact.ID), "cut by project_search's top_k, not returned: not retrieved")
}
