package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
)

// Shared is the shared-layout round: the database, how it was loaded, and what an MCP client
// measured in each class of project.
type Shared struct {
	Layout     SharedLayout
	Sentences  int    // distinct prose sentences available
	ProseRoot  string // where they were read
	Import     ImportStats
	Drained    int           // imported rows moved out of the deferred queue
	DrainTime  time.Duration // by one indexer, before any scope had a graph
	GraphBuild time.Duration // IndexScopes on the loaded database
	Reused     bool          // the layout an earlier run kept (Config.ReuseShared): nothing loaded or built
	Prewarm    *Prewarm      // what Config.Prewarm loaded into shared_buffers; nil without it
	Boot       time.Duration // `memhost serve` start to ready (lexical index rebuilt from the feed)
	Classes    []SharedClass
	All        SharedClass // every class's calls together
	Recall     []SharedRecall
	Explain    []SharedExplain
	LoadAvg    [2]string // /proc/loadavg before and after the timed calls: the machine is shared
}

// SharedClass is one class of project, measured at the MCP client and on the server.
type SharedClass struct {
	Class          string
	Projects       int
	MinRows        int
	MaxRows        int
	Store          Latency // memory_store at the client
	StoreUnflushed Latency // the same on a host whose writes do not wait for their WAL flush (memory.flush_writes = false)
	Search         Latency // memory_search top 10 at the client
	StoreServer    ServerTime
	SearchServer   ServerTime
	EmbedServer    ServerTime // the plugin's Embed calls during the class's calls
	Nearest        Latency    // store.Nearest alone, as search calls it
	Folded         int        // restatements that folded (they should)
	Paraphrases    int        // restatements written
	WALBytes       int64      // WAL written while the class's stores ran (the host's background work included)
	Lookups        int        // searches that ran the nearest-neighbour lookup (the rest skipped it)
	OtherFolds     int        // new facts (held out of the layout) that folded into another statement
	SearchSelfHit  int        // searches whose source fact came back in the top 10
	// What ran beside the class's calls and can make a tail: the host's garbage collections
	// (and their stop-the-world pauses), the rows its background indexer moved into graphs,
	// and Postgres's checkpoints.
	GCs         int
	GCPause     time.Duration
	Indexed     int
	Checkpoints int
	HeapInuse   int64 // the host's heap in use after the calls
}

// SharedExplain is EXPLAIN ANALYZE of search's nearest-neighbour query in one project.
type SharedExplain struct {
	Project string
	Rows    int
	Class   string
	Plan    string
}

// metric names read from the host.
const (
	metricStore  = "memhost_memory_store_duration_seconds"
	metricSearch = "memhost_memory_search_duration_seconds"
	metricPlugin = "memhost_plugin_call_duration_seconds"
	metricLookup = "memhost_memory_search_vector_lookups_total"
	// Read as counters and gauges: the full name of a summary's _count and _sum series.
	metricGCs      = "go_gc_duration_seconds_count"
	metricGCPause  = "go_gc_duration_seconds_sum"
	metricIndexed  = "memhost_ann_deferred_indexed_total"
	metricHeapUsed = "go_memstats_heap_inuse_bytes"
)

var scraped = map[string]string{metricStore: "", metricSearch: "", metricPlugin: `method="Embed"`, metricLookup: `outcome="ran"`,
	metricGCs: "", metricGCPause: "", metricIndexed: "", metricHeapUsed: ""}

// measureShared runs the shared-layout round in a fresh schema.
func measureShared(ctx context.Context, cfg Config, emb embedder.Embedder, info embedder.Info, p progress) (Shared, error) {
	return measureSharedThen(ctx, cfg, emb, info, p, nil)
}

// measureSharedThen is measureShared, running then (when not nil) on the loaded layout after
// the round, before the schema is released.
func measureSharedThen(ctx context.Context, cfg Config, emb embedder.Embedder, info embedder.Info, p progress,
	then func(pool *pgxpool.Pool, st *pgstore.Store, projects []*sharedProject) error) (Shared, error) {
	var res Shared
	res.ProseRoot = cfg.ProseRoot
	text, err := loadProse(cfg.ProseRoot)
	if err != nil {
		return res, err
	}
	res.Sentences = len(text.sentences)
	plan := sharedLayout(cfg.SharedTotal, cfg.Seed)
	projects := make([]*sharedProject, len(plan))
	res.Layout = SharedLayout{GraphMinRows: pgstore.DefaultGraphMinRows, ByClass: map[string]int{}}
	for i := range plan {
		plan[i].prose = text.project(cfg.Seed + uint64(i))
		plan[i].fresh = plan[i].prose.hold(sharedHeld)
		projects[i] = &plan[i]
		res.Layout.Total += plan[i].size
		res.Layout.Sizes = append(res.Layout.Sizes, plan[i].size)
		res.Layout.ByClass[plan[i].class]++
	}
	p.logf("shared: %d memories in %d projects (large %d, median %d, smallest %d); %d prose sentences from %s",
		res.Layout.Total, len(plan), plan[0].size, plan[len(plan)/2].size, plan[len(plan)-1].size, res.Sentences, cfg.ProseRoot)

	pool, st, release, err := loadSharedLayout(ctx, cfg, "bench_shared", emb, info, projects, &res, p)
	if err != nil {
		return res, err
	}
	defer release()
	if cfg.Prewarm {
		pw, err := prewarm(ctx, pool)
		if err != nil {
			return res, err
		}
		res.Prewarm = &pw
		p.logf("shared: prewarmed %d pages (%s) into shared_buffers in %s", pw.Pages, humanMiB(pw.Bytes), pw.Took.Round(time.Millisecond))
	}

	home, cleanup, err := newHostHome(ctx, pool, "shared")
	if err != nil {
		return res, err
	}
	defer cleanup()
	dir, token := home.dir, home.agent
	r := rand.New(rand.NewPCG(cfg.Seed, 0xc1a55))
	dbURL := withSearchPath(cfg.DatabaseURL, "bench_shared")
	start := time.Now()
	host, err := startHost(ctx, cfg.HostPath, dbURL, filepath.Dir(cfg.PluginPath), dir)
	if err != nil {
		return res, err
	}
	res.Boot = time.Since(start)
	p.logf("shared: memhost ready in %s; timing %d stores and %d searches per class through MCP", res.Boot.Round(time.Millisecond), cfg.SharedOps, cfg.SharedOps)
	res.LoadAvg[0] = loadAvg()
	res.Classes, res.All, err = measureClasses(ctx, host, token, pool, st, emb, info, projects, cfg.SharedOps, r, p)
	host.stop()
	if err != nil {
		return res, err
	}
	res.LoadAvg[1] = loadAvg()

	// The same calls on a host whose writes do not wait for their WAL flush, the trade an
	// operator may opt into: what the default's durability costs.
	if host, err = startHostWith(ctx, cfg.HostPath, dbURL, filepath.Dir(cfg.PluginPath), dir, "[memory]\nflush_writes = false\n"); err != nil {
		return res, err
	}
	unflushed, unflushedAll, err := measureClasses(ctx, host, token, pool, st, emb, info, projects, cfg.SharedOps, r, p)
	host.stop()
	if err != nil {
		return res, fmt.Errorf("flush_writes = false: %w", err)
	}
	for i := range res.Classes {
		res.Classes[i].StoreUnflushed = unflushed[i].Store
	}
	res.All.StoreUnflushed = unflushedAll.Store

	for _, pr := range []*sharedProject{largest(projects, classLarge), largest(projects, classGraph), largest(projects, classExact)} {
		if pr == nil {
			continue
		}
		queries, err := projectQueries(ctx, emb, info, pr, recallQueries, r)
		if err != nil {
			return res, err
		}
		var sweep []int
		if pr.class == classLarge {
			sweep = efSweep
		}
		rec, err := sharedRecall(ctx, pool, st, info, pr, queries, sweep)
		if err != nil {
			return res, err
		}
		p.logf("shared: recall@10 in %s (%d rows, %s): %.3f", pr.key, pr.size, pr.class, rec.Recall)
		res.Recall = append(res.Recall, rec)
		ex, err := explainNearest(ctx, pool, info, pr, queries[0])
		if err != nil {
			return res, err
		}
		res.Explain = append(res.Explain, ex)
	}
	if then != nil {
		return res, then(pool, st, projects)
	}
	return res, nil
}

// loadSharedLayout loads the layout into a fresh schema (bench_shared for the shared round), moves it out of the
// deferred queue and builds the scope graphs, recording the times in res; with
// Config.ReuseShared it opens the schema an earlier run kept and only replays the generator, so
// the workload asks about the facts that are there. release closes the pool and, unless
// Config.KeepShared or ReuseShared asks to keep it, drops the schema.
func loadSharedLayout(ctx context.Context, cfg Config, schema string, emb embedder.Embedder, info embedder.Info, projects []*sharedProject, res *Shared, p progress) (pool *pgxpool.Pool, st *pgstore.Store, release func(), err error) {
	if cfg.ReuseShared {
		if pool, err = openSchema(ctx, cfg.DatabaseURL, schema); err != nil {
			return nil, nil, nil, err
		}
		var rows int
		if err := pool.QueryRow(ctx, "SELECT count(*) FROM memories").Scan(&rows); err != nil {
			pool.Close()
			return nil, nil, nil, fmt.Errorf("reuse shared layout: %w", err)
		}
		if rows < res.Layout.Total {
			pool.Close()
			return nil, nil, nil, fmt.Errorf("reuse shared layout: schema bench_shared holds %d memories, the layout %d (run with -keep-shared first)", rows, res.Layout.Total)
		}
		res.Reused = true
		if _, err := loadShared(ctx, nil, nil, info, projects, importOptions{batch: cfg.ImportBatch, workers: 1, replay: true}); err != nil {
			pool.Close()
			return nil, nil, nil, err
		}
		if err := dropStoredFresh(ctx, pool, projects); err != nil {
			pool.Close()
			return nil, nil, nil, err
		}
		p.logf("shared: reusing the kept layout (%d memories)", rows)
		return pool, pgstore.New(pool), pool.Close, nil
	}
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, schema)
	if err != nil {
		return nil, nil, nil, err
	}
	release = drop
	if cfg.KeepShared {
		release = pool.Close
	}
	fail := func(err error) (*pgxpool.Pool, *pgstore.Store, func(), error) {
		release()
		return nil, nil, nil, err
	}
	st = pgstore.New(pool)
	if err := st.EnsureVectorIndex(ctx, info.Name, info.Dimensions); err != nil {
		return fail(err)
	}
	step := max(res.Layout.Total/10, cfg.ImportBatch)
	next := step
	res.Import, err = loadShared(ctx, st, emb, info, projects, importOptions{batch: cfg.ImportBatch, workers: cfg.ImportWorkers,
		onBatch: func(done int) {
			if done >= next {
				p.logf("shared: imported %d/%d", done, res.Layout.Total)
				next += step
			}
		}})
	if err != nil {
		return fail(err)
	}
	p.logf("shared: import %.0f memories/s; draining what waits for the indexer, building graphs", res.Import.Rate())
	if res.Drained, res.DrainTime, err = drainDeferred(ctx, st); err != nil {
		return fail(err)
	}
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE memories, memory_vectors"); err != nil {
		return fail(fmt.Errorf("vacuum: %w", err))
	}
	start := time.Now()
	if res.Layout.Graphs, err = st.IndexScopes(ctx); err != nil {
		return fail(err)
	}
	res.GraphBuild = time.Since(start)
	// The build leaves gigabytes of dirty pages; their checkpoint would otherwise land in the
	// timed calls, a cost of the bulk load rather than of steady use.
	if _, err := pool.Exec(ctx, "ANALYZE memories, memory_vectors; CHECKPOINT"); err != nil {
		return fail(fmt.Errorf("analyze and checkpoint: %w", err))
	}
	p.logf("shared: deferred queue drained in %s; %d scope graphs built in %s", res.DrainTime.Round(time.Millisecond),
		res.Layout.Graphs, res.GraphBuild.Round(time.Millisecond))
	return pool, st, release, nil
}

// probe is what measureClass reads of the host and the cluster around each phase.
type probe struct {
	metrics     map[string]histogram // the host's (scraped)
	wal         int64                // walPosition
	checkpoints int                  // checkpoints
}

// probeHost reads h's metrics, then the cluster's WAL position and checkpoint count.
func probeHost(ctx context.Context, h *benchHost, pool *pgxpool.Pool) (p probe, err error) {
	if p.metrics, err = h.scrape(ctx, scraped); err != nil {
		return p, err
	}
	if p.wal, err = walPosition(ctx, pool); err != nil {
		return p, err
	}
	p.checkpoints, err = checkpoints(ctx, pool)
	return p, err
}

// checkpoints is how many checkpoints the cluster has begun since its statistics were reset.
func checkpoints(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var n int
	if err := pool.QueryRow(ctx, `SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read checkpoints: %w", err)
	}
	return n, nil
}

// walPosition is how many bytes of WAL the cluster has written: what commits cost to flush.
// It is the WAL insert position, which every backend advances at once (pg_stat_wal's counters
// reach the view only when each backend next reports its statistics, up to seconds later).
func walPosition(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var n int64
	if err := pool.QueryRow(ctx, `SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::bigint`).Scan(&n); err != nil {
		return 0, fmt.Errorf("read the WAL position: %w", err)
	}
	return n, nil
}

// dropStoredFresh removes from each project's held-out facts those that the timed writes of
// an earlier run on the kept layout stored, so that every timed write stays a new fact. It
// first checks that the layout holds the facts this code would have loaded: one kept by
// other code or another -seed replays other facts, and its queries and restatements would
// not match the rows.
func dropStoredFresh(ctx context.Context, pool *pgxpool.Pool, projects []*sharedProject) error {
	for _, p := range projects {
		sample := make([]string, 0, 5)
		for _, f := range p.facts[:min(5, len(p.facts))] {
			sample = append(sample, f.Text)
		}
		held, err := storedTexts(ctx, pool, p.key, sample)
		if err != nil {
			return err
		}
		if len(held) < len(sample) {
			return fmt.Errorf("reuse shared layout: project %s lacks %d of %d sampled facts: the schema was kept by other code or another -seed; build it again with -keep-shared", p.key, len(sample)-len(held), len(sample))
		}
		texts := make([]string, len(p.fresh))
		for i, f := range p.fresh {
			texts[i] = f.Text
		}
		done, err := storedTexts(ctx, pool, p.key, texts)
		if err != nil {
			return err
		}
		p.fresh = slices.DeleteFunc(p.fresh, func(f Fact) bool { return done[f.Text] })
	}
	return nil
}

// storedTexts is which of texts project key holds, as a memory's text or as one a memory
// absorbed: a restatement that folds into a fact becomes the memory's text and the fact's
// moves to merged_from.
func storedTexts(ctx context.Context, pool *pgxpool.Pool, key string, texts []string) (map[string]bool, error) {
	rows, err := pool.Query(ctx, `SELECT DISTINCT t FROM memories m, LATERAL (SELECT m.text
			UNION ALL SELECT e->>'text' FROM jsonb_array_elements(COALESCE(m.metadata->'merged_from', '[]')) e) x(t)
		WHERE m.scope = 'project' AND m.scope_key = $1 AND x.t = ANY($2)`, key, texts)
	if err != nil {
		return nil, fmt.Errorf("reuse shared layout: texts of project %s: %w", key, err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("reuse shared layout: texts of project %s: %w", key, err)
	}
	held := make(map[string]bool, len(stored))
	for _, t := range stored {
		held[t] = true
	}
	return held, nil
}

// measureClasses connects to the host and measures every class of project in turn; it
// returns each class and all of them together.
// sharedWarmup is how many untimed searches every project gets before the timed calls.
const sharedWarmup = 5

func measureClasses(ctx context.Context, host *benchHost, token string, pool *pgxpool.Pool, st store.Store, emb embedder.Embedder, info embedder.Info, projects []*sharedProject, ops int, r *rand.Rand, p progress) ([]SharedClass, SharedClass, error) {
	var classes []SharedClass
	var all SharedClass
	var allStore, allSearch []time.Duration
	var allServer [3]histogram // store, search, embed
	if err := host.connect(ctx, token); err != nil {
		return nil, all, err
	}
	// Untimed calls across every project first, so no class pays for the host's cold caches
	// and first query plans on behalf of the others: a host that has served its projects for a
	// while has their graphs' upper layers and entry regions in Postgres's cache.
	for i := range sharedWarmup {
		for _, pr := range projects {
			if err := host.call(ctx, mcpserver.ToolSearch, map[string]any{"query": pr.facts[i%len(pr.facts)].Query, "project": pr.key, "top_k": 10}, nil); err != nil {
				return nil, all, err
			}
		}
	}
	for _, class := range []string{classExact, classGraph, classLarge} {
		var members []*sharedProject
		for _, pr := range projects {
			if pr.class == class {
				members = append(members, pr)
			}
		}
		if len(members) == 0 {
			continue
		}
		c, server, stores, searches, err := measureClass(ctx, host, pool, st, emb, info, class, members, ops, r)
		if err != nil {
			return nil, all, fmt.Errorf("class %s: %w\n%s", class, err, host.tail())
		}
		p.logf("shared: %s (%d projects): store p50 %s p99 %s; search p50 %s p99 %s; Nearest p50 %s", class, c.Projects,
			c.Store.P50, c.Store.P99, c.Search.P50, c.Search.P99, c.Nearest.P50)
		classes = append(classes, c)
		allStore, allSearch = append(allStore, stores...), append(allSearch, searches...)
		all.Folded += c.Folded
		all.OtherFolds += c.OtherFolds
		all.Lookups += c.Lookups
		all.GCs += c.GCs
		all.GCPause += c.GCPause
		all.Indexed += c.Indexed
		all.Checkpoints += c.Checkpoints
		all.HeapInuse = c.HeapInuse
		all.WALBytes += c.WALBytes
		all.Paraphrases += c.Paraphrases
		all.SearchSelfHit += c.SearchSelfHit
		all.Projects += c.Projects
		for i := range allServer {
			allServer[i] = allServer[i].plus(server[i])
		}
	}
	all.Class, all.Store, all.Search = "all", summarize(allStore), summarize(allSearch)
	all.StoreServer, all.SearchServer, all.EmbedServer = allServer[0].summary(), allServer[1].summary(), allServer[2].summary()
	return classes, all, nil
}

// largest is the class's largest project, or nil.
func largest(projects []*sharedProject, class string) *sharedProject {
	var best *sharedProject
	for _, p := range projects {
		if p.class == class && (best == nil || p.size > best.size) {
			best = p
		}
	}
	return best
}

// measureClass times ops stores, then ops searches, each in a project of the class picked at
// random, through MCP, and reads the host's histograms around each phase.
// It returns the host's store, search and Embed histograms of the class's calls, and the
// client times of its stores and searches.
func measureClass(ctx context.Context, h *benchHost, pool *pgxpool.Pool, st store.Store, emb embedder.Embedder, info embedder.Info, class string, members []*sharedProject, ops int, r *rand.Rand) (c SharedClass, server [3]histogram, stores, searches []time.Duration, err error) {
	c = SharedClass{Class: class, Projects: len(members), MinRows: members[0].size, MaxRows: members[0].size}
	for _, m := range members {
		c.MinRows, c.MaxRows = min(c.MinRows, m.size), max(c.MaxRows, m.size)
	}
	before, err := probeHost(ctx, h, pool)
	if err != nil {
		return c, server, nil, nil, err
	}
	stores = make([]time.Duration, 0, ops)
	for range ops {
		m := members[r.IntN(len(members))]
		text, kind := "", store.KindFact
		// One write in seven restates a fact the project holds, as a later session re-learns it.
		restatement := r.IntN(7) == 0
		if restatement {
			f := m.facts[r.IntN(len(m.facts))]
			text, kind = f.Paraphrase, f.Kind
			c.Paraphrases++
		} else {
			if len(m.fresh) == 0 {
				return c, server, nil, nil, fmt.Errorf("project %s: no new facts left for timed writes; earlier runs stored them in the kept layout, so build it again with -keep-shared", m.key)
			}
			f := m.fresh[0]
			m.fresh = m.fresh[1:]
			text, kind = f.Text, f.Kind
		}
		var out memory.StoreResult
		t := time.Now()
		err := h.call(ctx, mcpserver.ToolStore, map[string]any{"text": text, "kind": string(kind), "project": m.key, "agent": "bench"}, &out)
		stores = append(stores, time.Since(t))
		if err != nil {
			return c, server, nil, nil, err
		}
		switch {
		case out.Folded && restatement:
			c.Folded++
		case out.Folded:
			// A new fact folded into a different statement the project holds.
			c.OtherFolds++
		}
	}
	mid, err := probeHost(ctx, h, pool)
	if err != nil {
		return c, server, nil, nil, err
	}
	c.WALBytes = mid.wal - before.wal
	searches = make([]time.Duration, 0, ops)
	var queries []classQuery
	for range ops {
		m := members[r.IntN(len(members))]
		f := m.facts[r.IntN(len(m.facts))]
		var out mcpserver.SearchOutput
		t := time.Now()
		err := h.call(ctx, mcpserver.ToolSearch, map[string]any{"query": f.Query, "project": m.key, "top_k": 10}, &out)
		searches = append(searches, time.Since(t))
		if err != nil {
			return c, server, nil, nil, err
		}
		for _, hit := range out.Hits {
			if hit.Text == f.Text {
				c.SearchSelfHit++
				break
			}
		}
		if len(queries) < 50 {
			queries = append(queries, classQuery{project: m.key, text: f.Query})
		}
	}
	after, err := probeHost(ctx, h, pool)
	if err != nil {
		return c, server, nil, nil, err
	}
	c.Store, c.Search = summarize(stores), summarize(searches)
	server = [3]histogram{mid.metrics[metricStore].since(before.metrics[metricStore]), after.metrics[metricSearch].since(mid.metrics[metricSearch]), after.metrics[metricPlugin].since(before.metrics[metricPlugin])}
	c.StoreServer, c.SearchServer, c.EmbedServer = server[0].summary(), server[1].summary(), server[2].summary()
	c.Lookups = int(after.metrics[metricLookup].since(mid.metrics[metricLookup]).count)
	c.GCs = int(after.metrics[metricGCs].since(before.metrics[metricGCs]).count)
	c.GCPause = seconds(after.metrics[metricGCPause].since(before.metrics[metricGCPause]).count)
	c.Indexed = int(after.metrics[metricIndexed].since(before.metrics[metricIndexed]).count)
	c.HeapInuse = int64(after.metrics[metricHeapUsed].count)
	c.Checkpoints = after.checkpoints - before.checkpoints

	texts := make([]string, len(queries))
	for i, q := range queries {
		texts[i] = q.text
	}
	vecs, err := embedAll(ctx, emb, info, embedder.PurposeQuery, texts)
	if err != nil {
		return c, server, nil, nil, err
	}
	for i := range queries {
		queries[i].vector = vecs[i]
	}
	if c.Nearest, err = nearestByClass(ctx, st, info, queries); err != nil {
		return c, server, nil, nil, err
	}
	return c, server, stores, searches, nil
}

// projectQueries embeds n questions about a project's facts.
func projectQueries(ctx context.Context, emb embedder.Embedder, info embedder.Info, p *sharedProject, n int, r *rand.Rand) ([]classQuery, error) {
	qs := make([]classQuery, n)
	texts := make([]string, n)
	for i := range qs {
		texts[i] = p.facts[r.IntN(len(p.facts))].Query
		qs[i] = classQuery{project: p.key, text: texts[i]}
	}
	vecs, err := embedAll(ctx, emb, info, embedder.PurposeQuery, texts)
	if err != nil {
		return nil, err
	}
	for i := range qs {
		qs[i].vector = vecs[i]
	}
	return qs, nil
}

// vectorLiteral matches the query vector inlined in a plan, which would drown it.
var vectorLiteral = regexp.MustCompile(`'\[[^\]]*\]'`)

// explainNearest runs EXPLAIN (ANALYZE, BUFFERS) of the nearest-neighbour query search sends
// for a project (its scope and the global scope, the fact kinds, the candidate pool), with
// the settings store.Nearest uses.
func explainNearest(ctx context.Context, pool *pgxpool.Pool, info embedder.Info, p *sharedProject, q classQuery) (SharedExplain, error) {
	ex := SharedExplain{Project: p.key, Rows: p.size, Class: p.class}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, fmt.Sprintf("SET LOCAL plan_cache_mode = force_generic_plan; SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = %d", pgstore.DefaultEfSearch)); err != nil {
			return err
		}
		sql, args := pgstore.NearestSQL(store.VectorQuery{Vector: store.Vector{Embedder: info.Name, Dimensions: info.Dimensions, Values: q.vector},
			Scopes: []store.ScopeRef{store.Project(p.key), store.Global}, Kinds: store.Kinds, Limit: memory.DefaultConfig().CandidatePool})
		rows, err := tx.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "+sql, args...)
		if err != nil {
			return err
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return err
		}
		for i, l := range lines {
			lines[i] = vectorLiteral.ReplaceAllString(l, "'[…]'")
		}
		ex.Plan = strings.Join(lines, "\n")
		return nil
	})
	if err != nil {
		return ex, fmt.Errorf("explain nearest in %s: %w", p.key, err)
	}
	return ex, nil
}

// loadAvg is the first three fields of /proc/loadavg, or "" where there is none.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// Prewarm is what pg_prewarm loaded before the timed calls.
type Prewarm struct {
	Pages int64         // blocks read into shared_buffers
	Bytes int64         // the size of the relations they belong to
	Took  time.Duration // from disk or the OS cache, whichever held them
}

// prewarm loads the memories table and every index on it into shared_buffers, as a Postgres
// sized to hold them keeps them (autoprewarm reloads them after a restart). It reports the
// pages read; a shared_buffers smaller than the relations keeps only the last of them.
func prewarm(ctx context.Context, pool *pgxpool.Pool) (Prewarm, error) {
	var pw Prewarm
	if _, err := pool.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS pg_prewarm WITH SCHEMA public"); err != nil {
		return pw, fmt.Errorf("prewarm: create extension pg_prewarm: %w", err)
	}
	start := time.Now()
	err := pool.QueryRow(ctx, `SELECT coalesce(sum(public.pg_prewarm(r.oid)), 0), coalesce(sum(pg_relation_size(r.oid)), 0)
		FROM (SELECT oid FROM pg_class WHERE oid IN ('memories'::regclass, 'memory_vectors'::regclass)
			UNION ALL SELECT indexrelid FROM pg_index WHERE indrelid IN ('memories'::regclass, 'memory_vectors'::regclass)) r`).Scan(&pw.Pages, &pw.Bytes)
	if err != nil {
		return pw, fmt.Errorf("prewarm: %w", err)
	}
	pw.Took = time.Since(start)
	return pw, nil
}

// humanMiB renders a byte count in MiB.
func humanMiB(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) }
