package brain_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestDocumentVersionsCountPerProjectAndLayer: a project's first goal is version 1 however
// many rows the database holds, each layer and project counts on its own, and proposals and
// their approval speak in the same numbers.
func TestDocumentVersionsCountPerProjectAndLayer(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	for _, text := range []string{"We use pnpm.", "Tests need Postgres.", "Go 1.25 is the floor."} {
		b.fact(t, agentA, text)
		b.fact(t, agentB, text)
	}
	set := func(layer store.Kind, text string) brain.DocumentView {
		t.Helper()
		d, err := b.brain.SetDocument(ctx, operatorA, layer, brain.SetRequest{Text: text, Source: "cli"})
		require.NoError(t, err)
		return d
	}
	require.EqualValues(t, 1, set(store.KindGoal, "Ship it.").Version, "the project's first goal")
	require.EqualValues(t, 1, set(store.KindPlan, "1. Core").Version, "the plan counts on its own")
	require.EqualValues(t, 2, set(store.KindGoal, "Ship it well.").Version)
	require.EqualValues(t, 2, set(store.KindGoal, "Ship it well.").Version, "the same text is the same version")
	other, err := b.brain.SetDocument(ctx, operatorB, store.KindGoal, brain.SetRequest{Text: "Another goal."})
	require.NoError(t, err)
	require.EqualValues(t, 1, other.Version, "another project counts on its own")

	res, err := b.brain.Propose(ctx, agentA, brain.ProposeRequest{Layer: "goal", Text: "Ship it well, and soon.", Reason: "deadline"})
	require.NoError(t, err)
	require.EqualValues(t, 2, res.Proposal.BaseVersion)
	dec, err := b.brain.Approve(ctx, operatorA, res.Proposal.ID)
	require.NoError(t, err)
	require.EqualValues(t, 3, dec.Document.Version)
	d, err := b.brain.Proposal(ctx, operatorA, res.Proposal.ID)
	require.NoError(t, err)
	require.EqualValues(t, 2, d.BaseVersion)
	require.EqualValues(t, 3, d.CurrentVersion)
	got, err := b.brain.Document(ctx, agentA, store.KindGoal)
	require.NoError(t, err)
	require.EqualValues(t, 3, got.Version)
}
