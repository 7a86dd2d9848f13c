package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
)

// QualitySet is a labelled retrieval set: the facts of one imaginary project and questions an
// agent would ask, each labelled with the facts that answer it.
type QualitySet struct {
	Project string         `json:"project"`
	Facts   []QualityFact  `json:"facts"`
	Queries []QualityQuery `json:"queries"`
}

// QualityFact is one memory of the set.
type QualityFact struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// QualityQuery is one question and the ids of the facts that answer it.
type QualityQuery struct {
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"`
}

// LoadQualitySet reads and checks a quality set: every label must name a fact, so a typo
// cannot silently lower recall.
func LoadQualitySet(path string) (QualitySet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return QualitySet{}, fmt.Errorf("quality set: %w", err)
	}
	var set QualitySet
	if err := json.Unmarshal(b, &set); err != nil {
		return QualitySet{}, fmt.Errorf("quality set %s: %w", path, err)
	}
	if set.Project == "" || len(set.Facts) == 0 || len(set.Queries) == 0 {
		return QualitySet{}, fmt.Errorf("quality set %s: project, facts and queries are required", path)
	}
	ids := map[string]bool{}
	for _, f := range set.Facts {
		if f.ID == "" || f.Text == "" || ids[f.ID] {
			return QualitySet{}, fmt.Errorf("quality set %s: fact %q: ids must be unique and texts non-empty", path, f.ID)
		}
		ids[f.ID] = true
	}
	for _, q := range set.Queries {
		if q.Query == "" || len(q.Relevant) == 0 {
			return QualitySet{}, fmt.Errorf("quality set %s: query %q needs text and at least one relevant fact", path, q.Query)
		}
		for _, id := range q.Relevant {
			if !ids[id] {
				return QualitySet{}, fmt.Errorf("quality set %s: query %q names unknown fact %q", path, q.Query, id)
			}
		}
	}
	return set, nil
}

// QualityOptions tune a quality run.
type QualityOptions struct {
	Distractors int    // synthetic memories bulk-loaded into the same project first
	Seed        uint64 // distractor corpus seed
	ImportBatch int    // records per store.Import call; 0 means 2000
}

// QualityResult is how well search found the labelled facts.
type QualityResult struct {
	Facts, Queries, Distractors int
	Folded                      int // facts that folded into an existing memory when stored
	RecallAt5, RecallAt10, MRR  float64
	Misses                      []string // queries with no relevant fact in the top 10
	// What a model reads per returned memory from memory_search, in approximate tokens
	// (bytes / 4): the full JSON record (what the tool's text content carried before it was
	// made compact) and the compact line it reads now.
	TokensPerHitFull, TokensPerHitCompact float64
	hits                                  int
}

// countTokens adds one search's text sizes, as the MCP tool renders them, to the totals.
func (res *QualityResult) countTokens(project, query string, r memory.SearchResult) {
	out := mcpserver.SearchOutput{Project: project, Query: query, Hits: r.Hits, Degraded: r.Degraded}
	full, _ := json.Marshal(out)
	res.TokensPerHitFull += float64(len(full)) / 4
	res.TokensPerHitCompact += float64(len(mcpserver.Brief(out))) / 4
	res.hits += len(r.Hits)
}

// qualityK is the depth searched and the depth of recall@10 and MRR.
const qualityK = 10

// Quality loads the set into the migrated database behind pool (distractors by bulk import,
// the labelled facts through memory.Service.Store, as agents write them), asks every query
// through memory.Service.Search top 10, and scores the ranking.
func Quality(ctx context.Context, pool *pgxpool.Pool, e embedder.Embedder, redact memory.RedactFunc, set QualitySet, opt QualityOptions) (QualityResult, error) {
	res := QualityResult{Facts: len(set.Facts), Queries: len(set.Queries), Distractors: opt.Distractors}
	info, err := e.Describe(ctx)
	if err != nil {
		return res, fmt.Errorf("describe embedder: %w", err)
	}
	st := pgstore.New(pool)
	if err := st.EnsureVectorIndex(ctx, info.Name, info.Dimensions); err != nil {
		return res, err
	}
	if opt.Distractors > 0 {
		batch := opt.ImportBatch
		if batch <= 0 {
			batch = 2000
		}
		facts := NewCorpus(opt.Seed).Take(opt.Distractors)
		if _, err := bulkImport(ctx, st, e, info, set.Project, facts, importOptions{batch: batch, workers: 1}); err != nil {
			return res, err
		}
		if _, _, err := drainDeferred(ctx, st); err != nil {
			return res, err
		}
	}
	ix := lexical.New()
	if _, err := lexical.NewFollower(st, ix, time.Second).CatchUp(ctx); err != nil {
		return res, err
	}
	var bg errCounter
	svc := memory.New(st, ix, memory.Fixed(e), redact, memory.DefaultConfig(), memory.WithErrorHandler(bg.add))
	defer runHitRecorder(ctx, svc)()
	a := memory.Access{Project: set.Project, Actor: "bench"}

	memOf := map[string]uuid.UUID{}
	for _, f := range set.Facts {
		r, err := svc.Store(ctx, a, memory.StoreRequest{Text: f.Text, Kind: f.Kind, Agent: "bench"})
		if err != nil {
			return res, fmt.Errorf("store fact %s: %w", f.ID, err)
		}
		if r.Folded {
			res.Folded++
		}
		// A folded fact is answered by the row it folded into, so that row is what counts.
		memOf[f.ID] = r.ID
	}
	var r5, r10, rr float64
	for _, q := range set.Queries {
		hits, err := svc.Search(ctx, a, memory.SearchRequest{Query: q.Query, TopK: qualityK})
		if err != nil {
			return res, fmt.Errorf("search %q: %w", q.Query, err)
		}
		res.countTokens(a.Project, q.Query, hits)
		want := map[uuid.UUID]bool{}
		for _, id := range q.Relevant {
			want[memOf[id]] = true
		}
		first := 0
		var in5, in10 int
		for i, h := range hits.Hits {
			if !want[h.ID] {
				continue
			}
			if first == 0 {
				first = i + 1
			}
			if i < 5 {
				in5++
			}
			in10++
		}
		r5 += float64(in5) / float64(len(want))
		r10 += float64(in10) / float64(len(want))
		if first > 0 {
			rr += 1 / float64(first)
		} else {
			res.Misses = append(res.Misses, q.Query)
		}
	}
	n := float64(len(set.Queries))
	res.RecallAt5, res.RecallAt10, res.MRR = r5/n, r10/n, rr/n
	if res.hits > 0 {
		res.TokensPerHitFull /= float64(res.hits)
		res.TokensPerHitCompact /= float64(res.hits)
	}
	if bg.n > 0 {
		return res, errors.New("quality: background hit recording failed")
	}
	return res, nil
}
