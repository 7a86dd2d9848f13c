package bench

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/sync/errgroup"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
)

// The shared layout: where memhost is really used, one database holds many projects of very
// different sizes, and an agent sees the time at its MCP client. measureShared loads such a
// database through the COPY import path, starts a real `memhost serve` on it and times
// memory_store and memory_search through the official MCP Go SDK client over streamable
// HTTP, per class of project, beside the server's own /metrics histograms.

// SharedProjects is how many projects share the database besides the large one.
const SharedProjects = 100

// sharedLargeShare is the large project's share of all memories: 100K of 1M.
const sharedLargeShare = 0.10

// Project classes: how a project's nearest-neighbour lookups are answered.
const (
	classExact = "exact" // fewer rows than pgstore.DefaultGraphMinRows: exact scan of its rows
	classGraph = "graph" // a graph of its own
	classLarge = "large" // the one large project (a graph of its own)
)

// sharedProject is one project of the layout.
type sharedProject struct {
	key   string
	size  int
	class string
	prose *proseProject
	facts []Fact // a uniform sample of its loaded facts, for queries and paraphrases
	fresh []Fact // facts held out of the layout, which the timed writes store as new ones
}

// sharedHeld is how many facts each project holds out of its layout for timed writes: three
// runs (the first and two -reuse-shared) of two passes of the default 200 writes. It is fixed,
// not derived from -shared-ops, because holding facts out changes what the layout holds, and a
// reused layout must be the one the flags describe.
const sharedHeld = 1200

// sharedSample is how many loaded facts each project keeps for the workload.
const sharedSample = 300

// SharedLayout describes the loaded database.
type SharedLayout struct {
	Total        int   // memories loaded
	Sizes        []int // memories per project, largest first (the large project first)
	GraphMinRows int   // pgstore's graph size
	Graphs       int   // scope graphs built
	ByClass      map[string]int
}

// sharedLayout sizes the projects: the large one holds sharedLargeShare of total, and the
// SharedProjects others share the rest with log-normal weights (median about a third of the
// mean, so most projects are small and a few are large), each below 60% of the large one and
// at least 5 memories. The sizes add up to total.
func sharedLayout(total int, seed uint64) []sharedProject {
	r := rand.New(rand.NewPCG(seed, 0x1a7))
	large := int(math.Round(float64(total) * sharedLargeShare))
	weights := make([]float64, SharedProjects)
	for i := range weights {
		weights[i] = math.Exp(1.4 * r.NormFloat64())
	}
	slices.Sort(weights)
	slices.Reverse(weights)
	// Projects over the cap are held at it and the rest is shared again among the others.
	limit, floor := large*6/10, 5
	sizes := make([]int, SharedProjects)
	fixed := make([]bool, SharedProjects)
	for range SharedProjects {
		budget, sum := total-large, 0.0
		for i, w := range weights {
			if fixed[i] {
				budget -= sizes[i]
			} else {
				sum += w
			}
		}
		capped := false
		for i, w := range weights {
			if fixed[i] {
				continue
			}
			sizes[i] = max(floor, int(math.Round(float64(budget)*w/sum)))
			if sizes[i] > limit {
				sizes[i], fixed[i], capped = limit, true, true
			}
		}
		if !capped {
			break
		}
	}
	// Rounding leaves a few memories over or short: the largest uncapped project takes them.
	diff := total - large
	for _, n := range sizes {
		diff -= n
	}
	for i := range sizes {
		if !fixed[i] {
			sizes[i] += diff
			break
		}
	}
	out := []sharedProject{{key: "github.com/bench-org/monorepo", size: large, class: classLarge}}
	for i, n := range sizes {
		class := classExact
		if n >= pgstore.DefaultGraphMinRows {
			class = classGraph
		}
		out = append(out, sharedProject{key: fmt.Sprintf("github.com/bench-org/repo-%03d", i+1), size: n, class: class})
	}
	return out
}

// loadShared embeds every project's facts through the plugin and loads them with store.Import
// (COPY into a staging table, then one INSERT ... SELECT per batch). Projects are interleaved
// in small runs, so each project's rows are spread over the table as months of writes to
// many projects leave them, not stored side by side as one import of one project would.
func loadShared(ctx context.Context, st store.Store, e embedder.Embedder, info embedder.Info, projects []*sharedProject, opt importOptions) (ImportStats, error) {
	total := 0
	for _, p := range projects {
		total += p.size
	}
	stats := ImportStats{Rows: total, Batch: opt.batch, Workers: opt.workers}
	base := time.Now().UTC().Add(-time.Duration(total) * time.Minute)
	r := rand.New(rand.NewPCG(uint64(total), 0x10ad))
	batches := make(chan []store.ExportRecord, 1)
	start := time.Now()
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(batches)
		left := make([]int, len(projects))
		seen := make([]int, len(projects))
		queued := 0 // rows handed to the importers, for creation times
		for i, p := range projects {
			left[i] = p.size
		}
		var facts []Fact
		var owner []int
		flush := func() error {
			if len(facts) == 0 {
				return nil
			}
			if opt.replay {
				queued += len(facts)
				facts, owner = facts[:0], owner[:0]
				return nil
			}
			recs, took, err := embedRecords(gctx, e, info, facts, func(i int) string { return projects[owner[i]].key }, base.Add(time.Duration(queued)*time.Minute))
			if err != nil {
				return err
			}
			stats.EmbedBusy += took
			queued += len(facts)
			facts, owner = facts[:0], owner[:0]
			select {
			case batches <- recs:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		for remaining := total; remaining > 0; {
			for i, p := range projects {
				// About fifty runs per project over the whole load.
				for range min(left[i], max(1, p.size/50)) {
					f, ok := p.prose.fact()
					if !ok {
						return fmt.Errorf("project %s: the prose ran out after %d facts", p.key, p.size-left[i])
					}
					left[i]--
					remaining--
					seen[i]++
					// Reservoir sampling keeps a uniform sample of the project's facts.
					if len(p.facts) < sharedSample {
						p.facts = append(p.facts, f)
					} else if j := r.IntN(seen[i]); j < sharedSample {
						p.facts[j] = f
					}
					facts, owner = append(facts, f), append(owner, i)
					if len(facts) == opt.batch {
						if err := flush(); err != nil {
							return err
						}
					}
				}
			}
		}
		return flush()
	})
	startImporters(gctx, g, st, batches, opt, &stats)
	if err := g.Wait(); err != nil {
		return stats, fmt.Errorf("load shared layout: %w", err)
	}
	stats.Wall = time.Since(start)
	return stats, nil
}

// nearestByClass times store.Nearest as search calls it (the project and global scopes, the
// fact kinds, the candidate pool) for the query vectors of one class's projects: the vector
// path alone, without MCP, embedding, BM25 or loading.
func nearestByClass(ctx context.Context, st store.Store, info embedder.Info, queries []classQuery) (Latency, error) {
	durs := make([]time.Duration, 0, len(queries))
	pool := memory.DefaultConfig().CandidatePool
	for _, q := range queries {
		start := time.Now()
		if _, err := st.Nearest(ctx, store.VectorQuery{Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: q.vector},
			Scopes: []store.ScopeRef{store.Project(q.project), store.Global}, Kinds: store.Kinds, Limit: pool}); err != nil {
			return Latency{}, err
		}
		durs = append(durs, time.Since(start))
	}
	return summarize(durs), nil
}

// classQuery is one query vector aimed at one project.
type classQuery struct {
	project string
	text    string
	vector  []float32
}

// SharedRecall is ANN recall in one project of the shared layout.
type SharedRecall struct {
	Project      string
	Rows         int
	Class        string
	Queries      int
	Recall       float64 // tie-aware, as in Scale.Recall
	RecallStrict float64
	ByEf         []EfRecall
}

// sharedRecall compares store.Nearest (the project's graph, or its exact scan) with an exact
// top 10 from the same SQL with index scans disabled, for queries of one project.
func sharedRecall(ctx context.Context, pool *pgxpool.Pool, st store.Store, info embedder.Info, p *sharedProject, queries []classQuery, sweep []int) (SharedRecall, error) {
	res := SharedRecall{Project: p.key, Rows: p.size, Class: p.class, Queries: len(queries)}
	qs := make([]store.VectorQuery, len(queries))
	exacts := make([][]store.VectorHit, len(queries))
	for i, q := range queries {
		qs[i] = store.VectorQuery{Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: q.vector},
			Scopes: []store.ScopeRef{store.Project(p.key)}, Limit: recallK}
		var err error
		if exacts[i], err = exactNearest(ctx, pool, qs[i]); err != nil {
			return res, err
		}
	}
	for i, q := range qs {
		ann, err := st.Nearest(ctx, q)
		if err != nil {
			return res, err
		}
		f, fs := recallAt(ann, exacts[i], recallK)
		res.Recall += f / float64(len(qs))
		res.RecallStrict += fs / float64(len(qs))
	}
	for _, ef := range sweep {
		row, err := efRecall(ctx, pgstore.New(pool, pgstore.WithEfSearch(ef)), ef, qs, exacts)
		if err != nil {
			return res, err
		}
		res.ByEf = append(res.ByEf, row)
	}
	return res, nil
}
