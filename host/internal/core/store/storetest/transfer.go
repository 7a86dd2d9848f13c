package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseTransfer runs export and import: a lossless round trip, large projects with history,
// all-or-nothing batches, and imported rows found before and after indexing.
func exerciseTransfer(t *testing.T, k *kit) {
	ctx := k.ctx
	t.Run("ExportImportRoundTrip", func(t *testing.T) {
		t.Parallel()
		src := k.setup(t)
		dst := k.setup(t)
		a := k.insert(t, src, NewWrite("p", "alpha", Vec(11, 0)))
		k.locked(t, src, "p", func(tx store.ScopeTx) error {
			_, err := tx.Fold(ctx, store.FoldParams{ID: a.ID, Kind: a.Kind, Importance: a.Importance, Confidence: a.Confidence,
				DedupedCount: 1, MergedFrom: []store.Merged{{Text: "alpha", At: time.Now().UTC()}},
				Replacement: &store.Replacement{Text: "alpha, rephrased", Vector: Vec(11, 0.05)}, Before: "alpha", After: "alpha, rephrased"})
			return err
		})
		b := k.insert(t, src, NewWrite("p", "beta", Vec(12, 0)))
		_, err := src.SetArchived(ctx, store.ArchiveParams{ID: b.ID, Archived: true, Reason: "old", Actor: "t"})
		require.NoError(t, err)
		k.insert(t, src, NewWrite("other", "not exported", Vec(13, 0)))

		var recs []store.ExportRecord
		require.NoError(t, src.Export(ctx, store.Project("p"), func(r store.ExportRecord) error { recs = append(recs, r); return nil }))
		require.Len(t, recs, 2)
		res, err := dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Inserted: 2}, res)
		res, err = dst.Import(ctx, recs)
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Skipped: 2}, res, "import is idempotent")

		got, err := dst.Get(ctx, a.ID)
		require.NoError(t, err)
		want, err := src.Get(ctx, a.ID)
		require.NoError(t, err)
		require.Equal(t, want.Text, got.Text)
		require.Equal(t, want.MergedFrom[0].Text, got.MergedFrom[0].Text)
		require.Equal(t, want.DedupedCount, got.DedupedCount)
		require.True(t, want.CreatedAt.Equal(got.CreatedAt))
		hist, err := dst.History(ctx, a.ID)
		require.NoError(t, err)
		require.Len(t, hist, 3, "add + fold from the source, plus the import entry")
		archived, err := dst.Get(ctx, b.ID)
		require.NoError(t, err)
		require.True(t, archived.Archived())
		hits, err := dst.Nearest(ctx, store.VectorQuery{Vector: Vec(11, 0.05), Scopes: []store.ScopeRef{store.Project("p")}, Limit: 1})
		require.NoError(t, err)
		require.Equal(t, a.ID, hits[0].ID, "vectors survive the round trip")
		require.InDelta(t, 1, hits[0].Similarity, 1e-4)
		changes, err := dst.Changes(ctx, 0, 10)
		require.NoError(t, err)
		require.Len(t, changes, 2, "imported rows reach the change feed")
	})

	k.run(t, "ExportsLargeProjectsWithHistory", func(t *testing.T, s store.Store) {
		recs := importRecords("p", 1234, 3)
		_, err := s.Import(ctx, recs)
		require.NoError(t, err)
		var got []store.ExportRecord
		require.NoError(t, s.Export(ctx, store.Project("p"), func(r store.ExportRecord) error { got = append(got, r); return nil }))
		require.Len(t, got, len(recs))
		for i, r := range got {
			require.Equal(t, recs[i].Memory.ID, r.Memory.ID, "in creation order")
			require.Len(t, r.History, 4, "three copied entries and the import entry")
			require.Equal(t, recs[i].Vector.Values, r.Vector.Values)
		}
	})

	k.run(t, "ImportBatchesIsAllOrNothing", func(t *testing.T, s store.Store) {
		recs := importRecords("p", 30, 1)
		for name, fail := range map[string]store.ExportRecord{
			"the source fails":           {},
			"the store refuses a record": {Memory: recs[0].Memory, Vector: store.Vector{Embedder: Embedder, Dimensions: Dims, Values: []float32{1}}},
		} {
			_, err := s.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) {
				if !yield(recs[:10], nil) || !yield(recs[10:20], nil) {
					return
				}
				if fail.Memory.ID == uuid.Nil {
					yield(nil, errors.New("file went away"))
					return
				}
				yield([]store.ExportRecord{fail}, nil)
			})
			require.Error(t, err, name)
			c, err := s.Counts(ctx)
			require.NoError(t, err)
			require.Zero(t, c.Live+c.Archived, "%s: the batches before the failure are rolled back", name)
		}
		res, err := s.ImportBatches(ctx, func(yield func([]store.ExportRecord, error) bool) {
			_ = yield(recs[:10], nil) && yield(recs[10:], nil)
		})
		require.NoError(t, err)
		require.Equal(t, store.ImportResult{Inserted: 30}, res)
	})

	k.run(t, "ImportedRowsAreFoundBeforeAndAfterIndexing", func(t *testing.T, s store.Store) {
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
		// A write may fold into an imported fact while it is still deferred.
		k.locked(t, s, "p", func(tx store.ScopeTx) error {
			c, err := tx.Lookup(ctx, "a new text", recs[5].Vector, []uuid.UUID{recs[5].Memory.ID, recs[6].Memory.ID})
			require.NoError(t, err)
			got := c.Neighbours
			require.Equal(t, recs[5].Memory.ID, got[0].ID)
			_, err = tx.Fold(ctx, store.FoldParams{ID: got[0].ID, Kind: got[0].Kind, DedupedCount: 1,
				Before: got[0].Text, After: got[0].Text})
			return err
		})

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
