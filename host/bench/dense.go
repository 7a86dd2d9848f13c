package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// The dense round: the shared-database round again with dense vectors, from the densefake
// plugin (host/internal/testkit/testplugins/densefake: the fake OpenAI-compatible runtime's model,
// computed in the plugin process), at each width of Config.DenseDims; then the re-embed job
// converging the large project's rows and a fold calibration of the dense embedder.

// denseDimsEnv sets the densefake plugin's width; the host passes MEMHOST_PLUGIN_* variables
// through to its plugins, so the host the round starts embeds at the same width.
const denseDimsEnv = "MEMHOST_PLUGIN_DENSEFAKE_DIMENSIONS"

// Dense is the dense round at one width.
type Dense struct {
	Embedder embedder.Info
	Shared   Shared
	Reembed  ReembedBench
	Fold     DenseFold
}

// ReembedBench is the re-embed job (maintenance.reembed) giving one project's memories the
// embedder's vectors again, as after an embedder switch, then the background indexer moving
// them into the project's graph.
type ReembedBench struct {
	Project   string
	Rows      int
	Took      time.Duration // read, embed through the plugin, store (one job run)
	Drained   int
	DrainTime time.Duration
}

// Rate is rows re-embedded per second.
func (r ReembedBench) Rate() float64 { return float64(r.Rows) / r.Took.Seconds() }

// DenseFold is the fold decision with the dense embedder on the fold set, at thresholds from
// 0.50 to 0.99, by cosine alone (what sdk/embedder/calibration measures) and as the write path
// decides (cosine and memory.SameStatement). Calibrated is the lowest threshold at which the
// write path's false folds stay within targetFalseFold (0 when none does): the lowest misses
// the fewest restatements.
type DenseFold struct {
	Pairs      int
	Calibrated float64
	Sweep      []DenseFoldRow
}

// DenseFoldRow is the two decisions' rates at one threshold.
type DenseFoldRow struct {
	Threshold float64
	Cosine    calibration.Rates
	Rule      calibration.Rates
}

// measureDenseRounds runs the dense round at each of cfg.DenseDims.
func measureDenseRounds(ctx context.Context, cfg Config, p progress) ([]Dense, error) {
	if len(cfg.DenseDims) == 0 {
		return nil, nil
	}
	if cfg.SharedTotal <= 0 || cfg.DensePlugin == "" || cfg.KeepShared || cfg.ReuseShared {
		return nil, errors.New("bench: the dense rounds need SharedTotal and DensePlugin, and replace the shared schema (not with KeepShared or ReuseShared)")
	}
	var out []Dense
	for _, dims := range cfg.DenseDims {
		d, err := measureDense(ctx, cfg, dims, p)
		if err != nil {
			return out, fmt.Errorf("dense %d: %w", dims, err)
		}
		out = append(out, d)
	}
	return out, nil
}

// measureDense runs the dense round at dims dimensions.
func measureDense(ctx context.Context, cfg Config, dims int, p progress) (Dense, error) {
	var d Dense
	if err := os.Setenv(denseDimsEnv, strconv.Itoa(dims)); err != nil {
		return d, err
	}
	emb, kill, err := embeddertest.Start(cfg.DensePlugin, cfg.Progress)
	if err != nil {
		return d, err
	}
	defer kill()
	if d.Embedder, err = emb.Describe(ctx); err != nil {
		return d, fmt.Errorf("describe %s: %w", cfg.DensePlugin, err)
	}
	p.logf("dense %d: %s started", dims, d.Embedder.Name)
	if d.Fold, err = denseFold(ctx, emb); err != nil {
		return d, err
	}
	p.logf("dense %d: fold threshold calibrated at %.2f", dims, d.Fold.Calibrated)
	dcfg := cfg
	dcfg.PluginPath = cfg.DensePlugin
	d.Shared, err = measureSharedThen(ctx, dcfg, emb, d.Embedder, p, func(pool *pgxpool.Pool, st *pgstore.Store, projects []*sharedProject) error {
		var err error
		d.Reembed, err = measureReembed(ctx, pool, st, emb, d.Embedder, projects[0].key)
		if err == nil {
			p.logf("dense %d: re-embedded %d memories at %.0f/s; indexer moved them into the graph in %s", dims, d.Reembed.Rows,
				d.Reembed.Rate(), d.Reembed.DrainTime.Round(time.Millisecond))
		}
		return err
	})
	return d, err
}

// measureReembed drops the embedder's vectors of project's memories and times the re-embed
// job giving them back, then the indexer moving them into the project's graph.
func measureReembed(ctx context.Context, pool *pgxpool.Pool, st *pgstore.Store, emb embedder.Embedder, info embedder.Info, project string) (ReembedBench, error) {
	r := ReembedBench{Project: project}
	tag, err := pool.Exec(ctx, `DELETE FROM memory_vectors WHERE embedder = $1 AND scope = 'project' AND scope_key = $2`, info.Name, project)
	if err != nil {
		return r, fmt.Errorf("re-embed: drop vectors: %w", err)
	}
	r.Rows = int(tag.RowsAffected())
	// As an embedder switch leaves it: no dead vectors for the graph insertions to step over.
	if _, err := pool.Exec(ctx, "VACUUM ANALYZE memory_vectors"); err != nil {
		return r, fmt.Errorf("re-embed: vacuum: %w", err)
	}
	job := &maintenance.Reembed{Store: st, Embedders: memory.Fixed(emb)}
	start := time.Now()
	res, err := job.Run(ctx, maintenance.Run{Now: start, Project: project, Budget: maintenance.Budget{MaxRows: r.Rows + 1}})
	r.Took = time.Since(start)
	if err != nil {
		return r, fmt.Errorf("re-embed: %w", err)
	}
	if int(res.Changed) != r.Rows {
		return r, fmt.Errorf("re-embed: stored %d vectors of %d", res.Changed, r.Rows)
	}
	r.Drained, r.DrainTime, err = drainDeferred(ctx, st)
	return r, err
}

// denseFold scores the fold set with e and sweeps the threshold.
func denseFold(ctx context.Context, e embedder.Embedder) (DenseFold, error) {
	var f DenseFold
	set, err := FoldPairs()
	if err != nil {
		return f, fmt.Errorf("fold set: %w", err)
	}
	pairs := make([]calibration.Pair, len(set))
	for i, p := range set {
		pairs[i] = p.Pair
	}
	scored, err := calibration.Score(ctx, e, pairs)
	if err != nil {
		return f, err
	}
	f.Pairs = len(scored)
	for i := 50; i <= 99; i++ {
		t := float64(i) / 100
		cosine, _, rule := foldDecisions(t)
		c, err := calibration.RatesOf(scored, cosine)
		if err != nil {
			return f, err
		}
		r, _ := calibration.RatesOf(scored, rule)
		f.Sweep = append(f.Sweep, DenseFoldRow{Threshold: t, Cosine: c, Rule: r})
		if f.Calibrated == 0 && r.FalseFold <= targetFalseFold {
			f.Calibrated = t
		}
	}
	return f, nil
}
