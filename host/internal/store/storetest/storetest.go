package storetest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/store"
)

// Dims is the vector width the suite uses; small keeps the tests fast.
const Dims = 16

// Embedder is the embedder name the suite writes under.
const Embedder = "suite-v1-16"

// NewStore returns an empty store for one test.
type NewStore func(t *testing.T) store.Store

// Vec builds a unit vector pointing mostly along axis, tilted by tilt toward axis+1: two vectors
// of the same axis with small tilts are near-duplicates, different axes are orthogonal.
func Vec(axis int, tilt float64) store.Vector {
	v := make([]float32, Dims)
	v[axis%Dims] = float32(math.Cos(tilt))
	v[(axis+1)%Dims] = float32(math.Sin(tilt))
	return store.Vector{Embedder: Embedder, Dimensions: Dims, Values: v}
}

// RandomVec is a random unit vector, for filling a store.
func RandomVec(r *rand.Rand) store.Vector {
	v := make([]float32, Dims)
	var n float64
	for i := range v {
		f := r.NormFloat64()
		v[i] = float32(f)
		n += f * f
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return store.Vector{Embedder: Embedder, Dimensions: Dims, Values: v}
}

// NewWrite is a project write with suite defaults.
func NewWrite(project, text string, vec store.Vector) store.Write {
	return store.Write{
		ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: project, Kind: store.KindFact, Text: text,
		Importance: 0.5, Confidence: 0.8, Provenance: store.Provenance{Agent: "suite", Source: "test"},
		Vector: vec, FoldThreshold: 0.9, MergedFromMax: 3, Actor: "suite",
	}
}

// Run runs the conformance suite.
func Run(t *testing.T, newStore NewStore) {
	ctx := context.Background()
	setup := func(t *testing.T) store.Store {
		t.Helper()
		s := newStore(t)
		require.NoError(t, s.EnsureVectorIndex(ctx, Embedder, Dims))
		return s
	}

	t.Run("InsertThenGet", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		res, err := s.Write(ctx, NewWrite("p", "CI runs on Buildkite", Vec(0, 0)))
		require.NoError(t, err)
		require.False(t, res.Folded)
		got, err := s.Get(ctx, res.Memory.ID)
		require.NoError(t, err)
		require.Equal(t, "CI runs on Buildkite", got.Text)
		require.Equal(t, store.ScopeProject, got.Scope)
		require.Equal(t, "p", got.ScopeKey)
		require.Equal(t, Embedder, got.Embedder)
		require.Equal(t, "suite", got.Provenance.Agent)
		require.Positive(t, got.Seq)
		h, err := s.History(ctx, got.ID)
		require.NoError(t, err)
		require.Len(t, h, 1)
		require.Equal(t, store.EventAdd, h[0].Event)
	})

	t.Run("ExactDuplicateFoldsEvenWithFoldingOff", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		first, err := s.Write(ctx, NewWrite("p", "Use pnpm, not npm.", Vec(1, 0)))
		require.NoError(t, err)
		w := NewWrite("p", "use   PNPM, not npm.", Vec(5, 0)) // different vector, same normalised text
		w.FoldThreshold = -1
		second, err := s.Write(ctx, w)
		require.NoError(t, err)
		require.True(t, second.Folded)
		require.True(t, second.Exact)
		require.Equal(t, first.Memory.ID, second.Memory.ID)
		require.Equal(t, 1, second.Memory.DedupedCount)
	})

	t.Run("NearDuplicateFoldsLosslessly", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		first, err := s.Write(ctx, NewWrite("p", "We use pnpm here", Vec(2, 0)))
		require.NoError(t, err)
		second, err := s.Write(ctx, NewWrite("p", "This repo uses pnpm", Vec(2, 0.1)))
		require.NoError(t, err)
		require.True(t, second.Folded)
		require.False(t, second.Exact)
		require.InDelta(t, math.Cos(0.1), second.Similarity, 1e-4)
		require.Equal(t, first.Memory.ID, second.Memory.ID)
		got, err := s.Get(ctx, first.Memory.ID)
		require.NoError(t, err)
		require.Equal(t, "This repo uses pnpm", got.Text, "newer text is canonical")
		require.Equal(t, 1, got.DedupedCount)
		require.Len(t, got.MergedFrom, 1)
		require.Equal(t, "We use pnpm here", got.MergedFrom[0].Text)
		h, err := s.History(ctx, got.ID)
		require.NoError(t, err)
		require.Len(t, h, 2)
		require.Equal(t, store.EventFold, h[1].Event)
		require.Equal(t, "We use pnpm here", *h[1].BeforeText)
		require.Equal(t, "This repo uses pnpm", *h[1].AfterText)
	})

	t.Run("PinnedOrMoreConfidentKeepsItsText", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		w := NewWrite("p", "Deploys go through ArgoCD", Vec(3, 0))
		w.Confidence = 0.95
		first, err := s.Write(ctx, w)
		require.NoError(t, err)
		second, err := s.Write(ctx, NewWrite("p", "deploys use argo", Vec(3, 0.05)))
		require.NoError(t, err)
		require.True(t, second.Folded)
		require.Equal(t, "Deploys go through ArgoCD", second.Memory.Text)
		require.Equal(t, "deploys use argo", second.Memory.MergedFrom[0].Text)
		require.Equal(t, first.Memory.ID, second.Memory.ID)
	})

	t.Run("DistinctVetoFallsThroughToNextNeighbour", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		sibling, err := s.Write(ctx, NewWrite("p", "sibling", Vec(14, 0.02)))
		require.NoError(t, err)
		tw := NewWrite("p", "twin", Vec(14, 0.2))
		tw.FoldThreshold = -1
		twin, err := s.Write(ctx, tw)
		require.NoError(t, err)
		require.False(t, twin.Folded)
		w := NewWrite("p", "incoming", Vec(14, 0.05))
		w.FoldThreshold = 0.95
		w.Distinct = func(existing, _ string) bool { return existing == "sibling" }
		res, err := s.Write(ctx, w)
		require.NoError(t, err)
		require.True(t, res.Folded, "the vetoed nearest neighbour is skipped, the next one folds")
		require.Equal(t, twin.Memory.ID, res.Memory.ID)
		w = NewWrite("p", "another", Vec(14, 0.03))
		w.Distinct = func(string, string) bool { return true }
		res, err = s.Write(ctx, w)
		require.NoError(t, err)
		require.False(t, res.Folded, "every candidate vetoed: insert")
		require.NotEqual(t, sibling.Memory.ID, res.Memory.ID)
	})

	t.Run("MergedFromIsBounded", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		var id uuid.UUID
		for i := range 6 {
			res, err := s.Write(ctx, NewWrite("p", "variant "+string(rune('a'+i)), Vec(4, 0.01*float64(i))))
			require.NoError(t, err)
			id = res.Memory.ID
		}
		got, err := s.Get(ctx, id)
		require.NoError(t, err)
		require.Equal(t, 5, got.DedupedCount)
		require.Len(t, got.MergedFrom, 3)
		require.Equal(t, "variant e", got.MergedFrom[2].Text)
	})

	t.Run("DistinctFactsAndNegativeThresholdInsert", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		a, err := s.Write(ctx, NewWrite("p", "pnpm for installs", Vec(5, 0)))
		require.NoError(t, err)
		b, err := s.Write(ctx, NewWrite("p", "lockfile is committed", Vec(6, 0)))
		require.NoError(t, err)
		require.False(t, b.Folded)
		require.NotEqual(t, a.Memory.ID, b.Memory.ID)
		off := NewWrite("p", "pnpm for all installs", Vec(5, 0.01))
		off.FoldThreshold = -1
		c, err := s.Write(ctx, off)
		require.NoError(t, err)
		require.False(t, c.Folded, "a negative threshold turns semantic folding off")
	})

	t.Run("FoldNeverCrossesProjectsOrScopes", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		a, err := s.Write(ctx, NewWrite("project-a", "same fact", Vec(7, 0)))
		require.NoError(t, err)
		b, err := s.Write(ctx, NewWrite("project-b", "same fact", Vec(7, 0)))
		require.NoError(t, err)
		require.False(t, b.Folded)
		require.NotEqual(t, a.Memory.ID, b.Memory.ID)
		g := NewWrite("", "same fact", Vec(7, 0))
		g.Scope = store.ScopeGlobal
		gres, err := s.Write(ctx, g)
		require.NoError(t, err)
		require.False(t, gres.Folded)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(7, 0), Scopes: []store.ScopeRef{store.Project("project-a")}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		require.Equal(t, a.Memory.ID, hits[0].ID)
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: Vec(7, 0), Scopes: []store.ScopeRef{store.Project("project-a"), store.Global}, Limit: 10})
		require.NoError(t, err)
		require.Len(t, hits, 2)
	})

	t.Run("ConcurrentWritesOfOneFactEndInOneRow", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		const writers = 12
		var wg sync.WaitGroup
		ids := make(chan uuid.UUID, writers)
		errs := make(chan error, writers)
		for i := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Half identical text, half paraphrases with near-identical vectors.
				text := "tests need TZ=UTC"
				if i%2 == 1 {
					text = "the test suite needs TZ set to UTC " + string(rune('a'+i))
				}
				res, err := s.Write(ctx, NewWrite("p", text, Vec(8, 0.001*float64(i))))
				if err != nil {
					errs <- err
					return
				}
				ids <- res.Memory.ID
			}()
		}
		wg.Wait()
		close(ids)
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		seen := map[uuid.UUID]bool{}
		for id := range ids {
			seen[id] = true
		}
		require.Len(t, seen, 1, "every writer got the same canonical id")
		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 100})
		require.NoError(t, err)
		require.Len(t, live, 1)
		require.Equal(t, writers-1, live[0].DedupedCount)
	})

	t.Run("ArchiveRestoreAndHistory", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		res, err := s.Write(ctx, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0)))
		require.NoError(t, err)
		id := res.Memory.ID
		m, err := s.SetArchived(ctx, id, true, "obsolete", "alice")
		require.NoError(t, err)
		require.True(t, m.Archived())
		require.Equal(t, "obsolete", m.ArchivedReason)
		again, err := s.SetArchived(ctx, id, true, "obsolete", "alice")
		require.NoError(t, err, "archiving twice is idempotent")
		require.Equal(t, m.Seq, again.Seq)

		live, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}})
		require.NoError(t, err)
		require.Empty(t, live)
		hits, err := s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 5})
		require.NoError(t, err)
		require.Empty(t, hits, "archived rows are excluded unless asked")
		hits, err = s.Nearest(ctx, store.VectorQuery{Vector: Vec(9, 0), Scopes: []store.ScopeRef{store.Project("p")}, IncludeArchived: true, Limit: 5})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		archived, err := s.List(ctx, store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, OnlyArchived: true})
		require.NoError(t, err)
		require.Len(t, archived, 1)

		// While archived, the same text may be written again as a new live row; restoring the
		// old one would then duplicate it, which is refused.
		dup, err := s.Write(ctx, NewWrite("p", "staging db is pg-stage-2", Vec(9, 0)))
		require.NoError(t, err)
		require.False(t, dup.Folded)
		_, err = s.SetArchived(ctx, id, false, "", "alice")
		require.ErrorIs(t, err, store.ErrConflict)
		_, err = s.SetArchived(ctx, dup.Memory.ID, true, "dup", "alice")
		require.NoError(t, err)
		restored, err := s.SetArchived(ctx, id, false, "", "alice")
		require.NoError(t, err)
		require.False(t, restored.Archived())

		h, err := s.History(ctx, id)
		require.NoError(t, err)
		events := make([]store.Event, len(h))
		for i, e := range h {
			events[i] = e.Event
		}
		require.Equal(t, []store.Event{store.EventAdd, store.EventArchive, store.EventRestore}, events)
		require.Equal(t, "alice", h[1].Actor)
	})

	t.Run("PinUnpin", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		res, err := s.Write(ctx, NewWrite("p", "pin me", Vec(10, 0)))
		require.NoError(t, err)
		m, err := s.SetPinned(ctx, res.Memory.ID, true, "bob")
		require.NoError(t, err)
		require.True(t, m.Pinned)
		m, err = s.SetPinned(ctx, res.Memory.ID, false, "bob")
		require.NoError(t, err)
		require.False(t, m.Pinned)
		h, err := s.History(ctx, res.Memory.ID)
		require.NoError(t, err)
		require.Len(t, h, 3)
		_, err = s.SetPinned(ctx, uuid.Must(uuid.NewV7()), true, "bob")
		require.ErrorIs(t, err, store.ErrNotFound)
	})

	t.Run("ChangeFeedIsOrderedAndComplete", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := NewWrite("p"+string(rune('a'+i%4)), "fact "+string(rune('a'+i)), Vec(i, 0))
				w.FoldThreshold = -1 // axes wrap at Dims: keep all 20 rows
				_, err := s.Write(ctx, w)
				require.NoError(t, err)
			}()
		}
		wg.Wait()
		changes, err := s.Changes(ctx, 0, 1000)
		require.NoError(t, err)
		require.Len(t, changes, 20)
		for i := 1; i < len(changes); i++ {
			require.Greater(t, changes[i].Seq, changes[i-1].Seq)
		}
		last := changes[len(changes)-1].Seq
		_, err = s.SetArchived(ctx, changes[0].ID, true, "x", "t")
		require.NoError(t, err)
		more, err := s.Changes(ctx, last, 1000)
		require.NoError(t, err)
		require.Len(t, more, 1)
		require.True(t, more[0].Archived)
		require.NoError(t, s.RecordHits(ctx, map[uuid.UUID]int64{changes[1].ID: 2}))
		none, err := s.Changes(ctx, more[0].Seq, 1000)
		require.NoError(t, err)
		require.Empty(t, none, "hits do not advance the feed")
		m, err := s.Get(ctx, changes[1].ID)
		require.NoError(t, err)
		require.EqualValues(t, 2, m.HitCount)
		require.NotNil(t, m.LastHitAt)
	})

	t.Run("ExportImportRoundTrip", func(t *testing.T) {
		t.Parallel()
		src := setup(t)
		dst := setup(t)
		a, err := src.Write(ctx, NewWrite("p", "alpha", Vec(11, 0)))
		require.NoError(t, err)
		_, err = src.Write(ctx, NewWrite("p", "alpha, rephrased", Vec(11, 0.05)))
		require.NoError(t, err)
		b, err := src.Write(ctx, NewWrite("p", "beta", Vec(12, 0)))
		require.NoError(t, err)
		_, err = src.SetArchived(ctx, b.Memory.ID, true, "old", "t")
		require.NoError(t, err)
		_, err = src.Write(ctx, NewWrite("other", "not exported", Vec(13, 0)))
		require.NoError(t, err)

		var recs []store.ExportRecord
		require.NoError(t, src.Export(ctx, store.Project("p"), func(r store.ExportRecord) error { recs = append(recs, r); return nil }))
		require.Len(t, recs, 2)
		res, err := dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Inserted: 2}, res)
		res, err = dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Skipped: 2}, res, "import is idempotent")

		got, err := dst.Get(ctx, a.Memory.ID)
		require.NoError(t, err)
		want, err := src.Get(ctx, a.Memory.ID)
		require.NoError(t, err)
		require.Equal(t, want.Text, got.Text)
		require.Equal(t, want.MergedFrom[0].Text, got.MergedFrom[0].Text)
		require.Equal(t, want.DedupedCount, got.DedupedCount)
		require.True(t, want.CreatedAt.Equal(got.CreatedAt))
		hist, err := dst.History(ctx, a.Memory.ID)
		require.NoError(t, err)
		require.Len(t, hist, 3, "add + fold from the source, plus the import entry")
		archived, err := dst.Get(ctx, b.Memory.ID)
		require.NoError(t, err)
		require.True(t, archived.Archived())
		hits, err := dst.Nearest(ctx, store.VectorQuery{Vector: Vec(11, 0), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, a.Memory.ID, hits[0].ID, "vectors survive the round trip")
		changes, err := dst.Changes(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, changes, 2, "imported rows reach the change feed")
	})
	t.Run("ImportedRowsAreFoundBeforeAndAfterIndexing", func(t *testing.T) {
		t.Parallel()
		s := setup(t)
		const n = 300
		r := rand.New(rand.NewPCG(5, 6))
		recs := make([]store.ExportRecord, n)
		for i := range recs {
			w := NewWrite("p", fmt.Sprintf("imported fact %d", i), RandomVec(r))
			recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text,
				Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
		}
		_, err := s.Import(ctx, recs)
		require.NoError(t, err)
		// A store may defer the ANN index insertion of imported rows, but never their visibility.
		nearestIs := func(want store.ExportRecord) {
			t.Helper()
			hits, err := s.Nearest(ctx, store.VectorQuery{Vector: want.Vector, Scopes: []store.ScopeRef{store.Project("p")}, Limit: 3})
			require.NoError(t, err)
			require.NotEmpty(t, hits)
			require.Equal(t, want.Memory.ID, hits[0].ID)
			require.InDelta(t, 1, hits[0].Similarity, 1e-4)
		}
		nearestIs(recs[17])
		// A write of an imported fact's paraphrase folds into it while it is still deferred.
		fold, err := s.Write(ctx, NewWrite("p", "imported fact 5, reworded", recs[5].Vector))
		require.NoError(t, err)
		require.True(t, fold.Folded)
		require.Equal(t, recs[5].Memory.ID, fold.Memory.ID)

		before, err := s.Counts(ctx)
		require.NoError(t, err)
		require.LessOrEqual(t, before.ANNDeferred, int64(n))
		// Two indexers drain the queue together without doing a row twice.
		var mu sync.Mutex
		total := 0
		var wg sync.WaitGroup
		for range 2 {
			wg.Go(func() {
				for {
					moved, err := s.IndexDeferred(ctx, 7)
					if !assert.NoError(t, err) || moved == 0 {
						return
					}
					mu.Lock()
					total += moved
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		c, err := s.Counts(ctx)
		require.NoError(t, err)
		require.Zero(t, c.ANNDeferred)
		require.Equal(t, before.ANNDeferred, int64(total))
		moved, err := s.IndexDeferred(ctx, 10)
		require.NoError(t, err)
		require.Zero(t, moved)
		nearestIs(recs[17])
		nearestIs(recs[n-1])
		_, err = s.IndexDeferred(ctx, 0)
		require.Error(t, err, "limit must be positive")
	})
}
