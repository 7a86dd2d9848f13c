package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// TestDenseSearchAnswersOnlyWhatIsRelevant: a dense model puts unrelated texts at cosine .5
// (as real models lean on a shared direction); the host measures that floor at boot, so a
// question about nothing the project knows finds nothing instead of every memory (issue 30:
// "who handles quixlet?" answered 8 of 8), while a question that means a memory still finds
// it, and `memhost memory search` shows each hit's score. An operator's
// embedder.relevance_floors entry wins over the measured floor.
func TestDenseSearchAnswersOnlyWhatIsRelevant(t *testing.T) {
	t.Parallel()
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text", Shared: 0.5})
	dsn := testdb.Schema(t)
	h := mustOpenDense(t, dsn, endpoint(srv.URL()))
	ctx := context.Background()
	facts := []string{"We use pnpm, never npm.", "Don't write specs unless asked.", "Prefer fakes over mocks.",
		"The API listens on port 8080.", "Deploys go through staging first.", "Logs are shipped to Loki.",
		"Secrets come from Vault.", "The cache in front of the catalog is Redis."}
	for _, text := range facts {
		_, err := h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: text})
		require.NoError(t, err)
	}
	hy := h.core.Service.Hybrid("nomic-embed-text-768")
	require.Greater(t, hy.Floor, 0.4, "the floor measured at boot: unrelated texts sit at .5")

	ans := h.search(t, "who handles quixlet?")
	require.Empty(t, ans.Results, "nothing the project knows: no answer, not every memory")
	ans = h.search(t, "which package manager")
	require.NotEmpty(t, ans.Results)
	require.Equal(t, "We use pnpm, never npm.", ans.Results[0].Text)
	require.Less(t, len(ans.Results), len(facts), "unrelated facts do not trail the right one")

	out, err := run(t, "memory", "search", "which package manager", "--config", h.cfg, "--project", cliProject, "--token", h.token)
	require.NoError(t, err, out)
	require.Regexp(t, `ID\s+SCORE\s+KIND\s+AGE\s+USES\s+TEXT\n\S+\s+0\.\d\d\s+fact\s+`, out)
	h.close()

	// The operator's floor wins over the measured one: at 0 every memory is near enough again.
	h = mustOpenDense(t, dsn, endpoint(srv.URL())+"[embedder.relevance_floors]\n\"nomic-embed-text-768\" = 0\n")
	require.Zero(t, h.core.Service.Hybrid("nomic-embed-text-768").Floor)
	require.Len(t, h.search(t, "who handles quixlet?").Results, len(facts))
}
