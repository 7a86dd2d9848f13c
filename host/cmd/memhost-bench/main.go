// Command memhost-bench runs memhost's benchmark (see package internal/bench) against a real
// PostgreSQL and a real embedder plugin, and writes the results as markdown. `make bench`
// runs it through scripts/bench.sh.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/memhost/memhost/host/bench"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "memhost-bench:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg := bench.Config{Progress: os.Stderr}
	var sizes, out, dense, saveTo, renderFrom string
	var calibrate, onlyValue bool
	flag.StringVar(&cfg.DatabaseURL, "db", os.Getenv("MEMHOST_BENCH_DATABASE_URL"), "database URL; the benchmark creates and drops schemas bench_* in it")
	flag.StringVar(&cfg.PluginPath, "plugin", "../bin/plugins/memhost-embedder-bm25", "embedder plugin binary")
	flag.StringVar(&sizes, "sizes", "1000,10000,100000", "comma-separated corpus sizes (memories in one project); empty for none")
	flag.StringVar(&cfg.PairsPath, "pairs", "../plugins/embed-bm25/bm25/testdata/pairs.jsonl", "labelled fold pairs (JSON Lines)")
	flag.StringVar(&cfg.QualityPath, "quality", "internal/bench/testdata/quality.json", "retrieval quality set")
	flag.IntVar(&cfg.Distractors, "distractors", 5000, "synthetic memories next to the quality set")
	flag.StringVar(&cfg.RetrievalDir, "retrieval", "internal/bench/testdata/retrieval", "retrieval benchmark directory; empty skips it")
	flag.IntVar(&cfg.RetrievalFiller, "retrieval-filler", 1000, "synthetic memories per project in the retrieval benchmark's second run; 0 skips that run")
	flag.IntVar(&cfg.SelectionFiller, "selection-filler", 300, "synthetic memories per project in the banner-selection round (on the retrieval set); negative skips it")
	flag.StringVar(&cfg.ValueClaude, "value-claude", pinnedClaude(), "Claude Code binary of the value A/B round (default: the pinned one make e2e-cli installed, if any); empty skips the round")
	flag.IntVar(&cfg.ImportBatch, "import-batch", 2000, "records per store.Import call")
	flag.IntVar(&cfg.ImportWorkers, "import-workers", 2, "concurrent store.Import calls")
	flag.Uint64Var(&cfg.Seed, "seed", 7420, "corpus seed")
	flag.StringVar(&out, "out", "../docs/benchmarks.md", "markdown report to write; - for stdout")
	flag.StringVar(&saveTo, "save", "", "also write the run's measurements as JSON to this file, for -render")
	flag.StringVar(&renderFrom, "render", "", "measure nothing: render the measurements a -save run wrote (a change to the report's text needs no new run)")
	flag.IntVar(&cfg.SharedTotal, "shared", 100000, "memories in the shared-database round (100 projects + one large); 0 skips it")
	flag.IntVar(&cfg.SharedOps, "shared-ops", 200, "timed memory_store and memory_search calls per class of project in the shared round")
	flag.StringVar(&cfg.HostPath, "host", "../bin/memhost", "memhost binary the shared round starts")
	flag.BoolVar(&cfg.KeepShared, "keep-shared", false, "keep the shared round's schema bench_shared for inspection (the next run replaces it)")
	flag.BoolVar(&cfg.ReuseShared, "reuse-shared", false, "time the shared round on the schema a -keep-shared run left, without loading it again (same -shared and -seed)")
	flag.BoolVar(&cfg.OnlyShared, "only-shared", false, "run the shared-database round alone (make bench-1m); the report is one section of docs/benchmarks-1m.md")
	flag.BoolVar(&cfg.Prewarm, "prewarm", false, "load the shared round's table and indexes into shared_buffers (pg_prewarm) before timing it")
	flag.StringVar(&cfg.ProseRoot, "prose", "", "texts of the shared round: a Go source tree (default: GOROOT/src)")
	flag.IntVar(&cfg.MaintenanceTotal, "maintenance", 100000, "memories in the maintenance round (a full pass with a stand-in model behind memhost-worker-openaicompat beside -plugin); 0 skips it")
	flag.BoolVar(&cfg.OnlyMaintenance, "only-maintenance", false, "run the maintenance round alone")
	flag.IntVar(&cfg.WorkerCalls, "worker-calls", 200, "timed calls of each worker (needs memhost-worker-echo and memhost-worker-agentcli beside -plugin); 0 skips them")
	flag.BoolVar(&cfg.OnlySpawn, "only-spawn", false, "run the spawn round alone")
	flag.IntVar(&cfg.SpawnRuns, "spawn-runs", 100, "timed runs of memhost run (needs -host and the provider plugins beside -plugin); 0 skips them")
	flag.StringVar(&dense, "dense", "", "comma-separated widths of the dense rounds (e.g. 768,1024): the shared round again with the densefake plugin; empty skips them")
	flag.StringVar(&cfg.DensePlugin, "dense-plugin", "", "the densefake embedder plugin, alone in its folder (scripts/bench.sh builds it)")
	flag.BoolVar(&cfg.OnlyDense, "only-dense", false, "run the dense rounds alone; the report is their section")
	flag.StringVar(&cfg.PeerCommand, "peer", "", "command that starts @ai-devkit/memory's MCP server over stdio (e.g. \"node host/bench/peers/node_modules/@ai-devkit/memory/dist/index.js\"): the peers round; empty skips it")
	flag.IntVar(&cfg.PeerOps, "peer-ops", 600, "timed memory_store and memory_search calls on each side of the peers round")
	flag.IntVar(&cfg.PeerPreload, "peer-preload", 1000, "facts stored on each side of the peers round before the timed calls")
	flag.BoolVar(&cfg.OnlyPeers, "only-peers", false, "run the peers round alone (make bench-peers), and the slow-model round when -slow-model is set")
	flag.StringVar(&cfg.SlowModel, "slow-model", "", "command that serves a real CPU model's /v1/embeddings on the port added as its last argument (e.g. \"node host/bench/use-lite/server.js\"): the slow-model round; empty skips it")
	flag.IntVar(&cfg.SlowOps, "slow-ops", 200, "timed memory_store calls on each host of the slow-model round")
	flag.BoolVar(&onlyValue, "only-value", false, "run the value A/B round alone (needs -value-claude, -host and the providers beside -plugin) and write its report")
	flag.BoolVar(&calibrate, "calibrate", false, "only measure the -plugin embedder's relevance floor, vector weight and fold threshold on the -retrieval and fold sets, and print the configuration that applies them (docs/ranking.md)")
	flag.Parse()
	if renderFrom != "" {
		rep, err := bench.LoadReport(renderFrom)
		if err != nil {
			return err
		}
		return writeReport(out, bench.Render(rep))
	}
	if cfg.ProseRoot == "" {
		goroot, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			return fmt.Errorf("-prose: find GOROOT: %w", err)
		}
		cfg.ProseRoot = filepath.Join(strings.TrimSpace(string(goroot)), "src")
	}
	if cfg.DatabaseURL == "" {
		return fmt.Errorf("-db (or MEMHOST_BENCH_DATABASE_URL) is required")
	}
	for _, s := range strings.FieldsFunc(sizes, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-sizes: %q is not a positive integer", s)
		}
		cfg.Sizes = append(cfg.Sizes, n)
	}
	for _, s := range strings.FieldsFunc(dense, func(r rune) bool { return r == ',' }) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 8 || n > 2000 {
			return fmt.Errorf("-dense: %q is not a width from 8 to 2000", s)
		}
		cfg.DenseDims = append(cfg.DenseDims, n)
	}
	var err error
	if cfg.Redact, cfg.RedactNote, err = redactor(); err != nil {
		return fmt.Errorf("redactor: %w", err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if onlyValue {
		if cfg.ValueClaude == "" {
			return fmt.Errorf("-only-value: no Claude Code binary (run make e2e-cli once, or pass -value-claude)")
		}
		v, err := bench.RunValueAB(ctx, bench.ABOptions{DatabaseURL: cfg.DatabaseURL, HostPath: cfg.HostPath, PluginDir: filepath.Dir(cfg.PluginPath),
			Claude: cfg.ValueClaude, QualityPath: cfg.QualityPath, Seed: cfg.Seed, Progress: os.Stderr})
		if err != nil {
			return err
		}
		return writeReport(out, bench.RenderValueAB(v))
	}
	if calibrate {
		c, err := bench.CalibrateEmbedder(ctx, cfg)
		if err != nil {
			return err
		}
		return writeReport(out, bench.RenderCalibration(c))
	}
	rep, err := bench.Run(ctx, cfg)
	if err != nil {
		return err
	}
	if saveTo != "" {
		if err := bench.SaveReport(saveTo, rep); err != nil {
			return err
		}
	}
	if err := writeReport(out, bench.Render(rep)); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "memhost-bench: took %s\n", rep.Elapsed.Round(1e9))
	return nil
}

// pinnedClaude is the Claude Code `make e2e-cli` installed in its cache ($TMPDIR/memhost-cli-cache),
// or "" when it has not run on this machine.
func pinnedClaude() string {
	m, _ := filepath.Glob(filepath.Join(os.TempDir(), "memhost-cli-cache", "*", "node_modules", "@anthropic-ai", "claude-code", "bin", "claude.exe"))
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1]
}

// writeReport writes md to out, or to stdout for "-".
func writeReport(out, md string) error {
	if out == "-" {
		_, err := os.Stdout.WriteString(md)
		return err
	}
	if err := os.WriteFile(out, []byte(md), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	fmt.Fprintf(os.Stderr, "memhost-bench: wrote %s\n", out)
	return nil
}
