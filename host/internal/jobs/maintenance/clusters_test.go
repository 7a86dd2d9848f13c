package maintenance

import (
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

func fact(text string, vec []float32, pinned bool, hits int64, age time.Duration) store.ConsolidationFact {
	return store.ConsolidationFact{Memory: store.Memory{ID: uuid.New(), Text: text, Embedder: "e", Pinned: pinned, HitCount: hits,
		CreatedAt: time.Unix(1e9, 0).Add(-age)}, Vector: vec, VectorOf: "e"}
}

// TestClusters: facts group by identical normalised text or cosine at least near,
// transitively; the survivor is a pinned fact, else the most used, else the oldest; a second
// pinned fact is never absorbed; a cluster is capped; lone facts and other embedders' vectors
// stay out, and so does a fact kept apart from one in the cluster.
func TestClusters(t *testing.T) {
	t.Parallel()
	x, y := []float32{1, 0}, []float32{0, 1}
	old := fact("CI runs on Buildkite.", x, false, 0, 3*time.Hour)
	used := fact("ci runs on buildkite", y, false, 5, time.Hour)
	near := fact("Buildkite is our CI", []float32{1, 0.1}, false, 0, 2*time.Hour)
	lone := fact("Tests need TZ=UTC", []float32{-1, 0}, false, 0, time.Hour)
	got := clusters([]store.ConsolidationFact{old, used, near, lone}, 0.9, 8, nil)
	require.Len(t, got, 1)
	require.Equal(t, []uuid.UUID{used.ID, old.ID, near.ID}, ids(got[0]), "the most used survives; near joins through old")
	got = clusters([]store.ConsolidationFact{old, used, near, lone}, 0.9, 8, map[string]bool{store.PairKey(near.ID, used.ID): true})
	require.Equal(t, []uuid.UUID{used.ID, old.ID}, ids(got[0]), "a fact an operator kept apart from one in the cluster stays out")

	pinA := fact("Never force-push to main", x, true, 0, time.Hour)
	pinB := fact("never force-push to main!", x, true, 9, 2*time.Hour)
	plain := fact("Never force-push to main.", x, false, 50, 3*time.Hour)
	got = clusters([]store.ConsolidationFact{pinA, pinB, plain}, 0.9, 8, nil)
	require.Len(t, got, 1)
	require.Equal(t, pinB.ID, got[0][0].ID, "a pinned fact survives (the more used of two)")
	require.Equal(t, []uuid.UUID{pinB.ID, plain.ID}, ids(got[0]), "the other pinned fact is never absorbed")

	var many []store.ConsolidationFact
	for range 5 {
		many = append(many, fact("same", x, false, 0, time.Hour))
	}
	require.Len(t, clusters(many, 0.9, 3, nil)[0], 3, "capped at maxSize")

	other := fact("CI runs on Buildkite!", x, false, 0, time.Hour)
	other.VectorOf = "f"
	require.Zero(t, cosine(old, other), "vectors of different embedders are not compared")
	require.Len(t, clusters([]store.ConsolidationFact{old, other}, 0.9, 8, nil), 1, "but identical texts still cluster")
}

func ids(c []store.ConsolidationFact) []uuid.UUID {
	out := make([]uuid.UUID, len(c))
	for i, f := range c {
		out[i] = f.ID
	}
	return out
}
