//go:build e2ecli

package e2ecli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/worker"
)

// The tests here prove the agentcli worker on the real CLIs: the host's task runner
// (host/internal/jobs/tasks) launches the real memhost-worker-agentcli plugin over go-plugin, which
// runs the CLI headless against a stand-in model, for a user who ran `memhost connect`.

// mergeSchema is the merge task's answer shape (the one `memhost workers try merge` sends).
const mergeSchema = `{"type":"object","required":["text"],"properties":{"text":{"type":"string"}},"additionalProperties":false}`

// mergedText is what the stand-in answers for the merge.
const mergedText = "Always install packages with pnpm, never npm."

// workerCLI is one CLI as a worker runs it: how the stand-in answers the merge, and the user's
// own environment pointing the CLI at a model endpoint.
type workerCLI struct {
	pkg    npmPackage
	proto  standin.Protocol
	answer standin.Turn
	// merged is the merged memory the worker must return.
	merged string
	// user writes the user's configuration for a model at url and returns their variables.
	user func(t *testing.T, b *bundle, url string) []string
}

var workerCLIs = []workerCLI{
	{
		pkg: claudeCode, proto: standin.Anthropic,
		// --json-schema: Claude Code asks for the answer through its StructuredOutput tool.
		answer: standin.CallTool("StructuredOutput", map[string]string{"text": mergedText}), merged: mergedText,
		user: func(t *testing.T, b *bundle, url string) []string {
			// As in claudeEnv: `memhost connect` runs `claude mcp add`, which would otherwise
			// send telemetry.
			return []string{"CLAUDE_CONFIG_DIR=" + filepath.Join(b.home, ".claude"), "ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=" + apiKey(),
				"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
		},
	},
	{
		pkg: codex, proto: standin.Responses,
		// Read-only and with --output-schema, Codex offers the model no tool, so the stand-in
		// answers as it answers side calls: the smallest value of the schema the request
		// carries ("standin" for a string), which proves the task's schema reached the model. Its
		// script turn (the zero Turn) is never used.
		merged: "standin",
		user: func(t *testing.T, b *bundle, url string) []string {
			return []string{"CODEX_HOME=" + codexUserHome(t, b, url), "STANDIN_API_KEY=" + apiKey()}
		},
	},
	{
		pkg: geminiCLI, proto: standin.Gemini,
		answer: standin.Say(`{"text":"` + mergedText + `"}`), merged: mergedText,
		user: func(t *testing.T, b *bundle, url string) []string {
			geminiSettings(t, b, nil)
			return []string{"GEMINI_CLI_HOME=" + b.home, "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_API_KEY=" + apiKey()}
		},
	},
}

// TestWorkerAgentCLI: for each CLI, a user connected to memhost (`memhost connect`: its hook
// and MCP server in the CLI's user settings) has the agentcli worker answer a merge task. The
// answer satisfies the schema, the call is in worker_calls, and nothing of memhost (the
// project's goal and facts, memhost's tools) is in any request the CLI sent. With a model that
// never answers, the task's deadline ends the call and no CLI process is left.
func TestWorkerAgentCLI(t *testing.T) {
	t.Parallel()
	for _, c := range workerCLIs {
		t.Run(c.pkg.bin, func(t *testing.T) {
			t.Parallel()
			b := setup(t, c.proto, c.answer)
			w := newSpawnWorld(t, b)
			goal, fact := w.seed(t)
			user := c.user(t, b, b.model.URL())
			w.connectCLI(t, c.pkg, b.env(t, user...), false)

			r, pool, marker := openWorker(t, b, c.pkg, user)
			a, call, err := r.Run(t.Context(), worker.TaskMerge, mergeTask(time.Now().Add(90*time.Second)))
			require.NoError(t, err, "requests: %d", len(b.model.Requests()))
			var merged struct{ Text string }
			require.NoError(t, json.Unmarshal([]byte(a.Text), &merged), a.Text)
			require.Equal(t, c.merged, merged.Text)
			require.Equal(t, tasks.OK, call.Outcome)
			require.Equal(t, [][2]string{{"merge", string(tasks.OK)}}, workerCalls(t, pool))

			reqs := b.model.Requests()
			require.NotEmpty(t, reqs)
			for i, req := range reqs {
				require.False(t, req.Contains(goal) || req.Contains(fact), "request %d carries the project's banner", i)
				require.False(t, req.Contains("SessionStart hook"), "request %d carries a hook's context", i)
				_, ok := req.FindTool("memory_search")
				require.False(t, ok, "request %d offers memhost's tools", i)
			}
			require.Empty(t, b.egress.seen(), "the CLI tried the network")
			requireNoWorkerCLI(t, marker)

			// A model that never answers: the task's deadline, not the CLI, ends the call.
			stop := make(chan struct{})
			hang := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				select {
				case <-r.Context().Done():
				case <-stop:
				}
			}))
			t.Cleanup(func() { close(stop); hang.Close() })
			r, pool, marker = openWorker(t, b, c.pkg, c.user(t, b, hang.URL))
			start := time.Now()
			_, _, err = r.Run(t.Context(), worker.TaskMerge, mergeTask(time.Now().Add(8*time.Second)))
			require.Error(t, err)
			require.True(t, errors.Is(err, context.DeadlineExceeded), "%v", err)
			require.Less(t, time.Since(start), 20*time.Second)
			require.Equal(t, [][2]string{{"merge", string(tasks.TimedOut)}}, workerCalls(t, pool))
			requireNoWorkerCLI(t, marker)
		})
	}
}

// mergeTask is a merge of two memories that say the same thing.
func mergeTask(deadline time.Time) worker.Task {
	return worker.Task{
		Instructions: "Merge the numbered memories, which say the same thing, into one short memory. Answer with JSON.",
		Input:        "1. The project uses pnpm.\n2. Always use pnpm, never npm, in this repository.",
		Schema:       mergeSchema, Deadline: deadline,
	}
}

// openWorker starts the host's task runner with one agentcli worker running p, whose plugin
// process has the user's environment (b's isolated home, node on PATH, the egress recorder as
// proxy, and user) and a marker variable that its CLI inherits. The runner's plugin
// environment is an allow-list of the host's own (PATH, HOME, proxies), so a wrapper named as
// the plugin sets the user's variables and execs the real plugin. It returns the runner, the
// database holding worker_calls and the marker.
func openWorker(t *testing.T, b *bundle, p npmPackage, user []string) (*tasks.Runner, *pgxpool.Pool, string) {
	t.Helper()
	marker := "E2ECLI_WORKER_RUN=" + randomHex(8)
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for _, kv := range append(b.env(t, user...), marker) {
		fmt.Fprintf(&script, "export %s\n", shellQuote(kv))
	}
	real := filepath.Join(testplugins.Workers(t), "memhost-worker-agentcli")
	fmt.Fprintf(&script, "exec %s \"$@\"\n", shellQuote(real))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "memhost-worker-agentcli"), []byte(script.String()), 0o700))

	pool, _ := testdb.Migrated(t)
	cfg := config.Default()
	cfg.Plugins.Dirs = []string{dir}
	cfg.Log.Level = "error"
	name := "e2e-" + p.bin
	cfg.Workers.Defined[name] = config.Worker{Plugin: "agentcli", CLI: p.bin, CLIPath: cliPath(t, p)}
	require.Empty(t, cfg.Validate())
	r, err := tasks.Open(t.Context(), tasks.Options{Config: cfg, Pool: pool, Log: slog.New(slog.DiscardHandler),
		Registerer: prometheus.NewRegistry(), LookPath: func(string) (string, error) { return "", exec.ErrNotFound }})
	require.NoError(t, err)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, r.Close(ctx))
		require.Empty(t, reapRun(0, marker), "processes left after the worker stopped")
	})
	return r, pool, marker
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// workerCalls lists worker_calls as (task, outcome).
func workerCalls(t *testing.T, pool *pgxpool.Pool) [][2]string {
	t.Helper()
	rows, err := pool.Query(t.Context(), `SELECT task, outcome FROM worker_calls ORDER BY id`)
	require.NoError(t, err)
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var task, outcome string
		require.NoError(t, rows.Scan(&task, &outcome))
		out = append(out, [2]string{task, outcome})
	}
	require.NoError(t, rows.Err())
	return out
}

// workerCLIProcesses are the live processes with marker that the worker started: they carry
// worker.RunMarkerEnv, which the plugin process itself does not.
func workerCLIProcesses(marker string) map[int]string {
	found := runProcesses(0, marker)
	for pid := range found {
		environ, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil || !bytes.Contains(environ, []byte(worker.RunMarkerEnv+"=1\x00")) {
			delete(found, pid)
		}
	}
	return found
}

// requireNoWorkerCLI fails when a CLI the worker ran is still alive after its task.
func requireNoWorkerCLI(t *testing.T, marker string) {
	t.Helper()
	require.Eventually(t, func() bool { return len(workerCLIProcesses(marker)) == 0 }, 5*time.Second, 50*time.Millisecond,
		"a CLI outlived its task: %v", workerCLIProcesses(marker))
}
