package brain_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
)

func TestJournalAppendIsFoundAtOnceAndListedNewestFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for i := range 3 {
		_, err := b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: fmt.Sprintf("Session %d migrated the billing tables", i),
			Agent: "claude-code", Session: fmt.Sprintf("s-%d", i), Source: "mcp"})
		require.NoError(t, err)
	}
	// Two sessions may say the same thing: journal entries never fold.
	_, err := b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: "Session 2 migrated the billing tables", Agent: "codex"})
	require.NoError(t, err)

	page, err := b.brain.Journal(ctx, agentA, brain.JournalQuery{Limit: 3})
	require.NoError(t, err)
	require.Len(t, page.Entries, 3)
	require.Equal(t, "codex", page.Entries[0].Agent)
	require.Equal(t, "s-2", page.Entries[1].Session)
	require.NotEmpty(t, page.NextCursor)
	rest, err := b.brain.Journal(ctx, agentA, brain.JournalQuery{Limit: 3, Cursor: page.NextCursor})
	require.NoError(t, err)
	require.Len(t, rest.Entries, 1)
	require.Equal(t, "s-0", rest.Entries[0].Session)

	// Embedded synchronously: the very next search finds it.
	res, err := b.brain.Search(ctx, agentA, brain.SearchRequest{Query: "billing tables migrated", Layers: []string{"journal"}})
	require.NoError(t, err)
	require.Len(t, res.Hits, 4)
	require.Equal(t, "journal", res.Hits[0].Layer)

	other, err := b.brain.Journal(ctx, agentB, brain.JournalQuery{})
	require.NoError(t, err)
	require.Empty(t, other.Entries, "B sees none of A's journal")
}

func TestJournalAppendRefusesBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		req  brain.JournalRequest
		want string
	}{
		"empty":     {brain.JournalRequest{Text: ""}, "text: must not be empty"},
		"oversized": {brain.JournalRequest{Text: strings.Repeat("a", 16385)}, "the limit is 16384 bytes"},
		"utf8":      {brain.JournalRequest{Text: "bad \xff"}, "text: must be valid UTF-8"},
		"agent":     {brain.JournalRequest{Text: "ok", Agent: strings.Repeat("a", 201)}, "agent: is 201 bytes; the limit is 200 bytes"},
		"session":   {brain.JournalRequest{Text: "ok", Session: "a\x00b"}, "session: must not contain control characters"},
	} {
		_, err := b.brain.AppendJournal(ctx, agentA, tc.req)
		require.ErrorContains(t, err, tc.want, name)
	}
	_, err := b.brain.Journal(ctx, agentA, brain.JournalQuery{Limit: 201})
	require.ErrorContains(t, err, "limit: 201 is out of range 1..200")
	_, err = b.brain.Journal(ctx, agentA, brain.JournalQuery{Cursor: "nope"})
	require.ErrorContains(t, err, "cursor: is not a cursor")
	require.Zero(t, b.rows(t, keyA))

	// Secrets are redacted in every field.
	res, err := b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: "token SECRETVALUE", Agent: "SECRETVALUE"})
	require.NoError(t, err)
	require.Equal(t, 2, res.Redactions)
	require.NotContains(t, res.Entry.Text+res.Entry.Agent, "SECRETVALUE")
}

func TestSearchAcrossLayersLabelsAndIsolates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.brain.SetDocument(ctx, operatorA, "goal", brain.SetRequest{Text: "Make the payments service reliable and observable."})
	require.NoError(t, err)
	_, err = b.brain.SetDocument(ctx, operatorA, "plan", brain.SetRequest{Text: "Next: add tracing to the payments service."})
	require.NoError(t, err)
	_, err = b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: "Added retries to the payments service client.", Agent: "codex"})
	require.NoError(t, err)
	b.fact(t, agentA, "The payments service runs on port 8443.")
	// Many other facts must not crowd the journal and documents out: each layer has its pool.
	for i := range 30 {
		b.fact(t, agentA, fmt.Sprintf("The payments service shard %d lives in region eu-%d.", i, i))
	}
	// Project B's identical content never reaches A.
	_, err = b.brain.SetDocument(ctx, operatorB, "goal", brain.SetRequest{Text: "Make the payments service of B reliable."})
	require.NoError(t, err)
	b.fact(t, agentB, "B's payments service runs on port 9999.")

	res, err := b.brain.Search(ctx, agentA, brain.SearchRequest{Query: "payments service", TopK: 40})
	require.NoError(t, err)
	layers := map[string]int{}
	for _, h := range res.Hits {
		layers[h.Layer]++
		require.Equal(t, keyA, h.Project)
		require.NotContains(t, h.Text, "B")
	}
	require.Equal(t, map[string]int{"fact": 31, "journal": 1, "goal": 1, "plan": 1}, layers)
	for i := 1; i < len(res.Hits); i++ {
		require.GreaterOrEqual(t, res.Hits[i-1].Score, res.Hits[i].Score, "merged by the one score")
	}

	only, err := b.brain.Search(ctx, agentA, brain.SearchRequest{Query: "payments service", Layers: []string{"goal", "plan"}})
	require.NoError(t, err)
	require.Len(t, only.Hits, 2)

	_, err = b.brain.Search(ctx, agentA, brain.SearchRequest{Query: "x", Layers: []string{"wiki"}})
	require.ErrorContains(t, err, `layers: "wiki" is not one of fact, journal, goal, plan`)
	_, err = b.brain.Search(ctx, agentA, brain.SearchRequest{Query: ""})
	require.ErrorContains(t, err, "query: must not be empty")
	_, err = b.brain.Search(ctx, memory.Access{}, brain.SearchRequest{Query: "x"})
	require.ErrorContains(t, err, "project: is required")
}
