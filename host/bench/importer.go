package bench

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/sdk/embedder"
)

// ImportStats is one bulk load: wall time, and the busy time of each stage summed over
// batches, so the report can say whether embedding or COPY plus index maintenance dominates.
type ImportStats struct {
	Rows       int
	Inserted   int
	Batch      int
	Workers    int
	Wall       time.Duration // first embed to last commit
	EmbedBusy  time.Duration // time inside Embed calls
	ImportBusy time.Duration // time inside store.Import calls (COPY, insert, history, feed seqs)
}

// Rate is memories per second of wall time.
func (s ImportStats) Rate() float64 { return float64(s.Rows) / s.Wall.Seconds() }

// EmbedRate is memories per second of embedding alone.
func (s ImportStats) EmbedRate() float64 { return float64(s.Rows) / s.EmbedBusy.Seconds() }

// ImportRate is memories per second of store.Import alone, across its workers.
func (s ImportStats) ImportRate() float64 {
	return float64(s.Rows) / (s.ImportBusy.Seconds() / float64(s.Workers))
}

type importOptions struct {
	batch, workers int
	onBatch        func(done int) // progress after each committed batch
	// replay draws the facts as a load would, for a layout an earlier run left in place, and
	// neither embeds nor imports them (loadShared only).
	replay bool
}

// bulkImport embeds facts through the plugin and loads them into one project with
// store.Import, the bulk path (COPY into a staging table, then one INSERT ... SELECT). Embedding
// of the next batch overlaps the import of the previous one, as a streaming importer would.
func bulkImport(ctx context.Context, st store.Store, e embedder.Embedder, info embedder.Info, project string, facts []Fact, opt importOptions) (ImportStats, error) {
	stats := ImportStats{Rows: len(facts), Batch: opt.batch, Workers: opt.workers}
	base := time.Now().UTC().Add(-time.Duration(len(facts)) * time.Minute)
	batches := make(chan []store.ExportRecord, 1)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		for lo := 0; lo < len(facts); lo += opt.batch {
			hi := min(lo+opt.batch, len(facts))
			recs, took, err := embedRecords(gctx, e, info, facts[lo:hi], func(int) string { return project }, base.Add(time.Duration(lo)*time.Minute))
			if err != nil {
				return err
			}
			stats.EmbedBusy += took
			select {
			case batches <- recs:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	startImporters(gctx, g, st, batches, opt, &stats)
	if err := g.Wait(); err != nil {
		return stats, fmt.Errorf("bulk import: %w", err)
	}
	stats.Wall = time.Since(start)
	return stats, nil
}

// embedRecords embeds facts and returns them as import records, fact i in project key(i) and
// created a minute after fact i-1, the first at first: creation spread over the past, so that
// recency ranking sees a realistic age mix. took is the time the embedding took.
func embedRecords(ctx context.Context, e embedder.Embedder, info embedder.Info, facts []Fact, key func(i int) string, first time.Time) (recs []store.ExportRecord, took time.Duration, err error) {
	texts := make([]string, len(facts))
	for i, f := range facts {
		texts[i] = f.Text
	}
	start := time.Now()
	vecs, err := embedAll(ctx, e, info, embedder.PurposeDocument, texts)
	if err != nil {
		return nil, 0, err
	}
	took = time.Since(start)
	recs = make([]store.ExportRecord, len(vecs))
	for i, v := range vecs {
		at := first.Add(time.Duration(i) * time.Minute)
		recs[i] = store.ExportRecord{
			Memory: store.Memory{ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: key(i), Kind: facts[i].Kind,
				Text: facts[i].Text, Importance: 0.5, Confidence: 0.8, Embedder: info.Name, CreatedAt: at, UpdatedAt: at,
				Provenance: store.Provenance{Agent: "bench", Source: "import"}},
			Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: v},
		}
	}
	return recs, took, nil
}

// startImporters starts opt.workers loaders in g, each loading batches with store.Import until
// the channel closes; they add their busy time and inserted rows to stats and report progress
// through opt.onBatch.
func startImporters(ctx context.Context, g *errgroup.Group, st store.Store, batches <-chan []store.ExportRecord, opt importOptions, stats *ImportStats) {
	var mu sync.Mutex
	done := 0
	for range opt.workers {
		g.Go(func() error {
			for recs := range batches {
				t := time.Now()
				res, err := st.Import(ctx, recs)
				if err != nil {
					return err
				}
				mu.Lock()
				stats.ImportBusy += time.Since(t)
				stats.Inserted += res.Inserted
				done += len(recs)
				if opt.onBatch != nil {
					opt.onBatch(done)
				}
				mu.Unlock()
			}
			return nil
		})
	}
}

// embedAll embeds texts in chunks the embedder accepts.
func embedAll(ctx context.Context, e embedder.Embedder, info embedder.Info, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += info.MaxBatch {
		v, err := e.Embed(ctx, purpose, texts[lo:min(lo+info.MaxBatch, len(texts))])
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out = append(out, v...)
	}
	return out, nil
}

// drainBatch is how many rows drainDeferred moves per IndexDeferred call: nothing else runs
// while it drains, so it takes larger steps than a host's paced indexer.
const drainBatch = 200

// drainDeferred moves every imported row into the ANN index with one worker, as one host's
// background indexer does, and returns how many rows it moved and how long that took.
func drainDeferred(ctx context.Context, st store.Store) (int, time.Duration, error) {
	start := time.Now()
	total := 0
	for {
		n, err := st.IndexDeferred(ctx, drainBatch)
		if err != nil {
			return total, time.Since(start), err
		}
		if n == 0 {
			return total, time.Since(start), nil
		}
		total += n
	}
}
