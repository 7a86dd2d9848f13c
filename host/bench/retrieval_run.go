package bench

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
)

// Names of the systems a retrieval run compares.
const (
	SystemMemhost = "memhost"    // memory.Service.Search: the real read path
	SystemBM25    = "plain BM25" // Okapi BM25 (k1 1.2, b 0.75), same texts and tokenizer, nothing else
)

// RetrievalOptions tune a retrieval run.
type RetrievalOptions struct {
	// Filler is how many synthetic memories (see Corpus) each evaluated project holds besides
	// its written facts, aged up to a year: a project used for months holds far more memories
	// than anyone asks about, and they compete for the top 10.
	Filler      int
	Seed        uint64 // filler corpus seed
	ImportBatch int    // records per store.Import call for the filler; 0 means 2000
}

// RetrievalResult is one run of the retrieval benchmark.
type RetrievalResult struct {
	// Questions counts the in-file questions (dev and test); the blind ones are
	// Systems[i].Blind.N.
	Projects, Facts, Questions   int
	Filler                       int // synthetic memories per evaluated project
	DistractorFacts, GlobalFacts int
	Folded                       int // facts that folded into another memory when stored
	// Leaks counts hits from a project other than the one searched: isolation says zero.
	Leaks   int
	Systems []SystemResult // SystemMemhost, then SystemBM25
	// Recall@10 of memhost against plain BM25 on the same questions (paired bootstrap):
	// the absolute difference and the relative gain, on all in-file questions, on the
	// held-out test half only and on the blind questions.
	Diff, Gain, TestDiff, TestGain, BlindDiff, BlindGain Interval
}

// SystemResult is one system's scores. All, ByCategory and the stale counts cover the in-file
// questions (dev and test), so the headline stays comparable whether or not a blind set is
// present; Blind is empty (N = 0) without one.
type SystemResult struct {
	Name                  string
	All, Dev, Test, Blind Scores
	ByCategory            []CategoryScores
	// Questions with superseded facts, and how many of them ranked one above the current fact.
	WithStale, StaleFirst int
}

// CategoryScores are the scores of one question category.
type CategoryScores struct {
	Category string
	Scores
}

// Retrieval stores the set in the migrated database behind pool (every fact through
// memory.Service.Store, as agents write them, then backdated to its age), asks every question
// of the evaluated projects through memory.Service.Search top 10, asks the same questions of
// plain Okapi BM25 over the same texts, and scores both.
func Retrieval(ctx context.Context, pool *pgxpool.Pool, e embedder.Embedder, redact memory.RedactFunc, set RetrievalSet, opt RetrievalOptions) (RetrievalResult, error) {
	res := RetrievalResult{Filler: opt.Filler}
	l, err := loadRetrieval(ctx, pool, e, redact, set, opt, &res)
	if err != nil {
		return res, err
	}
	svc, ix, memOf, stop, bg := l.svc, l.ix, l.memOf, l.stop, l.bg
	var mem, base []questionScore
	var cats, splits []string
	for _, p := range set.Projects {
		scopes := []store.ScopeRef{store.Project(p.Project), store.Global}
		a := memory.Access{Project: p.Project, Actor: "bench"}
		for _, q := range p.Questions {
			want, stale := q.labels(memOf)
			r, err := svc.Search(ctx, a, memory.SearchRequest{Query: q.Query, TopK: retrievalDepth})
			if err != nil {
				stop()
				return res, fmt.Errorf("search %s: %w", q.ID, err)
			}
			ranked := make([]string, len(r.Hits))
			for i, h := range r.Hits {
				ranked[i] = h.ID.String()
				if h.Scope == store.ScopeProject && h.Project != p.Project {
					res.Leaks++
				}
			}
			mem = append(mem, scoreRanking(ranked, want, stale))
			lex := ix.Search(lexical.Query{Text: q.Query, Scopes: scopes, Kinds: store.Kinds, Limit: retrievalDepth})
			ranked = ranked[:0]
			for _, h := range lex {
				ranked = append(ranked, h.ID.String())
			}
			base = append(base, scoreRanking(ranked, want, stale))
			cats, splits = append(cats, q.Category), append(splits, q.Split())
		}
	}
	stop()
	if bg.n > 0 {
		return res, errors.New("retrieval: background hit recording failed")
	}
	res.Systems = []SystemResult{systemResult(SystemMemhost, mem, cats, splits), systemResult(SystemBM25, base, cats, splits)}
	res.Diff, res.Gain = pairedGain(mem, base, indices(len(mem), func(i int) bool { return splits[i] != SplitBlind }))
	res.TestDiff, res.TestGain = pairedGain(mem, base, indices(len(mem), func(i int) bool { return splits[i] == SplitTest }))
	res.BlindDiff, res.BlindGain = pairedGain(mem, base, indices(len(mem), func(i int) bool { return splits[i] == SplitBlind }))
	return res, nil
}

// loadedSet is a retrieval set stored as Retrieval stores it: the read path's service with its
// hit recorder running (stop stops it), its lexical index, each fact's memory id (memOf), and
// the count of background errors.
type loadedSet struct {
	svc   *memory.Service
	st    *pgstore.Store
	ix    *lexical.Index
	memOf map[string]string
	stop  func()
	bg    *errCounter
}

// loadRetrieval stores set in the migrated database behind pool: opt.Filler synthetic memories
// per evaluated project, then every fact through memory.Service.Store, backdated to its age.
func loadRetrieval(ctx context.Context, pool *pgxpool.Pool, e embedder.Embedder, redact memory.RedactFunc, set RetrievalSet, opt RetrievalOptions, res *RetrievalResult) (loadedSet, error) {
	info, err := e.Describe(ctx)
	if err != nil {
		return loadedSet{}, fmt.Errorf("describe embedder: %w", err)
	}
	l := loadedSet{st: pgstore.New(pool), ix: lexical.New(), bg: &errCounter{}}
	if err := l.st.EnsureVectorIndex(ctx, info.Name, info.Dimensions); err != nil {
		return loadedSet{}, err
	}
	if err := loadFiller(ctx, pool, l.st, e, info, set, opt); err != nil {
		return loadedSet{}, err
	}
	if _, err := lexical.NewFollower(l.st, l.ix, time.Second).CatchUp(ctx); err != nil {
		return loadedSet{}, err
	}
	l.svc = memory.New(l.st, l.ix, memory.Fixed(e), redact, memory.DefaultConfig(), memory.WithErrorHandler(l.bg.add))
	l.stop = runHitRecorder(ctx, l.svc)
	if l.memOf, err = storeRetrievalFacts(ctx, pool, l.svc, set, res); err != nil {
		l.stop()
		return loadedSet{}, err
	}
	return l, nil
}

// labels are the memories that answer q and those it names as superseded (stale), by the
// memory ids memOf gave the facts: a fact that folded is answered by the row it folded into.
func (q RetrievalQuestion) labels(memOf map[string]string) (want, stale map[string]bool) {
	want, stale = map[string]bool{}, map[string]bool{}
	for _, id := range q.Relevant {
		want[memOf[id]] = true
	}
	for _, id := range q.Stale {
		if m := memOf[id]; !want[m] {
			stale[m] = true
		}
	}
	return want, stale
}

// measureRetrieval runs the retrieval benchmark of cfg, each filler size in a fresh schema.
func measureRetrieval(ctx context.Context, cfg Config, emb embedder.Embedder, p progress) ([]RetrievalResult, error) {
	if cfg.RetrievalDir == "" {
		return nil, nil
	}
	set, err := LoadRetrievalSet(cfg.RetrievalDir)
	if err != nil {
		return nil, err
	}
	fillers := []int{0}
	if cfg.RetrievalFiller > 0 {
		fillers = append(fillers, cfg.RetrievalFiller)
	}
	var out []RetrievalResult
	for _, filler := range fillers {
		pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_retrieval")
		if err != nil {
			return out, err
		}
		res, err := Retrieval(ctx, pool, emb, cfg.Redact, set, RetrievalOptions{Filler: filler, Seed: cfg.Seed + 2, ImportBatch: cfg.ImportBatch})
		drop()
		if err != nil {
			return out, fmt.Errorf("retrieval with %d filler memories: %w", filler, err)
		}
		p.logf("retrieval (%d filler): recall@10 %.3f vs plain BM25 %.3f (%+.1f%%)", filler, res.Systems[0].All.Recall10.Mean, res.Systems[1].All.Recall10.Mean, 100*res.Gain.Mean)
		out = append(out, res)
	}
	return out, nil
}

// loadFiller bulk-imports opt.Filler synthetic memories into every evaluated project and ages
// them evenly over the past year (a fixed function of the id, so reruns match).
func loadFiller(ctx context.Context, pool *pgxpool.Pool, st store.Store, e embedder.Embedder, info embedder.Info, set RetrievalSet, opt RetrievalOptions) error {
	if opt.Filler <= 0 {
		return nil
	}
	batch := opt.ImportBatch
	if batch <= 0 {
		batch = 2000
	}
	corpus := NewCorpus(opt.Seed)
	for _, p := range set.Projects {
		if p.Role != RoleEvaluated {
			continue
		}
		if _, err := bulkImport(ctx, st, e, info, p.Project, corpus.Take(opt.Filler), importOptions{batch: batch, workers: 1}); err != nil {
			return fmt.Errorf("filler for %s: %w", p.Project, err)
		}
	}
	if _, _, err := drainDeferred(ctx, st); err != nil {
		return err
	}
	if _, err := pool.Exec(ctx, `UPDATE memories SET created_at = now() - make_interval(days => 1 + abs(hashtext(id::text)) % 365),
		updated_at = now() - make_interval(days => 1 + abs(hashtext(id::text)) % 365)`); err != nil {
		return fmt.Errorf("age filler: %w", err)
	}
	return nil
}

// storeRetrievalFacts writes every fact of the set oldest first, as a project accumulates them,
// then backdates each memory to the age of the youngest fact it holds. It returns the memory
// id of each fact: a fact that folded is answered by the row it folded into.
func storeRetrievalFacts(ctx context.Context, pool *pgxpool.Pool, svc *memory.Service, set RetrievalSet, res *RetrievalResult) (map[string]string, error) {
	type pending struct {
		fact RetrievalFact
		proj RetrievalProject
	}
	var all []pending
	for _, p := range set.Projects {
		for _, f := range p.Facts {
			all = append(all, pending{f, p})
		}
		switch p.Role {
		case RoleEvaluated:
			res.Projects++
			res.Facts += len(p.Facts)
			res.Questions += p.inFileQuestions()
		case RoleDistractor:
			res.DistractorFacts += len(p.Facts)
		case RoleGlobal:
			res.GlobalFacts += len(p.Facts)
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].fact.AgeDays > all[j].fact.AgeDays })

	memOf := make(map[string]string, len(all))
	age := map[uuid.UUID]int{}
	for _, x := range all {
		a := memory.Access{Project: x.proj.Project, Actor: "bench"}
		req := memory.StoreRequest{Text: x.fact.Text, Kind: x.fact.Kind, Agent: "bench"}
		if x.proj.Role == RoleGlobal {
			a.Admin, req.Scope = true, string(store.ScopeGlobal)
		}
		r, err := svc.Store(ctx, a, req)
		if err != nil {
			return nil, fmt.Errorf("store fact %s: %w", x.fact.ID, err)
		}
		if r.Folded {
			res.Folded++
		}
		memOf[x.fact.ID] = r.ID.String()
		age[r.ID] = x.fact.AgeDays // oldest first, so the last write is the youngest
	}
	ids, days := make([]uuid.UUID, 0, len(age)), make([]int32, 0, len(age))
	for id, d := range age {
		ids, days = append(ids, id), append(days, int32(d))
	}
	if _, err := pool.Exec(ctx, `UPDATE memories m SET created_at = now() - make_interval(days => a.days),
		updated_at = now() - make_interval(days => a.days)
		FROM unnest($1::uuid[], $2::int[]) AS a(id, days) WHERE m.id = a.id`, ids, days); err != nil {
		return nil, fmt.Errorf("backdate facts: %w", err)
	}
	return memOf, nil
}

func systemResult(name string, scores []questionScore, cats, splits []string) SystemResult {
	inFile := func(i int) bool { return splits[i] != SplitBlind }
	s := SystemResult{Name: name,
		All:   summarise(scores, indices(len(scores), inFile)),
		Dev:   summarise(scores, indices(len(scores), func(i int) bool { return splits[i] == SplitDev })),
		Test:  summarise(scores, indices(len(scores), func(i int) bool { return splits[i] == SplitTest })),
		Blind: summarise(scores, indices(len(scores), func(i int) bool { return splits[i] == SplitBlind })),
	}
	for _, c := range Categories {
		sel := indices(len(scores), func(i int) bool { return inFile(i) && cats[i] == c })
		if len(sel) > 0 {
			s.ByCategory = append(s.ByCategory, CategoryScores{Category: c, Scores: summarise(scores, sel)})
		}
	}
	for i, q := range scores {
		if !inFile(i) {
			continue
		}
		if q.hasStale {
			s.WithStale++
		}
		if q.staleFirst {
			s.StaleFirst++
		}
	}
	return s
}

func indices(n int, keep func(int) bool) []int {
	var out []int
	for i := range n {
		if keep(i) {
			out = append(out, i)
		}
	}
	return out
}
