package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/core/project"
)

// Spawn workload and targets (issue 29: spawn-to-exec overhead p50 <= 30 ms, p99 <= 50 ms).
const (
	spawnWarmup    = 5
	spawnFacts     = 200
	targetSpawnP50 = 30 * time.Millisecond
	targetSpawnP99 = 50 * time.Millisecond
)

// SpawnBench is what `memhost run` adds to the start of an agent CLI, measured end to end on
// the real binary: a fresh process that loads its config, connects to the database, mints a
// session token, fetches the banner from a running host, launches the provider plugin, lets
// it prepare the spawn, writes the scratch files and execs the CLI.
type SpawnBench struct {
	CLI   string
	Facts int
	// Run is from starting `memhost run` to the CLI's first output; Plain the same for the CLI
	// started directly, the floor that Run includes; Overhead is Run minus Plain's median.
	Run, Plain, Overhead Latency
	// Exit is from the CLI's exit to memhost run's: Finish, the journal entry, the token's
	// revocation, the scratch directory's removal and the plugin's shutdown.
	Exit Latency
	// Phases attribute Run to memhost run's steps (its timeline, spawn.TimelineEnv).
	Phases []SpawnPhase
}

// SpawnPhase is one step of memhost run, timed in every run.
type SpawnPhase struct {
	Name    string
	Latency Latency
}

// spawnPhases are the steps of a run's timeline the report attributes the overhead to: each
// is the time from the step before (from (nothing: the start of the process) to the step).
// The provider plugin starts beside the token and banner, from the loaded configuration.
var spawnPhases = []struct{ name, from, to string }{
	{"host process start (exec, Go runtime, package init)", "", spawn.StepInit},
	{"configuration loaded", spawn.StepInit, spawn.StepConfig},
	{"task read (by the provider's rules kept from an earlier run, else by the started plugin)", spawn.StepConfig, spawn.StepTask},
	{"token (kept in the user's cache after the first run)", spawn.StepConfig, spawn.StepToken},
	{"banner fetched from the host (REST)", spawn.StepToken, spawn.StepBanner},
	{"provider plugin started (beside token and banner)", spawn.StepConfig, spawn.StepPlugin},
	{"spawn planned by the provider, files written", "ready", spawn.StepPlan},
	{"CLI process started (exec)", spawn.StepPlan, spawn.StepExec},
}

// fakeCLI stands for the agent CLI: it prints one line and exits.
const fakeCLI = "#!/bin/sh\necho started\n"

// measureSpawn starts a host on a fresh schema, gives a project spawnFacts facts and a goal,
// and times runs of `memhost run claude` with a stand-in CLI.
func measureSpawn(ctx context.Context, cfg Config, p progress) (SpawnBench, error) {
	out := SpawnBench{CLI: "claude", Facts: spawnFacts}
	pool, drop, err := freshSchema(ctx, cfg.DatabaseURL, "bench_spawn")
	if err != nil {
		return out, err
	}
	defer drop()
	dir, err := os.MkdirTemp("", "memhost-bench-spawn-")
	if err != nil {
		return out, err
	}
	defer func() { _ = os.RemoveAll(dir) }()
	// bin/plugins holds the embedder and the providers side by side, as make build leaves it.
	plugins := filepath.Dir(cfg.PluginPath)
	dbURL := withSearchPath(cfg.DatabaseURL, "bench_spawn")
	h, err := startHost(ctx, cfg.HostPath, dbURL, plugins, dir)
	if err != nil {
		return out, err
	}
	defer h.stop()

	work := filepath.Join(dir, "project")
	bin := filepath.Join(dir, "bin")
	tmp := filepath.Join(dir, "tmp")
	for _, d := range []string{work, bin, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return out, err
		}
	}
	cli := filepath.Join(bin, "claude")
	if err := os.WriteFile(cli, []byte(fakeCLI), 0o700); err != nil {
		return out, err
	}
	id, err := project.Resolve(work)
	if err != nil {
		return out, err
	}
	admin, _, err := auth.NewTokens(pool).Create(ctx, auth.CreateToken{Name: "bench", Scopes: []auth.Scope{auth.ScopeAdmin}})
	if err != nil {
		return out, err
	}
	if err := seedSpawnProject(ctx, h.url, admin, id.Key); err != nil {
		return out, err
	}

	runEnv := []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + tmp}
	argv := []string{cfg.HostPath, "run", "--config", filepath.Join(dir, "memhost.toml"), "--bin", cli, "claude", "--", "-p", "hi"}
	runs := cfg.SpawnRuns
	var run, exit, plain []time.Duration
	phases := make([][]time.Duration, len(spawnPhases))
	timeline := filepath.Join(dir, "timeline.json")
	for i := range spawnWarmup + runs {
		started, first, done, err := timeFirstLine(ctx, work, append(runEnv, spawn.TimelineEnv+"="+timeline), argv)
		if err != nil {
			return out, fmt.Errorf("memhost run: %w", err)
		}
		steps, err := readTimeline(timeline, started)
		if err != nil {
			return out, err
		}
		_, base, _, err := timeFirstLine(ctx, work, runEnv, []string{cli, "-p", "hi"})
		if err != nil {
			return out, fmt.Errorf("plain CLI: %w", err)
		}
		if i >= spawnWarmup {
			run, exit, plain = append(run, first), append(exit, done-first), append(plain, base)
			for j, ph := range spawnPhases {
				phases[j] = append(phases[j], steps[ph.to]-steps[ph.from])
			}
		}
	}
	out.Run, out.Exit, out.Plain = summarize(run), summarize(exit), summarize(plain)
	for j, ph := range spawnPhases {
		out.Phases = append(out.Phases, SpawnPhase{Name: ph.name, Latency: summarize(phases[j])})
	}
	net := make([]time.Duration, len(run))
	for i, d := range run {
		net[i] = d - out.Plain.P50
	}
	out.Overhead = summarize(net)
	p.logf("spawn (memhost run claude, %d runs): overhead p50 %s p99 %s; exit %s p50", runs, out.Overhead.P50, out.Overhead.P99, out.Exit.P50)
	return out, nil
}

// seedSpawnProject gives project a goal and spawnFacts facts through the host's REST API.
func seedSpawnProject(ctx context.Context, base, admin, key string) error {
	post := func(method, path string, body any) error {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		req, err := http.NewRequestWithContext(ctx, method, base+path, bytes.NewReader(data))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+admin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		_ = resp.Body.Close()
		if resp.StatusCode >= 300 {
			return fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		return nil
	}
	if err := post(http.MethodPut, "/api/v1/projects/"+url.PathEscape(key)+"/goal", map[string]string{"text": "Keep every service deployable from main."}); err != nil {
		return err
	}
	for i := range spawnFacts {
		text := fmt.Sprintf("service%d listens on port %d and is deployed by the %s pipeline", i, 8000+i, []string{"blue", "green", "canary"}[i%3])
		if err := post(http.MethodPost, "/api/v1/memories", map[string]string{"text": text, "project": key}); err != nil {
			return err
		}
	}
	return nil
}

// readTimeline reads the timeline memhost run wrote (spawn.TimelineEnv) as each step's offset
// from started, when the benchmark started the process; "ready" is when both the banner and
// the provider plugin were there.
func readTimeline(path string, started time.Time) (map[string]time.Duration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("memhost run's timeline: %w", err)
	}
	var t spawn.Timeline
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("memhost run's timeline: %w", err)
	}
	steps := map[string]time.Duration{"": 0}
	for _, s := range t.Steps {
		steps[s.Step] = s.At.Sub(started)
	}
	for _, s := range []string{spawn.StepInit, spawn.StepConfig, spawn.StepTask, spawn.StepToken, spawn.StepBanner, spawn.StepPlugin, spawn.StepPlan, spawn.StepExec} {
		if _, ok := steps[s]; !ok {
			return nil, fmt.Errorf("memhost run's timeline has no step %q: %s", s, data)
		}
	}
	steps["ready"] = max(steps[spawn.StepBanner], steps[spawn.StepPlugin])
	return steps, os.Remove(path)
}

// timeFirstLine starts argv in dir with env and returns when it started, the time until its
// first line of output and until it exited.
func timeFirstLine(ctx context.Context, dir string, env, argv []string) (start time.Time, first, done time.Duration, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return start, 0, 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start = time.Now()
	if err := cmd.Start(); err != nil {
		return start, 0, 0, err
	}
	line, rerr := bufio.NewReader(stdout).ReadString('\n')
	first = time.Since(start)
	if werr := cmd.Wait(); werr != nil || rerr != nil || line != "started\n" {
		return start, 0, 0, fmt.Errorf("%v %v: first line %q: %s", werr, rerr, line, stderr.String())
	}
	if stderr.Len() > 0 {
		return start, 0, 0, fmt.Errorf("warned: %s", stderr.String())
	}
	return start, first, time.Since(start), nil
}

// renderSpawn writes the spawn section of the report.
func renderSpawn(b *strings.Builder, s SpawnBench, note func(string, ...any)) {
	w := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	w("\n## Spawn injection: `memhost run %s` (%d runs, project of %d facts)\n\n", s.CLI, s.Overhead.N, s.Facts)
	w("| metric | target | measured | |\n| --- | --- | --- | --- |\n")
	w("| spawn-to-exec overhead p50 | <= %s | %s | %s |\n", ms(targetSpawnP50), ms(s.Overhead.P50), verdict(s.Overhead.P50 <= targetSpawnP50))
	w("| spawn-to-exec overhead p99 | <= %s | %s | %s |\n", ms(targetSpawnP99), ms(s.Overhead.P99), verdict(s.Overhead.P99 <= targetSpawnP99))
	w("| memhost run to the CLI's first line, p50 / p99 | | %s / %s | |\n", ms(s.Run.P50), ms(s.Run.P99))
	w("| the CLI alone to its first line, p50 / p99 | | %s / %s | |\n", ms(s.Plain.P50), ms(s.Plain.P99))
	w("| after the CLI exits (Finish, journal, revoke, cleanup), p50 / p99 | | %s / %s | |\n", ms(s.Exit.P50), ms(s.Exit.P99))
	if len(s.Phases) > 0 {
		w("\nWhere memhost run's share goes (its timeline, `%s`; each step from the one before it, in every run):\n\n", spawn.TimelineEnv)
		w("| step | p50 | p99 |\n| --- | --- | --- |\n")
		for _, ph := range s.Phases {
			w("| %s | %s | %s |\n", ph.Name, ms(ph.Latency.P50), ms(ph.Latency.P99))
		}
		w("| the CLI's own start to its first line (the stand-in alone) | %s | %s |\n", ms(s.Plain.P50), ms(s.Plain.P99))
	}
	if s.Overhead.P50 > targetSpawnP50 || s.Overhead.P99 > targetSpawnP99 {
		note("Spawn overhead (p50 %s, p99 %s): the steps' table says where it goes; a fresh memhost process, the provider plugin's start beside the token and banner, and the CLI's exec share two cores with everything else on the machine.", ms(s.Overhead.P50), ms(s.Overhead.P99))
	}
}
