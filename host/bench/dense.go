package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

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
	Took      time.Duration // read, embed through the plugin, store (one job run in the host)
	Drained   int
	DrainTime time.Duration // the indexer, from the job's end: the host's beside the calls, then one alone
	// Agents' calls at the MCP client (a store and a search against a random project), idle and
	// while the job and then the indexer ran, on the host that ran them.
	IdleStore, IdleSearch Latency
	BusyStore, BusySearch Latency
	// JobStore and JobSearch are the busy calls made while the job ran, IndexStore and
	// IndexSearch those made after it, while the indexer ran: where the slowdown comes from.
	JobStore, JobSearch     Latency
	IndexStore, IndexSearch Latency
	// LargeStore and LargeSearch are the busy calls to the large project, the one re-embedded,
	// OtherStore and OtherSearch those to the other projects.
	LargeStore, LargeSearch Latency
	OtherStore, OtherSearch Latency
	// Indexed rows the host's indexer moved in IndexedIn while the calls went on (part of
	// Drained and DrainTime).
	Indexed   int
	IndexedIn time.Duration
}

// targetReembedRatio bounds agents' p99 while a re-embed runs against their idle p99 (issue
// 29: a re-embed never moves agents' p99 more than 1.5x).
const targetReembedRatio = 1.5

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
	d.Shared, err = measureSharedThen(ctx, dcfg, emb, d.Embedder, p, func(pool *pgxpool.Pool, _ *pgstore.Store, projects []*sharedProject) error {
		var err error
		d.Reembed, err = measureReembed(ctx, dcfg, pool, d.Embedder, projects, p)
		if err == nil {
			p.logf("dense %d: re-embedded %d memories at %.0f/s; indexer moved them into the graph in %s; agents' p99 store %s -> %s, search %s -> %s",
				dims, d.Reembed.Rows, d.Reembed.Rate(), d.Reembed.DrainTime.Round(time.Millisecond),
				d.Reembed.IdleStore.P99, d.Reembed.BusyStore.P99, d.Reembed.IdleSearch.P99, d.Reembed.BusySearch.P99)
		}
		return err
	})
	return d, err
}

// reembedBusyIndexing bounds how long agents' calls go on while the host's indexer moves the
// re-embedded rows into the graph (yielding to the calls, as it does); the rest is drained
// after the calls by one indexer.
const reembedBusyIndexing = time.Minute

// measureReembed drops the embedder's vectors of the large project's memories, as an embedder
// switch leaves them, starts a host on the layout, times agents' calls idle, then asks the host
// to run the re-embed job (as `memhost reembed` does) and times the same calls while the job
// runs and the host's indexer moves the rows into the project's graph.
func measureReembed(ctx context.Context, cfg Config, pool *pgxpool.Pool, info embedder.Info, projects []*sharedProject, p progress) (ReembedBench, error) {
	project := projects[0].key
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
	home, cleanup, err := newHostHome(ctx, pool, "reembed")
	if err != nil {
		return r, err
	}
	defer cleanup()
	dir, agent, admin := home.dir, home.agent, home.admin
	// By hand only: a run at boot would land in the idle timings.
	host, err := startConnected(ctx, cfg, "bench_shared", dir, "[maintenance.reembed]\nenabled = false\n", agent)
	if err != nil {
		return r, err
	}
	defer host.stop()
	rnd := rand.New(rand.NewPCG(cfg.Seed, 0x3e3b))
	// Untimed first, as long as a host has served its projects a while: a fresh host's first
	// calls pay for its cold caches and first plans, which no re-embed causes.
	warm := agentLoad{host: host, projects: projects, r: rnd}
	for range len(projects) {
		if err := warm.step(ctx); err != nil {
			return r, err
		}
	}
	idle := agentLoad{host: host, projects: projects, r: rnd}
	for range cfg.SharedOps {
		if err := idle.step(ctx); err != nil {
			return r, err
		}
	}
	r.IdleStore, r.IdleSearch = summarize(idle.stores), summarize(idle.searches)
	p.logf("re-embed: idle store p99 %s, search p99 %s; the host re-embeds %d memories", r.IdleStore.P99, r.IdleSearch.P99, r.Rows)

	type outcome struct {
		run MaintenanceJobRun
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		run, err := runJob(ctx, host.url, admin, maintenance.ReembedName)
		done <- outcome{run, err}
	}()
	busy := agentLoad{host: host, projects: projects, r: rnd}
	busyStart := time.Now()
	var drainStart time.Time
	jobCalls := 0
	for {
		if drainStart.IsZero() {
			select {
			case o := <-done:
				if o.err != nil {
					return r, fmt.Errorf("re-embed: %w\n%s", o.err, host.tail())
				}
				if int(o.run.Changed) != r.Rows {
					return r, fmt.Errorf("re-embed: stored %d vectors of %d (%s)", o.run.Changed, r.Rows, o.run.Outcome)
				}
				r.Took, drainStart = o.run.Wall, time.Now()
				jobCalls = len(busy.stores)
			default:
			}
		} else {
			// The re-embedded rows: the agents' own writes meanwhile wait for the indexer too.
			var left int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM memory_vectors v JOIN memories m ON m.id = v.memory_id
				WHERE v.ann_deferred AND v.ann_error IS NULL AND m.scope = 'project' AND m.scope_key = $1 AND m.created_at < $2`,
				project, busyStart).Scan(&left); err != nil {
				return r, fmt.Errorf("re-embed: rows left for the indexer: %w", err)
			}
			if left == 0 || time.Since(drainStart) > reembedBusyIndexing {
				r.Indexed, r.IndexedIn = r.Rows-left, time.Since(drainStart)
				break
			}
		}
		if err := busy.step(ctx); err != nil {
			return r, err
		}
	}
	r.BusyStore, r.BusySearch = summarize(busy.stores), summarize(busy.searches)
	r.JobStore, r.JobSearch = summarize(busy.stores[:jobCalls]), summarize(busy.searches[:jobCalls])
	r.IndexStore, r.IndexSearch = summarize(busy.stores[jobCalls:]), summarize(busy.searches[jobCalls:])
	var large, other agentLoad
	for i, l := range busy.large {
		to := &other
		if l {
			to = &large
		}
		to.stores, to.searches = append(to.stores, busy.stores[i]), append(to.searches, busy.searches[i])
	}
	r.LargeStore, r.LargeSearch = summarize(large.stores), summarize(large.searches)
	r.OtherStore, r.OtherSearch = summarize(other.stores), summarize(other.searches)
	// The rest of the queue, moved by one indexer with no calls to yield to.
	host.stop()
	r.Drained, r.DrainTime, err = drainDeferred(ctx, pgstore.New(pool))
	r.Drained += r.Indexed
	r.DrainTime += r.IndexedIn
	return r, err
}

// denseFold scores the fold set with e and sweeps the threshold.
func denseFold(ctx context.Context, e embedder.Embedder) (DenseFold, error) {
	var f DenseFold
	_, scored, err := scoreFoldSet(ctx, e)
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
