package brain_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestBannerShowsOpenConflicts: a project's open conflicts reach its banner, most severe
// first, with their count; another project's do not; a dismissed one leaves it.
func TestBannerShowsOpenConflicts(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	fri, tue := b.fact(t, agentA, "Releases ship on Fridays"), b.fact(t, agentA, "Releases ship on Tuesdays")
	pg, my := b.fact(t, agentA, "The database is Postgres 16"), b.fact(t, agentA, "The database is MySQL 8")
	file := func(a, c memory.StoreResult, severity string) {
		_, err := b.store.FileConflict(ctx, store.Conflict{ScopeKey: keyA, MemoryA: a.ID, MemoryB: c.ID, TextA: a.Memory.Text, TextB: c.Memory.Text,
			Evidence: "x", Severity: severity, CreatedAt: time.Now()})
		require.NoError(t, err)
	}
	file(fri, tue, "low")
	file(pg, my, "high")

	res, err := b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude"})
	require.NoError(t, err)
	require.Contains(t, res.Text, "## Open conflicts (2, for a human to decide")
	high := "- high: \"The database is Postgres 16\" vs \"The database is MySQL 8\"\n"
	low := "- low: \"Releases ship on Fridays\" vs \"Releases ship on Tuesdays\"\n"
	require.Contains(t, res.Text, high+low, "most severe first")
	other, err := b.brain.Banner(ctx, agentB, brain.BannerRequest{})
	require.NoError(t, err)
	require.NotContains(t, other.Text, "Open conflicts")

	page, err := b.brain.Conflicts(ctx, operatorA, brain.ConflictsRequest{})
	require.NoError(t, err)
	for _, c := range page.Conflicts {
		_, err := b.brain.DismissConflict(ctx, operatorA, c.ID)
		require.NoError(t, err)
	}
	res, err = b.brain.Banner(ctx, agentA, brain.BannerRequest{CLI: "claude"})
	require.NoError(t, err)
	require.NotContains(t, res.Text, "Open conflicts")
}
