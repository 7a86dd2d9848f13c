package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/daemon/lifecycle"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// Config says what to measure and where.
type Config struct {
	DatabaseURL   string            // a database the benchmark may create and drop schemas in
	PluginPath    string            // the embedder plugin binary
	Sizes         []int             // memories in the one project, one measurement round per size
	PairsPath     string            // labelled fold pairs (JSON Lines, see sdk/embedder/calibration)
	QualityPath   string            // the retrieval quality set (testdata/quality.json)
	Distractors   int               // synthetic memories loaded next to the quality corpus
	ImportBatch   int               // records per store.Import call (one COPY each)
	ImportWorkers int               // concurrent store.Import calls
	Seed          uint64            // corpus seed: the same seed loads the same texts
	Redact        memory.RedactFunc `json:"-"` // the write path's redactor; nil runs without one
	RedactNote    string            // how Redact was chosen, for the report
	Progress      io.Writer         `json:"-"` // progress lines; nil discards them
	// The shared-database round (scale_shared*.go): SharedTotal memories over many projects,
	// timed through MCP against a real host; 0 skips it.
	SharedTotal int
	SharedOps   int    // timed memory_store and memory_search calls per class of project
	HostPath    string // the memhost binary the round starts
	ProseRoot   string // where its texts come from: GOROOT/src
	// KeepShared leaves the round's schema (bench_shared) in the database when it is done, so
	// an operator can start `memhost serve` on it and look where the time goes; the next run
	// replaces it.
	KeepShared bool
	// ReuseShared times the calls on the schema a KeepShared run left, without loading it again
	// (the layout must come from the same SharedTotal and Seed); load and build times are not
	// measured then.
	ReuseShared bool
	// OnlyShared runs the shared-database round alone (and the plugin round trip, which
	// describes the machine): `make bench-1m` times the 1M layout without the rest.
	OnlyShared bool
	// Prewarm loads the shared round's table and indexes into shared_buffers (pg_prewarm)
	// before the timed calls: what autoprewarm gives a Postgres sized to hold them.
	Prewarm bool
	// RetrievalDir is the retrieval benchmark (testdata/retrieval), run without filler and
	// with RetrievalFiller synthetic memories per project; "" skips it.
	RetrievalDir    string
	RetrievalFiller int
	// SelectionFiller is the synthetic memories per project of the banner-selection round
	// (selection.go, on the retrieval set); negative skips it.
	SelectionFiller int
	// ValueClaude is the Claude Code binary of the value A/B round (valueab.go), run with
	// HostPath and the providers beside PluginPath; "" skips it.
	ValueClaude string
	// SpawnRuns times `memhost run` (spawn.go) that many times with HostPath and the provider
	// plugins beside PluginPath; 0 skips it.
	SpawnRuns int
	// WorkerCalls times that many worker calls (worker.go) on memhost-worker-echo and
	// memhost-worker-agentcli beside PluginPath; 0 skips them.
	WorkerCalls int
	// MaintenanceTotal is the maintenance round's memories (maintenance.go) over the shared
	// layout's projects; 0 skips it. OnlyMaintenance runs it alone.
	MaintenanceTotal int
	OnlyMaintenance  bool
	// DenseDims runs the shared round again with dense vectors of each width (dense.go), from
	// the densefake plugin at DensePlugin (alone in its folder: the host the round starts
	// takes it as its embedder); empty skips it. OnlyDense runs those rounds alone.
	DenseDims   []int
	DensePlugin string
	OnlyDense   bool
	// PeerCommand starts @ai-devkit/memory's MCP server over stdio (peers.go): the peers round
	// times PeerOps stores and searches on it and on memhost after PeerPreload facts each;
	// "" skips it. OnlyPeers runs that round alone (make bench-peers).
	PeerCommand string
	PeerOps     int
	PeerPreload int
	OnlyPeers   bool
	// SlowModel starts a real CPU model's /v1/embeddings (host/bench/use-lite; the round adds a
	// free port as the last argument): the slow-model round times SlowOps stores with it on the
	// write path against the floor (slowmodel.go); "" skips it.
	SlowModel string
	SlowOps   int
	// OnlySpawn runs the spawn round alone.
	OnlySpawn bool
}

// Report is everything one run measured.
type Report struct {
	Started     time.Time
	Elapsed     time.Duration
	Machine     Machine
	Config      Config
	Embedder    embedder.Info
	PluginStart time.Duration
	RoundTrip   Latency
	Scales      []Scale
	Calibration Calibration
	Quality     QualityResult
	Shared      *Shared // nil when the shared-database round was skipped
	// Retrieval is the retrieval benchmark at each filler size.
	Retrieval []RetrievalResult
	// Selection is the banner-selection benchmark; nil when skipped.
	Selection *SelectionResult
	// ValueAB is the value A/B round; nil when skipped.
	ValueAB *ValueAB
	// Spawn is memhost run's overhead; nil when skipped.
	Spawn *SpawnBench
	// Workers is what a worker call costs without the model; nil when skipped.
	Workers *WorkerBench
	// Maintenance is a full maintenance pass and agents' calls during it; nil when skipped.
	Maintenance *MaintenanceBench
	// Dense is the dense round at each of Config.DenseDims.
	Dense []Dense
	// Peers is memhost side by side with @ai-devkit/memory; nil when skipped.
	Peers *Peers
	// Slow is a real CPU model on the write path against the floor; nil when skipped.
	Slow *SlowModel
	// LoadAvg is /proc/loadavg at the run's start and end: the machine is shared.
	LoadAvg [2]string
}

// roundTripCalls is how many Embed calls the plugin round trip takes.
const roundTripCalls = 2000

// Run measures everything Config asks for against a real plugin process and database.
func Run(ctx context.Context, cfg Config) (rep Report, err error) {
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if cfg.ImportBatch <= 0 || cfg.ImportWorkers <= 0 {
		return Report{}, errors.New("bench: ImportBatch and ImportWorkers must be positive")
	}
	rep = Report{Started: time.Now(), Config: cfg}
	rep.LoadAvg[0] = loadAvg()
	defer func() { rep.LoadAvg[1] = loadAvg() }()
	p := progress{w: cfg.Progress, start: rep.Started}

	if rep.Machine, err = describeMachine(ctx, cfg.DatabaseURL); err != nil {
		return rep, err
	}
	p.logf("machine: %d CPUs, %s, %s, PostgreSQL %s (shared_buffers %s, huge pages %s), pgvector %s", rep.Machine.CPUs, rep.Machine.CPUModel, rep.Machine.RAM, rep.Machine.Postgres, rep.Machine.SharedBuffers, rep.Machine.HugePages, rep.Machine.PGVector)

	start := time.Now()
	emb, kill, err := embeddertest.Start(cfg.PluginPath, cfg.Progress)
	if err != nil {
		return rep, err
	}
	defer kill()
	if rep.Embedder, err = emb.Describe(ctx); err != nil {
		return rep, fmt.Errorf("describe embedder: %w", err)
	}
	rep.PluginStart = time.Since(start)
	p.logf("plugin %s started in %s", rep.Embedder.Name, rep.PluginStart.Round(time.Millisecond))

	if rep.RoundTrip, err = measureRoundTrip(ctx, emb); err != nil {
		return rep, err
	}
	p.logf("plugin round trip: p50 %s p99 %s", rep.RoundTrip.P50, rep.RoundTrip.P99)

	if cfg.OnlyMaintenance {
		if err := runMaintenance(ctx, cfg, emb, &rep, p); err != nil {
			return rep, err
		}
		rep.Elapsed = time.Since(rep.Started)
		return rep, nil
	}
	if cfg.PeerCommand != "" {
		peers, err := measurePeers(ctx, cfg, p)
		if err != nil {
			return rep, fmt.Errorf("peers: %w", err)
		}
		rep.Peers = &peers
	}
	if cfg.SlowModel != "" {
		slow, err := measureSlowModel(ctx, cfg, p)
		if err != nil {
			return rep, fmt.Errorf("slow model: %w", err)
		}
		rep.Slow = &slow
	}
	if cfg.OnlySpawn {
		spawn, err := measureSpawn(ctx, cfg, p)
		if err != nil {
			return rep, fmt.Errorf("spawn: %w", err)
		}
		rep.Spawn = &spawn
	}
	if cfg.OnlyPeers || cfg.OnlySpawn {
		rep.Elapsed = time.Since(rep.Started)
		return rep, nil
	}
	if cfg.OnlyDense {
		if rep.Dense, err = measureDenseRounds(ctx, cfg, p); err != nil {
			return rep, err
		}
		rep.Elapsed = time.Since(rep.Started)
		return rep, nil
	}
	if cfg.OnlyShared {
		if cfg.SharedTotal <= 0 {
			return rep, errors.New("bench: OnlyShared needs SharedTotal")
		}
		shared, err := measureShared(ctx, cfg, emb, rep.Embedder, p)
		if err != nil {
			return rep, fmt.Errorf("shared database: %w", err)
		}
		rep.Shared = &shared
		rep.Elapsed = time.Since(rep.Started)
		return rep, nil
	}
	if rep.Calibration, err = calibrate(ctx, emb, rep.Embedder, cfg.PairsPath); err != nil {
		return rep, err
	}
	p.logf("fold calibration at %.2f on %d pairs: false-fold %.2f%%, missed-fold %.1f%%", rep.Calibration.Threshold,
		rep.Calibration.Set.Pairs, 100*rep.Calibration.Set.Rule.FalseFold, 100*rep.Calibration.Set.Rule.MissedFold)

	for _, n := range cfg.Sizes {
		s, err := measureScale(ctx, cfg, emb, rep.Embedder, n, p)
		if err != nil {
			return rep, fmt.Errorf("size %d: %w", n, err)
		}
		rep.Scales = append(rep.Scales, s)
	}

	if cfg.SharedTotal > 0 {
		shared, err := measureShared(ctx, cfg, emb, rep.Embedder, p)
		if err != nil {
			return rep, fmt.Errorf("shared database: %w", err)
		}
		rep.Shared = &shared
		if rep.Dense, err = measureDenseRounds(ctx, cfg, p); err != nil {
			return rep, err
		}
	}

	set, err := LoadQualitySet(cfg.QualityPath)
	if err != nil {
		return rep, err
	}
	p.logf("quality: %d facts, %d queries, %d distractors", len(set.Facts), len(set.Queries), cfg.Distractors)
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_quality")
	if err != nil {
		return rep, err
	}
	rep.Quality, err = Quality(ctx, pool, emb, cfg.Redact, set, QualityOptions{Distractors: cfg.Distractors, Seed: cfg.Seed + 1, ImportBatch: cfg.ImportBatch})
	drop()
	if err != nil {
		return rep, err
	}
	p.logf("quality: recall@5 %.3f recall@10 %.3f MRR %.3f", rep.Quality.RecallAt5, rep.Quality.RecallAt10, rep.Quality.MRR)
	if rep.Retrieval, err = measureRetrieval(ctx, cfg, emb, p); err != nil {
		return rep, err
	}
	if rep.Selection, err = measureSelection(ctx, cfg, emb, p); err != nil {
		return rep, err
	}
	if rep.ValueAB, err = measureValueAB(ctx, cfg); err != nil {
		return rep, err
	}
	if cfg.SpawnRuns > 0 {
		spawn, err := measureSpawn(ctx, cfg, p)
		if err != nil {
			return rep, fmt.Errorf("spawn: %w", err)
		}
		rep.Spawn = &spawn
	}
	if cfg.WorkerCalls > 0 {
		wb, err := measureWorkers(ctx, filepath.Dir(cfg.PluginPath), cfg.WorkerCalls, cfg.Progress)
		if err != nil {
			return rep, fmt.Errorf("workers: %w", err)
		}
		rep.Workers = &wb
		p.logf("workers: echo p50 %s, agentcli p50 %s", wb.Echo.P50, wb.AgentCLI.P50)
	}
	if err := runMaintenance(ctx, cfg, emb, &rep, p); err != nil {
		return rep, err
	}
	rep.Elapsed = time.Since(rep.Started)
	return rep, nil
}

// runMaintenance runs the maintenance round when cfg asks for it.
func runMaintenance(ctx context.Context, cfg Config, emb embedder.Embedder, rep *Report, p progress) error {
	if cfg.MaintenanceTotal <= 0 {
		return nil
	}
	mb, err := measureMaintenance(ctx, cfg, emb, rep.Embedder, p)
	if err != nil {
		return fmt.Errorf("maintenance: %w", err)
	}
	rep.Maintenance = &mb
	return nil
}

// measureRoundTrip times Embed calls of one short text: the cost the write and read paths pay
// per plugin call, on top of the embedding itself.
func measureRoundTrip(ctx context.Context, e embedder.Embedder) (Latency, error) {
	text := []string{"which port does the billing service use"}
	// Warm up connections, TLS session and the plugin's code paths before timing.
	for range 100 {
		if _, err := e.Embed(ctx, embedder.PurposeQuery, text); err != nil {
			return Latency{}, fmt.Errorf("embed: %w", err)
		}
	}
	samples := make([]time.Duration, roundTripCalls)
	for i := range samples {
		t := time.Now()
		if _, err := e.Embed(ctx, embedder.PurposeQuery, text); err != nil {
			return Latency{}, fmt.Errorf("embed: %w", err)
		}
		samples[i] = time.Since(t)
	}
	return summarize(samples), nil
}

// progress prints timestamped lines so a long run shows where it is.
type progress struct {
	w     io.Writer
	start time.Time
}

func (p progress) logf(format string, args ...any) {
	fmt.Fprintf(p.w, "[bench %6.1fs] %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}

// runHitRecorder runs the service's hit recorder as the host does, so benchmarks pay for hit
// recording like production; the returned func stops it and waits for the last flush.
func runHitRecorder(ctx context.Context, svc *memory.Service) (stop func()) {
	g := lifecycle.NewGroup(nil, lifecycle.Func("hit recorder", svc.RecordHits))
	_ = g.Start(ctx)
	return func() { _ = g.Stop(context.WithoutCancel(ctx)) }
}
