package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
)

// The workload of one size round.
const (
	storeNew        = 500
	storeParaphrase = 100
	searchQueries   = 500
	recallQueries   = 100
	recallK         = 10
	// deferredQueries are the Nearest calls timed right after the import, before the graph.
	deferredQueries = 20
)

// Scale is one size round: N memories in one project.
type Scale struct {
	N      int
	Import ImportStats
	// Drained rows were moved into the ANN index by one background indexer in DrainTime.
	Drained   int
	DrainTime time.Duration
	// GraphBuild is IndexScopes giving the project its own HNSW graph after the drain.
	GraphBuild time.Duration
	// DeferredNearest is Nearest latency while every imported row awaits the index (exact scan).
	DeferredNearest Latency
	LexicalLoad     time.Duration // following the change feed into the BM25 index, as at boot
	Store           Latency       // all writes
	StoreNew        Latency       // new distinct facts
	StorePara       Latency       // paraphrases of stored facts
	NewFolded       int           // new facts that folded into a neighbour anyway
	ParaFolded      int           // paraphrases that folded into their original's neighbourhood
	Search          Latency
	SearchSelfHit   int     // searches whose generating fact came back in the top 10
	Recall          float64 // ANN top-10 vs exact, counting ties at the 10th distance as found
	RecallStrict    float64 // same, by id only
	// EfSearch is the walk width the store gives the project's graph (pgstore: wider in larger graphs).
	EfSearch int
	// RecallByEf is recall and Nearest latency at other hnsw.ef_search settings.
	RecallByEf    []EfRecall
	RecallQueries int
	HitErrors     int // background hit recording failures
	Banner        BannerBench
	LoadAvg       [2]string // /proc/loadavg before the timed stores and after the timed searches
}

func measureScale(ctx context.Context, cfg Config, emb embedder.Embedder, info embedder.Info, n int, p progress) (Scale, error) {
	s := Scale{N: n}
	project := "github.com/bench/project-" + fmt.Sprint(n)
	corpus := NewCorpus(cfg.Seed)
	facts := corpus.Take(n)

	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, fmt.Sprintf("bench_n%d", n))
	if err != nil {
		return s, err
	}
	defer drop()
	st := pgstore.New(pool)
	// The host registers its embedder at boot; imported rows are searched exactly until the
	// project has a graph of its own.
	if err := st.EnsureVectorIndex(ctx, info.Name, info.Dimensions); err != nil {
		return s, err
	}
	p.logf("N=%d: importing (batch %d, %d workers, HNSW index present)", n, cfg.ImportBatch, cfg.ImportWorkers)
	step := max(n/10, cfg.ImportBatch)
	next := step
	s.Import, err = bulkImport(ctx, st, emb, info, project, facts, importOptions{batch: cfg.ImportBatch, workers: cfg.ImportWorkers,
		onBatch: func(done int) {
			if done >= next || done == n {
				p.logf("N=%d: imported %d/%d", n, done, n)
				next += step
			}
		}})
	if err != nil {
		return s, err
	}
	p.logf("N=%d: import %.0f memories/s (embed busy %s, import busy %s, wall %s)", n, s.Import.Rate(),
		s.Import.EmbedBusy.Round(time.Millisecond), s.Import.ImportBusy.Round(time.Millisecond), s.Import.Wall.Round(time.Millisecond))
	if _, err := pool.Exec(ctx, "ANALYZE memories, memory_vectors"); err != nil {
		return s, fmt.Errorf("analyze: %w", err)
	}
	if s.DeferredNearest, err = timeNearest(ctx, st, emb, info, project, facts[:deferredQueries]); err != nil {
		return s, err
	}
	p.logf("N=%d: Nearest p50 %s with every imported row scanned exactly (no graph yet)", n, s.DeferredNearest.P50)
	if s.Drained, s.DrainTime, err = drainDeferred(ctx, st); err != nil {
		return s, err
	}
	p.logf("N=%d: background indexer moved %d rows into the ANN index in %s", n, s.Drained, s.DrainTime.Round(time.Millisecond))
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE memories, memory_vectors"); err != nil {
		return s, fmt.Errorf("analyze: %w", err)
	}
	// The project's own graph, as a host's background builds it once the project is large.
	t0 := time.Now()
	if _, err := st.IndexScopes(ctx); err != nil {
		return s, err
	}
	s.GraphBuild = time.Since(t0)
	if _, err := pool.Exec(ctx, "ANALYZE memories, memory_vectors"); err != nil {
		return s, fmt.Errorf("analyze: %w", err)
	}
	p.logf("N=%d: the project's graph built in %s", n, s.GraphBuild.Round(time.Millisecond))

	ix := lexical.New()
	t := time.Now()
	if _, err := lexical.NewFollower(st, ix, time.Second).CatchUp(ctx); err != nil {
		return s, err
	}
	s.LexicalLoad = time.Since(t)

	r := rand.New(rand.NewPCG(cfg.Seed, uint64(n)))
	if err := measureRecall(ctx, pool, st, emb, info, project, facts, r, &s); err != nil {
		return s, err
	}
	p.logf("N=%d: recall@10 %.3f (ids only %.3f)", n, s.Recall, s.RecallStrict)

	var hitErrs errCounter
	svc := memory.New(st, ix, memory.Fixed(emb), cfg.Redact, memory.DefaultConfig(), memory.WithErrorHandler(hitErrs.add))
	stopRecorder := runHitRecorder(ctx, svc)
	a := memory.Access{Project: project, Actor: "bench"}
	// One untimed search pays for describing the embedder and the index lookup the service
	// caches, which happen once per host, not per call.
	if _, err := svc.Search(ctx, a, memory.SearchRequest{Query: facts[0].Query}); err != nil {
		stopRecorder()
		return s, err
	}
	s.LoadAvg[0] = loadAvg()
	if err := measureStore(ctx, svc, a, corpus, facts, r, &s); err != nil {
		stopRecorder()
		return s, err
	}
	p.logf("N=%d: store p50 %s p99 %s", n, s.Store.P50, s.Store.P99)
	if err := measureSearch(ctx, svc, a, facts, r, &s); err != nil {
		stopRecorder()
		return s, err
	}
	s.LoadAvg[1] = loadAvg()
	p.logf("N=%d: search p50 %s p99 %s", n, s.Search.P50, s.Search.P99)
	if s.Banner, err = measureBanner(ctx, st, svc, project); err != nil {
		stopRecorder()
		return s, err
	}
	p.logf("N=%d: banner fetch p50 %s, render p99 %s", n, s.Banner.Fetch.P50, s.Banner.Render.P99)
	stopRecorder()
	s.HitErrors = hitErrs.n
	return s, nil
}

// timeNearest times Nearest for the queries of facts, the vector path of a search.
func timeNearest(ctx context.Context, st store.Store, emb embedder.Embedder, info embedder.Info, project string, facts []Fact) (Latency, error) {
	texts := make([]string, len(facts))
	for i, f := range facts {
		texts[i] = f.Query
	}
	vecs, err := embedAll(ctx, emb, info, embedder.PurposeQuery, texts)
	if err != nil {
		return Latency{}, err
	}
	durs := make([]time.Duration, 0, len(vecs))
	for _, v := range vecs {
		start := time.Now()
		if _, err := st.Nearest(ctx, store.VectorQuery{Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: v},
			Scopes: []store.ScopeRef{store.Project(project)}, Limit: recallK}); err != nil {
			return Latency{}, err
		}
		durs = append(durs, time.Since(start))
	}
	return summarize(durs), nil
}

func measureStore(ctx context.Context, svc *memory.Service, a memory.Access, corpus *Corpus, facts []Fact, r *rand.Rand, s *Scale) error {
	type write struct {
		text string
		kind store.Kind
		para bool
	}
	writes := make([]write, 0, storeNew+storeParaphrase)
	for _, f := range corpus.Take(storeNew) {
		writes = append(writes, write{text: f.Text, kind: f.Kind})
	}
	for range storeParaphrase {
		f := facts[r.IntN(len(facts))]
		writes = append(writes, write{text: f.Paraphrase, kind: f.Kind, para: true})
	}
	// Interleave paraphrases with new facts, as agents' writes arrive.
	r.Shuffle(len(writes), func(i, j int) { writes[i], writes[j] = writes[j], writes[i] })
	var all, fresh, para []time.Duration
	for _, w := range writes {
		t := time.Now()
		res, err := svc.Store(ctx, a, memory.StoreRequest{Text: w.text, Kind: string(w.kind), Agent: "bench"})
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		d := time.Since(t)
		all = append(all, d)
		if w.para {
			para = append(para, d)
			if res.Folded {
				s.ParaFolded++
			}
		} else {
			fresh = append(fresh, d)
			if res.Folded {
				s.NewFolded++
			}
		}
	}
	s.Store, s.StoreNew, s.StorePara = summarize(all), summarize(fresh), summarize(para)
	return nil
}

func measureSearch(ctx context.Context, svc *memory.Service, a memory.Access, facts []Fact, r *rand.Rand, s *Scale) error {
	samples := make([]time.Duration, searchQueries)
	for i := range samples {
		f := facts[r.IntN(len(facts))]
		t := time.Now()
		hits, err := svc.Search(ctx, a, memory.SearchRequest{Query: f.Query, TopK: 10})
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		samples[i] = time.Since(t)
		for _, h := range hits.Hits {
			if h.Text == f.Text {
				s.SearchSelfHit++
				break
			}
		}
	}
	s.Search = summarize(samples)
	return nil
}

// measureRecall compares the store's ANN path (store.Nearest: HNSW with iterative scan) with an
// exact top-10 from a sequential scan running the same SQL with index scans disabled.
func measureRecall(ctx context.Context, pool *pgxpool.Pool, st *pgstore.Store, emb embedder.Embedder, info embedder.Info, project string, facts []Fact, r *rand.Rand, s *Scale) error {
	texts := make([]string, recallQueries)
	for i := range texts {
		texts[i] = facts[r.IntN(len(facts))].Query
	}
	vecs, err := embedAll(ctx, emb, info, embedder.PurposeQuery, texts)
	if err != nil {
		return err
	}
	exacts := make([][]store.VectorHit, len(vecs))
	queries := make([]store.VectorQuery, len(vecs))
	for i, v := range vecs {
		queries[i] = store.VectorQuery{Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: v},
			Scopes: []store.ScopeRef{store.Project(project)}, Limit: recallK}
		if exacts[i], err = exactNearest(ctx, pool, queries[i]); err != nil {
			return err
		}
	}
	var found, foundStrict float64
	for i, q := range queries {
		ann, err := st.Nearest(ctx, q)
		if err != nil {
			return err
		}
		f, fs := recallAt(ann, exacts[i], recallK)
		found += f
		foundStrict += fs
	}
	if s.EfSearch, err = st.EfSearch(ctx, queries[0]); err != nil {
		return err
	}
	s.RecallQueries = len(vecs)
	s.Recall = found / float64(len(vecs))
	s.RecallStrict = foundStrict / float64(len(vecs))
	for _, ef := range efSweep {
		row, err := efRecall(ctx, pgstore.New(pool, pgstore.WithEfSearch(ef), pgstore.WithFixedEfSearch()), ef, queries, exacts)
		if err != nil {
			return err
		}
		s.RecallByEf = append(s.RecallByEf, row)
	}
	return nil
}

// efRecall measures alt, a store searching at hnsw.ef_search ef: the share of the exact top
// recallK of each query (exacts, in queries' order) its Nearest finds, and its latency.
func efRecall(ctx context.Context, alt *pgstore.Store, ef int, queries []store.VectorQuery, exacts [][]store.VectorHit) (EfRecall, error) {
	row := EfRecall{EfSearch: ef}
	var durs []time.Duration
	for i, q := range queries {
		start := time.Now()
		ann, err := alt.Nearest(ctx, q)
		if err != nil {
			return row, err
		}
		durs = append(durs, time.Since(start))
		f, _ := recallAt(ann, exacts[i], recallK)
		row.Recall += f / float64(len(queries))
	}
	row.Latency = summarize(durs)
	return row, nil
}

// efSweep are the hnsw.ef_search values whose recall and latency the report compares.
var efSweep = []int{100, 200, 400, 600, 1000}

// EfRecall is ANN recall and Nearest latency at one hnsw.ef_search.
type EfRecall struct {
	EfSearch int
	Recall   float64
	Latency  Latency
}

// tieEpsilon is how close two cosine similarities must be to count as a tie.
const tieEpsilon = 1e-6

// recallAt is the share of the exact top k the ANN result found. The tie-aware value counts an
// ANN hit as correct when its similarity reaches the exact k-th similarity: synthetic texts
// from one template often tie, and which of several equidistant rows comes back is arbitrary.
func recallAt(ann, exact []store.VectorHit, k int) (tieAware, strict float64) {
	if len(exact) == 0 {
		return 1, 1
	}
	want := min(k, len(exact))
	kth := exact[want-1].Similarity
	ids := map[uuid.UUID]bool{}
	for _, h := range exact[:want] {
		ids[h.ID] = true
	}
	var hit, hitStrict int
	for _, h := range ann[:min(len(ann), want)] {
		if ids[h.ID] {
			hitStrict++
			hit++
		} else if h.Similarity >= kth-tieEpsilon {
			hit++
		}
	}
	return float64(hit) / float64(want), float64(hitStrict) / float64(want)
}

// exactNearest runs the ANN query with index and bitmap scans disabled, so Postgres scans every
// row of the embedder and sorts by true distance.
func exactNearest(ctx context.Context, pool *pgxpool.Pool, q store.VectorQuery) ([]store.VectorHit, error) {
	var out []store.VectorHit
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SET LOCAL enable_indexscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL plan_cache_mode = force_custom_plan"); err != nil {
			return err
		}
		sql, args := pgstore.NearestSQL(q)
		rows, err := tx.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var h store.VectorHit
			if err := rows.Scan(&h.ID, &h.Similarity); err != nil {
				return err
			}
			out = append(out, h)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("exact nearest: %w", err)
	}
	return out, nil
}

// errCounter counts background errors the service reports.
type errCounter struct {
	mu sync.Mutex
	n  int
}

func (c *errCounter) add(error) {
	c.mu.Lock()
	c.n++
	c.mu.Unlock()
}
