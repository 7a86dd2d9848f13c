package banner

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/shortid"
)

// TestReportsNameTheFactsShown: each fact section's report names exactly the facts it shows,
// in order, each once over the whole banner and each tagged in the text with its id; the
// console's banner preview reads "made the cut" from it.
func TestReportsNameTheFactsShown(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2026, 11))
	for i := range 300 {
		in, opts := randomInput(rng)
		res, err := Render(in, opts)
		require.NoError(t, err)
		seen := map[uuid.UUID]bool{}
		for _, s := range res.Sections {
			if s.Section != SectionNewest && s.Section != SectionTask && s.Section != SectionTop {
				require.Empty(t, s.Facts, "case %d: %s shows no facts", i, s.Section)
				continue
			}
			require.Len(t, s.Facts, s.Shown, "case %d: %s", i, s.Section)
			for _, id := range s.Facts {
				require.False(t, seen[id], "case %d: a fact shown twice", i)
				seen[id] = true
				require.True(t, strings.Contains(res.Text, id.String()[len(id.String())-shortid.Len:]), "case %d: %s is in the text", i, id)
			}
		}
	}
}
