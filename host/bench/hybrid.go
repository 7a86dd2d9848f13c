package bench

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// The calibration round (memhost-bench -calibrate): one embedder's settings in the host, measured
// on labelled data rather than taken from a code constant. The relevance floor is the one the
// host measures at the embedder's first use; the vector weight is the share of relevance that
// ranks the retrieval set's answers best (its dev half; the test half reports the choice); the
// fold threshold is the lowest at which the write path's false folds on the fold set stay
// within targetFalseFold. The result is the configuration that sets them.

// calibrationWeights are the vector weights swept.
var calibrationWeights = []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}

// HybridCalibration is one embedder's calibration.
type HybridCalibration struct {
	Embedder embedder.Info
	// Floor is the relevance floor the host measured (memory.Service at first use).
	Floor float64
	// Questions counts the retrieval set's dev and test questions.
	Questions int
	// Sweep is each weight's scores; Weight the chosen one: the best MRR on the dev half,
	// recall@10 then the smaller weight breaking ties.
	Sweep  []WeightRow
	Weight float64
	// Default is the weight before calibration (rank.HybridSemantic, or rank.HybridLexical);
	// Before scores it without a floor, as the host searched before floors.
	Default float64
	Before  WeightRow
	// Nonsense is the mean number of hits of a question about nothing the projects know
	// (nonsenseQuestions), without the floor at the default weight and with the calibration.
	NonsenseBefore, NonsenseAfter float64
	Fold                          DenseFold
	Took                          time.Duration
}

// nonsenseQuestions name nothing any project knows: each hit is noise.
var nonsenseQuestions = []string{"who handles quixlet?", "what is the zorbly timeout?", "where does the frumious cache live?"}

// WeightRow is the read path's scores at one vector weight.
type WeightRow struct {
	Weight    float64
	Dev, Test Scores
}

// row returns the sweep's row at w.
func (c HybridCalibration) row(w float64) WeightRow {
	for _, r := range c.Sweep {
		if r.Weight == w {
			return r
		}
	}
	return WeightRow{}
}

// Calibrate measures e's floor, vector weight and fold threshold in a fresh schema of the
// database behind pool: the retrieval set's facts are stored through memory.Service as agents
// write them, then every question is asked at each weight. Every text is embedded once.
func Calibrate(ctx context.Context, pool *pgxpool.Pool, e embedder.Embedder, redact memory.RedactFunc, set RetrievalSet) (HybridCalibration, error) {
	start := time.Now()
	var c HybridCalibration
	e = &memoEmbedder{e: e, seen: map[memoKey][]float32{}}
	info, err := e.Describe(ctx)
	if err != nil {
		return c, fmt.Errorf("describe embedder: %w", err)
	}
	c.Embedder = info
	st := pgstore.New(pool)
	ix := lexical.New()
	svc := memory.New(st, ix, memory.Fixed(e), redact, memory.DefaultConfig())
	if err := svc.Prepare(ctx); err != nil {
		return c, err
	}
	measured := svc.Hybrid(info.Name)
	c.Floor, c.Default = measured.Floor, measured.VectorWeight
	var res RetrievalResult
	memOf, err := storeRetrievalFacts(ctx, pool, svc, set, &res)
	if err != nil {
		return c, err
	}
	c.Questions = res.Questions
	ask := func(hybrid rank.Hybrid) (WeightRow, float64, error) {
		cfg := memory.DefaultConfig()
		cfg.VectorWeights = map[string]float64{info.Name: hybrid.VectorWeight}
		cfg.RelevanceFloors = map[string]float64{info.Name: hybrid.Floor}
		row, nonsense, err := askAll(ctx, memory.New(st, ix, memory.Fixed(e), redact, cfg), set, memOf)
		row.Weight = hybrid.VectorWeight
		return row, nonsense, err
	}
	if c.Before, c.NonsenseBefore, err = ask(rank.Hybrid{VectorWeight: c.Default}); err != nil {
		return c, err
	}
	for _, w := range calibrationWeights {
		row, _, err := ask(rank.Hybrid{VectorWeight: w, Floor: c.Floor})
		if err != nil {
			return c, err
		}
		c.Sweep = append(c.Sweep, row)
	}
	c.Weight = chooseWeight(c.Sweep)
	if _, c.NonsenseAfter, err = ask(rank.Hybrid{VectorWeight: c.Weight, Floor: c.Floor}); err != nil {
		return c, err
	}
	if c.Fold, err = denseFold(ctx, e); err != nil {
		return c, err
	}
	c.Took = time.Since(start)
	return c, nil
}

// askAll asks svc every dev and test question of set and scores the answers (the row's Weight
// is the caller's to set), and returns the mean number of hits of the nonsense questions in the
// evaluated projects.
func askAll(ctx context.Context, svc *memory.Service, set RetrievalSet, memOf map[string]string) (WeightRow, float64, error) {
	var row WeightRow
	var scores []questionScore
	var splits []string
	var nonsense, asked int
	for _, p := range set.Projects {
		if p.Role != RoleEvaluated {
			continue
		}
		a := memory.Access{Project: p.Project, Actor: "bench"}
		for _, q := range p.Questions {
			if q.Split() == SplitBlind {
				continue
			}
			want, stale := q.labels(memOf)
			r, err := svc.Search(ctx, a, memory.SearchRequest{Query: q.Query, TopK: retrievalDepth, Unrecorded: true})
			if err != nil {
				return row, 0, fmt.Errorf("search %s: %w", q.ID, err)
			}
			ranked := make([]string, len(r.Hits))
			for i, h := range r.Hits {
				ranked[i] = h.ID.String()
			}
			scores, splits = append(scores, scoreRanking(ranked, want, stale)), append(splits, q.Split())
		}
		for _, q := range nonsenseQuestions {
			r, err := svc.Search(ctx, a, memory.SearchRequest{Query: q, TopK: retrievalDepth, Unrecorded: true})
			if err != nil {
				return row, 0, fmt.Errorf("search %q: %w", q, err)
			}
			nonsense, asked = nonsense+len(r.Hits), asked+1
		}
	}
	row.Dev = summarise(scores, indices(len(scores), func(i int) bool { return splits[i] == SplitDev }))
	row.Test = summarise(scores, indices(len(scores), func(i int) bool { return splits[i] == SplitTest }))
	return row, float64(nonsense) / float64(max(asked, 1)), nil
}

// chooseWeight is the weight of the best dev MRR; recall@10, then the smaller weight, break
// ties (scores within 0.001 count as equal).
func chooseWeight(sweep []WeightRow) float64 {
	best := sweep[0]
	for _, r := range sweep[1:] {
		dm, dr := r.Dev.MRR.Mean-best.Dev.MRR.Mean, r.Dev.Recall10.Mean-best.Dev.Recall10.Mean
		if dm > 0.001 || (math.Abs(dm) <= 0.001 && dr > 0.001) {
			best = r
		}
	}
	return best.Weight
}

// CalibrateEmbedder runs the calibration round alone: cfg.PluginPath's embedder (started with
// this process's environment, where an openaicompat plugin finds its MEMHOST_EMBEDDER_*
// settings) on cfg.RetrievalDir's set, in a fresh schema of cfg.DatabaseURL.
func CalibrateEmbedder(ctx context.Context, cfg Config) (HybridCalibration, error) {
	set, err := LoadRetrievalSet(cfg.RetrievalDir)
	if err != nil {
		return HybridCalibration{}, err
	}
	emb, kill, err := embeddertest.Start(cfg.PluginPath, cfg.Progress)
	if err != nil {
		return HybridCalibration{}, err
	}
	defer kill()
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_calibrate")
	if err != nil {
		return HybridCalibration{}, err
	}
	defer drop()
	return Calibrate(ctx, pool, emb, cfg.Redact, set)
}

// RenderCalibration is the calibration's report, ending with the configuration that applies it.
func RenderCalibration(c HybridCalibration) string {
	var b strings.Builder
	name := c.Embedder.Name
	fmt.Fprintf(&b, "## Calibration of %s (%d dimensions)\n\n", name, c.Embedder.Dimensions)
	fmt.Fprintf(&b, "Measured by `memhost-bench -calibrate` in %s on the retrieval set's %d questions "+
		"(the weight chosen on the dev half) and the fold set's %d pairs.\n\n", c.Took.Round(time.Second), c.Questions, c.Fold.Pairs)
	fmt.Fprintln(&b, "| setting | before | calibrated |")
	fmt.Fprintln(&b, "| --- | --- | --- |")
	fmt.Fprintf(&b, "| relevance floor (cosine unrelated texts reach; the host measures it at first use) | 0 | %.2f |\n", c.Floor)
	cal := c.row(c.Weight)
	fmt.Fprintf(&b, "| vector weight | %.1f | %.1f |\n", c.Default, c.Weight)
	fmt.Fprintf(&b, "| - recall@10 / MRR, dev half | %.3f / %.3f | %.3f / %.3f |\n", c.Before.Dev.Recall10.Mean, c.Before.Dev.MRR.Mean, cal.Dev.Recall10.Mean, cal.Dev.MRR.Mean)
	fmt.Fprintf(&b, "| - recall@10 / MRR, held-out test half | %.3f / %.3f | %.3f / %.3f |\n", c.Before.Test.Recall10.Mean, c.Before.Test.MRR.Mean, cal.Test.Recall10.Mean, cal.Test.MRR.Mean)
	fmt.Fprintf(&b, "| - hits of a question about nothing known (%q, ...; top 10) | %.1f | %.1f |\n", nonsenseQuestions[0], c.NonsenseBefore, c.NonsenseAfter)
	fold := "none from 0.50 to 0.99"
	if c.Fold.Calibrated > 0 {
		fold = fmt.Sprintf("%.2f", c.Fold.Calibrated)
	}
	fmt.Fprintf(&b, "| fold threshold (lowest with the write path's false folds <= %.1f%%) | %.2f | %s |\n\n",
		100*targetFalseFold, c.Embedder.SuggestedFoldThreshold, fold)
	fmt.Fprintf(&b, "With the floor of %.2f:\n\n", c.Floor)
	fmt.Fprintln(&b, "| vector weight | dev recall@10 | dev MRR | test recall@10 | test MRR |")
	fmt.Fprintln(&b, "| --- | --- | --- | --- | --- |")
	for _, r := range c.Sweep {
		mark := ""
		if r.Weight == c.Weight {
			mark = " (chosen)"
		}
		fmt.Fprintf(&b, "| %.1f%s | %.3f | %.3f | %.3f | %.3f |\n", r.Weight, mark, r.Dev.Recall10.Mean, r.Dev.MRR.Mean, r.Test.Recall10.Mean, r.Test.MRR.Mean)
	}
	fmt.Fprintf(&b, "\nIn memhost.toml:\n\n```toml\n[embedder.vector_weights]\n%q = %.1f\n\n[embedder.relevance_floors]\n%q = %.2f\n", name, c.Weight, name, c.Floor)
	if c.Fold.Calibrated > 0 {
		fmt.Fprintf(&b, "\n[embedder.fold_thresholds]\n%q = %.2f\n", name, c.Fold.Calibrated)
	}
	fmt.Fprintln(&b, "```")
	return b.String()
}

// memoEmbedder embeds each text once per purpose: the sweep asks every question at each weight.
type memoEmbedder struct {
	e    embedder.Embedder
	mu   sync.Mutex
	seen map[memoKey][]float32
}

type memoKey struct {
	purpose embedder.Purpose
	text    string
}

var _ embedder.Embedder = (*memoEmbedder)(nil)

func (m *memoEmbedder) Describe(ctx context.Context) (embedder.Info, error) { return m.e.Describe(ctx) }

func (m *memoEmbedder) Health(ctx context.Context) error { return m.e.Health(ctx) }

func (m *memoEmbedder) Embed(ctx context.Context, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var missing []string
	m.mu.Lock()
	for i, t := range texts {
		out[i] = m.seen[memoKey{purpose, t}]
		if out[i] == nil && !slices.Contains(missing, t) {
			missing = append(missing, t)
		}
	}
	m.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	vecs, err := m.e.Embed(ctx, purpose, missing)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range missing {
		m.seen[memoKey{purpose, t}] = vecs[i]
	}
	for i, t := range texts {
		out[i] = m.seen[memoKey{purpose, t}]
	}
	return out, nil
}
