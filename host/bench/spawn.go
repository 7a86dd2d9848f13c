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
	"github.com/memhost/memhost/host/internal/core/project"
)

// Spawn workload and targets (design brief: spawn-to-exec overhead p50 <= 30 ms, p99 <= 60 ms).
const (
	spawnWarmup    = 5
	spawnFacts     = 200
	targetSpawnP50 = 30 * time.Millisecond
	targetSpawnP99 = 60 * time.Millisecond
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
	for i := range spawnWarmup + runs {
		first, done, err := timeFirstLine(ctx, work, runEnv, argv)
		if err != nil {
			return out, fmt.Errorf("memhost run: %w", err)
		}
		base, _, err := timeFirstLine(ctx, work, runEnv, []string{cli, "-p", "hi"})
		if err != nil {
			return out, fmt.Errorf("plain CLI: %w", err)
		}
		if i >= spawnWarmup {
			run, exit, plain = append(run, first), append(exit, done-first), append(plain, base)
		}
	}
	out.Run, out.Exit, out.Plain = summarize(run), summarize(exit), summarize(plain)
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

// timeFirstLine starts argv in dir with env and returns the time until its first line of
// output and until it exited.
func timeFirstLine(ctx context.Context, dir string, env, argv []string) (first, done time.Duration, err error) {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	line, rerr := bufio.NewReader(stdout).ReadString('\n')
	first = time.Since(start)
	if werr := cmd.Wait(); werr != nil || rerr != nil || line != "started\n" {
		return 0, 0, fmt.Errorf("%v %v: first line %q: %s", werr, rerr, line, stderr.String())
	}
	if stderr.Len() > 0 {
		return 0, 0, fmt.Errorf("warned: %s", stderr.String())
	}
	return first, time.Since(start), nil
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
	if s.Overhead.P50 > targetSpawnP50 || s.Overhead.P99 > targetSpawnP99 {
		note("Spawn overhead: a fresh memhost process connects to PostgreSQL, mints a token, fetches the banner over REST and starts the provider plugin (~15 ms, concurrently) before the CLI runs; on 2 shared cores the process and plugin starts dominate.")
	}
}
