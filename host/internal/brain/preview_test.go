package brain_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/banner"
)

// TestBannerPreviewIsTheBanner: the console's preview holds the banner Banner renders for the
// same request, byte for byte, and says for each candidate fact its rank by the spawn score,
// the score's terms (which add up to it), and the section that shows it — the facts shown are
// exactly those the sections report, and a tight budget cuts some, which the preview marks.
func TestBannerPreviewIsTheBanner(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.populate(t, operatorA, agentA, "AAA")
	for i := range 40 {
		b.fact(t, agentA, fmt.Sprintf("extra fact %d: module m%d talks to queue q%d over amqp", i, i, i))
	}
	for _, cli := range []string{"claude", "codex", "gemini"} {
		for _, budget := range []int{banner.MinBudget * 2, 2000} {
			req := brain.BannerRequest{CLI: cli, Budget: budget}
			want, err := b.brain.Banner(ctx, agentA, req)
			require.NoError(t, err)
			p, err := b.brain.BannerPreview(ctx, agentA, req)
			require.NoError(t, err)
			require.Equal(t, want.Text, p.Text, "%s %d: the preview is the banner", cli, budget)
			require.Equal(t, want.Tokens, p.Tokens)

			shown := map[string]banner.Section{}
			for _, s := range p.Sections {
				for _, id := range s.Facts {
					shown[id.String()] = s.Section
				}
			}
			cut, prev := 0, 2.0
			for _, f := range p.Facts {
				require.InDelta(t, f.Score, f.Terms.Sum(), 1e-12)
				require.Equal(t, shown[f.ID.String()], f.Section, f.Text)
				if f.Section == "" {
					cut++
				}
				if f.Rank > 0 {
					require.LessOrEqual(t, f.Score, prev, "ranked by score")
					prev = f.Score
				}
			}
			require.Equal(t, 45, p.Candidates)
			if budget < 2000 {
				require.Positive(t, cut, "a tight budget cuts facts, and the preview says which")
			}
		}
	}
}
