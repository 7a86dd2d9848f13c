package memory

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// TestAbsorbedPartsParaphrasesFromMerges: merged_from holds both the paraphrases writes folded
// in and the texts of memories consolidation merged; Get shows them apart, and a memory that
// was unmerged since is in neither.
func TestAbsorbedPartsParaphrasesFromMerges(t *testing.T) {
	t.Parallel()
	a, b := uuid.Must(uuid.NewV7()), uuid.Must(uuid.NewV7())
	t0 := time.Now().UTC().Truncate(time.Microsecond)
	history := []store.HistoryEntry{
		{Event: store.EventAdd, CreatedAt: t0},
		{Event: store.EventFold, CreatedAt: t0.Add(time.Second)},
		{Event: store.EventMerge, CreatedAt: t0.Add(2 * time.Second), Detail: map[string]any{"absorbed": []any{a.String(), b.String()}}},
		{Event: store.EventUpdate, CreatedAt: t0.Add(3 * time.Second), Detail: map[string]any{"unmerged": []any{b.String()}}},
	}
	merged := mergedInto(history)
	require.Equal(t, map[uuid.UUID]time.Time{a: t0.Add(2 * time.Second)}, merged)
	mergedFrom := []store.Merged{{Text: "we use pnpm here"}, {Text: "Lockfiles are committed."}}
	got := splitAbsorbed(mergedFrom, history, merged, map[uuid.UUID]string{a: "lockfiles are committed.", b: "gone again"})
	require.Equal(t, &Absorbed{
		Paraphrases: []store.Merged{{Text: "we use pnpm here"}},
		Merged:      []MergedMemory{{ID: a, Text: "lockfiles are committed.", At: t0.Add(2 * time.Second)}},
	}, got)
	require.Nil(t, splitAbsorbed(nil, history[:2], nil, nil), "nothing absorbed: no section")
}
