package brain_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	require.NoError(t, err)
	return id
}

func TestSetDocumentKeepsEveryVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()

	_, err := b.brain.Document(ctx, agentA, store.KindGoal)
	require.ErrorIs(t, err, rules.ErrNotFound)
	require.Contains(t, access.Classify(err).Message, "has no goal yet")

	v1, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "Ship a shared memory for coding agents.", Source: "cli"})
	require.NoError(t, err)
	v2, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "Ship a shared, self-maintaining memory.", Source: "cli"})
	require.NoError(t, err)
	require.Equal(t, v1.ID, v2.ID, "one live goal row, updated in place")
	require.Greater(t, v2.Version, v1.Version)

	got, err := b.brain.Document(ctx, agentA, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "Ship a shared, self-maintaining memory.", got.Text)

	h := b.history(t, v1.ID.String())
	require.Len(t, h, 2)
	require.Equal(t, store.EventAdd, h[0].Event)
	require.Equal(t, store.EventUpdate, h[1].Event)
	require.Equal(t, "Ship a shared memory for coding agents.", *h[1].BeforeText)
	require.Equal(t, "Ship a shared, self-maintaining memory.", *h[1].AfterText)

	// Setting the same text again changes nothing.
	v3, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "Ship a shared, self-maintaining memory."})
	require.NoError(t, err)
	require.Equal(t, v2.Version, v3.Version)
	require.Len(t, b.history(t, v1.ID.String()), 2)
}

func TestSetDocumentRefusesBadInputAndAgents(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for name, tc := range map[string]struct {
		a    memory.Access
		text string
		want string
	}{
		"empty":     {operatorA, "", "text: must not be empty"},
		"invisible": {operatorA, "\u200b\u200b", "text: must not be empty"},
		"oversized": {operatorA, strings.Repeat("a", 20000), "the limit is 16384 bytes"},
		"agent":     {agentA, "A goal", "needs a token with the admin scope"},
		"project":   {memory.Access{Admin: true}, "A goal", "project: is required"},
	} {
		_, err := b.brain.SetDocument(ctx, tc.a, store.KindGoal, brain.SetRequest{Text: tc.text})
		require.ErrorContains(t, err, tc.want, name)
		require.NotEqual(t, 500, access.Classify(err).Status, name)
	}
	require.Zero(t, b.rows(t, keyA), "nothing changed")
}

func TestProposalApproveReplacesAndRecordsWho(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	cur, err := b.brain.SetDocument(ctx, operatorA, store.KindPlan, brain.SetRequest{Text: "1. Core host\n2. Brain"})
	require.NoError(t, err)

	res, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "plan", Text: "1. Core host (done)\n2. Brain\n3. Spawn injection",
		Reason: "core shipped", Agent: "codex", Session: "s-1"})
	require.NoError(t, err)
	p := res.Proposal
	require.Equal(t, "pending", p.Status)
	require.Equal(t, cur.Version, p.BaseVersion)

	// Proposing is not changing.
	doc, err := b.brain.Document(ctx, agentA, store.KindPlan)
	require.NoError(t, err)
	require.Equal(t, cur.Text, doc.Text)

	// The same proposal again returns the pending one.
	again, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "plan", Text: p.Text})
	require.NoError(t, err)
	require.True(t, again.Duplicate)
	require.Equal(t, p.ID, again.Proposal.ID)

	detail, err := b.brain.Proposal(ctx, agentA, p.ID)
	require.NoError(t, err)
	require.Equal(t, cur.Text, detail.Current)
	require.Contains(t, detail.Diff, "-1. Core host\n")
	require.Contains(t, detail.Diff, "+1. Core host (done)\n")
	require.Contains(t, detail.Diff, "+3. Spawn injection\n")

	_, err = b.brain.Approve(ctx, agentA, p.ID)
	require.ErrorIs(t, err, rules.ErrForbidden, "agents cannot approve")

	dec, err := b.brain.Approve(ctx, operatorA, p.ID)
	require.NoError(t, err)
	require.Equal(t, "approved", dec.Proposal.Status)
	require.Equal(t, "operator", dec.Proposal.DecidedBy)
	require.NotNil(t, dec.Proposal.DecidedAt)
	require.Equal(t, p.Text, dec.Document.Text)
	require.Equal(t, "codex", dec.Document.UpdatedBy)

	h := b.history(t, cur.ID.String())
	require.Len(t, h, 2)
	require.Equal(t, cur.Text, *h[1].BeforeText, "the old version is kept")
	require.Equal(t, "operator", h[1].Actor)
	require.Equal(t, p.ID.String(), h[1].Detail["proposal"])

	_, err = b.brain.Approve(ctx, operatorA, p.ID)
	require.ErrorIs(t, err, rules.ErrConflict)
	require.Contains(t, access.Classify(err).Message, "already approved by operator")
}

func TestStaleProposalIsNeverApplied(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	_, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "Goal one"})
	require.NoError(t, err)
	first, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "Goal two"})
	require.NoError(t, err)
	second, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "Goal three"})
	require.NoError(t, err)

	// The first is approved; the second was made against the version it replaced.
	_, err = b.brain.Approve(ctx, operatorA, first.Proposal.ID)
	require.NoError(t, err)
	inbox, err := b.brain.Inbox(ctx, operatorA, brain.InboxRequest{Status: "stale"})
	require.NoError(t, err)
	require.Len(t, inbox.Proposals, 1)
	require.Equal(t, second.Proposal.ID, inbox.Proposals[0].ID)

	_, err = b.brain.Approve(ctx, operatorA, second.Proposal.ID)
	require.ErrorIs(t, err, rules.ErrConflict)
	require.Contains(t, access.Classify(err).Message, "is stale")
	doc, err := b.brain.Document(ctx, agentA, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, "Goal two", doc.Text, "a stale proposal is not applied")

	// A stale proposal can still be rejected, and stays in the inbox's history.
	rej, err := b.brain.Reject(ctx, operatorA, second.Proposal.ID)
	require.NoError(t, err)
	require.Equal(t, "rejected", rej.Proposal.Status)
	all, err := b.brain.Inbox(ctx, operatorA, brain.InboxRequest{Status: "all"})
	require.NoError(t, err)
	require.Len(t, all.Proposals, 2)
}

func TestArchivedDocumentMakesPendingProposalStale(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	goal, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: "Goal one"})
	require.NoError(t, err)
	p, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "Goal two"})
	require.NoError(t, err)

	_, err = b.mem.Archive(ctx, agentA, goal.ID, "")
	require.ErrorIs(t, err, rules.ErrForbidden, "an agent cannot archive the goal around the inbox")
	_, err = b.mem.Archive(ctx, operatorA, goal.ID, "obsolete")
	require.NoError(t, err)

	inbox, err := b.brain.Inbox(ctx, operatorA, brain.InboxRequest{})
	require.NoError(t, err)
	require.Empty(t, inbox.Proposals, "no longer pending")
	_, err = b.brain.Approve(ctx, operatorA, p.Proposal.ID)
	require.ErrorIs(t, err, rules.ErrConflict)
	_, err = b.brain.Document(ctx, agentA, store.KindGoal)
	require.ErrorIs(t, err, rules.ErrNotFound)
}

func TestProposalsAreIsolatedAndChecked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	p, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "A's goal"})
	require.NoError(t, err)

	// Another project's proposal id is not found, whatever the grant.
	_, err = b.brain.Proposal(ctx, agentB, p.Proposal.ID)
	require.ErrorIs(t, err, rules.ErrNotFound)
	_, err = b.brain.Approve(ctx, operatorB, p.Proposal.ID)
	require.ErrorIs(t, err, rules.ErrNotFound)
	_, err = b.brain.Reject(ctx, operatorB, p.Proposal.ID)
	require.ErrorIs(t, err, rules.ErrNotFound)
	inbox, err := b.brain.Inbox(ctx, operatorB, brain.InboxRequest{Status: "all"})
	require.NoError(t, err)
	require.Empty(t, inbox.Proposals)
	_, err = b.brain.Document(ctx, agentB, store.KindGoal)
	require.ErrorIs(t, err, rules.ErrNotFound)

	for name, tc := range map[string]struct {
		req  brain.ProposeRequest
		want string
	}{
		"layer":     {brain.ProposeRequest{Layer: "journal", Text: "x"}, "layer: \"journal\" is not one of goal, plan"},
		"empty":     {brain.ProposeRequest{Layer: "goal", Text: " "}, "text: must not be empty"},
		"oversized": {brain.ProposeRequest{Layer: "goal", Text: strings.Repeat("a", 17000)}, "the limit is 16384 bytes"},
		"reason":    {brain.ProposeRequest{Layer: "goal", Text: "x", Reason: strings.Repeat("a", 2001)}, "reason: "},
		"agent":     {brain.ProposeRequest{Layer: "goal", Text: "x", Agent: "a\x1b[31m"}, "agent: must not contain control characters"},
	} {
		_, err := b.brain.Propose(ctx, agentA, tc.req)
		var fe *rules.FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", name, err)
		require.ErrorContains(t, err, tc.want, name)
	}
	require.Equal(t, 1, b.proposals(t, keyA), "bad proposals change nothing")
	require.Zero(t, b.proposals(t, keyB))
}

func TestFactsNeverFoldIntoLayers(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	text := "We deploy the app with Buildkite and Argo CD to the staging cluster."
	goal, err := b.brain.SetDocument(ctx, operatorA, store.KindGoal, brain.SetRequest{Text: text})
	require.NoError(t, err)
	_, err = b.brain.AppendJournal(ctx, agentA, brain.JournalRequest{Text: text, Agent: "codex"})
	require.NoError(t, err)

	f := b.fact(t, agentA, text)
	require.False(t, f.Folded, "an identical fact is a new row, not a fold into the goal or journal")
	require.NotEqual(t, goal.ID, f.ID)
	g, err := b.brain.Document(ctx, agentA, store.KindGoal)
	require.NoError(t, err)
	require.Equal(t, text, g.Text)

	// memory_search and memory_list see facts only.
	res, err := b.mem.Search(ctx, agentA, memory.SearchRequest{Query: "deploy Buildkite Argo"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	require.Equal(t, f.ID, res.Hits[0].ID)
	page, err := b.mem.List(ctx, agentA, memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 1)

	_, err = b.mem.Store(ctx, agentA, memory.StoreRequest{Text: "x", Kind: "goal"})
	require.ErrorContains(t, err, "project_goal_set")
	_, err = b.mem.Store(ctx, agentA, memory.StoreRequest{Text: "x", Kind: "journal"})
	require.ErrorContains(t, err, "session_log_append")
	_, err = b.mem.Search(ctx, agentA, memory.SearchRequest{Query: "x", Kinds: []string{"plan"}})
	require.ErrorContains(t, err, "project_plan_set")
}
