package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/worker"

	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// runWorld is a user's machine for memhost run: a project, a home, the fake CLIs on PATH and a
// temporary directory of its own (where the scratch root goes).
type runWorld struct {
	h                       *host
	project, home, tmp, out string
	env                     []string
}

// newRunWorld starts a host whose plugin folders hold the provider plugins beside the
// embedder, as bin/plugins does after make build.
func newRunWorld(t *testing.T) *runWorld {
	t.Helper()
	h := newHost(t)
	cfg, err := os.ReadFile(h.config)
	require.NoError(t, err)
	withProviders := strings.Replace(string(cfg), "dirs = [", "dirs = ["+quote(testplugins.Providers(t))+", ", 1)
	require.NoError(t, os.WriteFile(h.config, []byte(withProviders), 0o600))
	root := t.TempDir()
	w := &runWorld{h: h, project: filepath.Join(root, "project"), home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), out: filepath.Join(root, "out")}
	bin := filepath.Join(root, "bin")
	for _, d := range []string{w.project, w.home, w.tmp, bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	testplugins.FakeCLIs(t, bin)
	w.env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + w.home, "TMPDIR=" + w.tmp, "LANG=C.UTF-8", "FAKE_OUT=" + w.out}
	return w
}

func quote(s string) string { return `"` + s + `"` }

// memhostRun starts `memhost run` in the project with extra environment.
func (w *runWorld) memhostRun(t *testing.T, env []string, args ...string) (*exec.Cmd, *testlog.Buffer) {
	t.Helper()
	cmd := exec.Command(w.h.bin, append([]string{"run", "--config", w.h.config}, args...)...)
	cmd.Dir = w.project
	cmd.Env = append(append([]string{}, w.env...), env...)
	out := &testlog.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return cmd, out
}

// exitStatus waits for cmd and returns its exit status.
func exitStatus(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	err := cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

func (w *runWorld) recorded(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.out, name))
	require.NoError(t, err)
	return string(b)
}

// requireNoScratch requires that memhost run left no scratch directory.
func (w *runWorld) requireNoScratch(t *testing.T) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(w.tmp, "memhost-run-"+strconv.Itoa(os.Getuid())))
	if !os.IsNotExist(err) {
		require.NoError(t, err)
	}
	require.Empty(t, entries)
}

// TestRunInjectsTheProjectAndJournalsTheSession: `memhost run claude` against a real host:
// the banner carries the project's memory, the CLI's MCP token works for this project only
// while the session runs, the CLI's exit code is memhost run's, the journal records the
// session, and the daemon never launched the provider plugins beside its embedder.
func TestRunInjectsTheProjectAndJournalsTheSession(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.start()
	require.Len(t, pluginStates(t, w.h), 1, "the daemon runs its embedder, not the providers")
	admin := w.h.token("--scopes", "admin", "--name", "e2e-admin")
	ctx := context.Background()
	status, body, err := w.h.rest(ctx, admin, "POST", "/api/v1/memories",
		`{"text":"run-sentinel: we use pnpm, never npm","project":"`+w.project+`"}`)
	require.NoError(t, err)
	require.Equal(t, 201, status, body)

	cmd, out := w.memhostRun(t, []string{"FAKE_EXIT=7"}, "claude", "--", "-p", "what do we use?")
	require.Equal(t, 7, exitStatus(t, cmd), out.String())
	require.Empty(t, out.String(), "memhost run adds nothing to the CLI's output")
	args := strings.Split(strings.TrimSuffix(w.recorded(t, "args"), "\x00"), "\x00")
	require.Equal(t, []string{"-p", "what do we use?"}, args[len(args)-2:])
	var bannerFile, mcpConfig string
	for _, a := range args {
		require.NotContains(t, a, "run-sentinel", "the banner never reaches the command line")
		if v, ok := strings.CutPrefix(a, "--append-system-prompt-file="); ok {
			bannerFile = v
		}
		if v, ok := strings.CutPrefix(a, "--mcp-config="); ok {
			mcpConfig = v
		}
	}
	require.NotEmpty(t, bannerFile)
	require.Contains(t, w.recorded(t, "file-banner.md"), "run-sentinel: we use pnpm, never npm")
	require.NotEmpty(t, mcpConfig)
	cfg := w.recorded(t, "file-mcp.json")
	require.Contains(t, cfg, `"url":"`+w.h.url+`/mcp"`)
	token := cfg[strings.Index(cfg, "Bearer ")+len("Bearer ") : strings.Index(cfg, "Bearer ")+len("Bearer ")+46]
	require.True(t, strings.HasPrefix(token, "mh_"), cfg)

	// The token is this project's only, and is kept for its next sessions.
	status, _, err = w.h.rest(ctx, token, "GET", "/api/v1/projects/"+url.PathEscape(w.project)+"/journal", "")
	require.NoError(t, err)
	require.Equal(t, 200, status)
	status, _, err = w.h.rest(ctx, token, "GET", "/api/v1/projects/"+url.PathEscape("github.com/someone/else")+"/journal", "")
	require.NoError(t, err)
	require.Equal(t, 403, status)
	status, body, err = w.h.rest(ctx, admin, "GET", "/api/v1/projects/"+url.PathEscape(w.project)+"/journal", "")
	require.NoError(t, err)
	require.Equal(t, 200, status, body)
	entries, _ := body["entries"].([]any)
	require.Len(t, entries, 1, body)
	entry := entries[0].(map[string]any)
	require.Equal(t, "claude", entry["agent"])
	require.Equal(t, strings.TrimPrefix(args[len(args)-3], "--session-id="), entry["session"])
	require.Contains(t, entry["text"], "with exit code 7")

	list := w.h.run("token", "list")
	require.Equal(t, 1, strings.Count(list, "memhost run claude"), list)
	require.Contains(t, list, "EXPIRES")
	w.requireNoScratch(t)

	// The next session reuses the project's token; one with --token-per-session gets its own,
	// revoked when it ends.
	cmd, out = w.memhostRun(t, nil, "codex", "--", "exec", "hi")
	require.Equal(t, 0, exitStatus(t, cmd), out.String())
	require.Equal(t, 1, strings.Count(w.h.run("token", "list"), "memhost run "), "reused")
	require.NoError(t, os.RemoveAll(w.out))
	cmd, out = w.memhostRun(t, nil, "--token-per-session", "codex", "--", "exec", "hi")
	require.Equal(t, 0, exitStatus(t, cmd), out.String())
	codexCfg := w.recorded(t, "codex-home/config.toml")
	at := strings.Index(codexCfg, "Bearer ") + len("Bearer ")
	own := codexCfg[at : at+46]
	require.NotEqual(t, token, own)
	status, _, err = w.h.rest(ctx, own, "GET", "/api/v1/projects/"+url.PathEscape(w.project)+"/journal", "")
	require.NoError(t, err)
	require.Equal(t, 401, status, "revoked when its session ended")
}

// pluginStates reads the plugin states from /readyz.
func pluginStates(t *testing.T, h *host) []map[string]any {
	t.Helper()
	r, err := h.ready()
	require.NoError(t, err)
	return r.Plugins
}

// TestRunPassesSignalsOnAndCleansUp: SIGTERM to memhost run reaches the CLI; memhost run exits
// with the CLI's status and leaves nothing behind.
func TestRunPassesSignalsOnAndCleansUp(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.start()
	cmd, out := w.memhostRun(t, []string{"FAKE_MODE=wait"}, "codex")
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(w.out, "ready"))
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "the CLI never started: %s", out)
	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	require.Equal(t, 143, exitStatus(t, cmd), out.String())
	require.Equal(t, "TERM\n", w.recorded(t, "signal"))
	w.requireNoScratch(t)
}

// TestRunWithoutAHostStartsTheCLIPlain: memory never blocks work.
func TestRunWithoutAHostStartsTheCLIPlain(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.run("migrate") // the database is there, the host is not running
	cmd, out := w.memhostRun(t, nil, "gemini", "--", "-p", "hi")
	require.Equal(t, 0, exitStatus(t, cmd), out.String())
	require.Equal(t, "-p\x00hi\x00", w.recorded(t, "args"))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1, out.String())
	require.Contains(t, lines[0], "unreachable")
	require.True(t, strings.HasSuffix(lines[0], "; starting gemini without memory"), lines[0])
	w.requireNoScratch(t)
}

// TestHookSessionStart: the hook memhost connect installs prints the banner of the project in
// the hook input's cwd, in the shape Claude Code and Gemini CLI inject; without a host it
// prints nothing, says why on stderr and still exits 0, so the CLI starts.
func TestHookSessionStart(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.start()
	admin := w.h.token("--scopes", "admin", "--name", "e2e-admin")
	status, body, err := w.h.rest(context.Background(), admin, "POST", "/api/v1/memories",
		`{"text":"hook-sentinel: deploys go through the staging cluster first","project":"`+w.project+`"}`)
	require.NoError(t, err)
	require.Equal(t, 201, status, body)

	hook := func(env ...string) (string, string, int) {
		cmd := exec.Command(w.h.bin, "--config", w.h.config, "hook", "session-start", "--cli", "claude")
		cmd.Dir = w.home // the project comes from the input, not from where the hook runs
		cmd.Env = append(append([]string{}, w.env...), env...)
		cmd.Stdin = strings.NewReader(`{"session_id":"abc","hook_event_name":"SessionStart","cwd":"` + w.project + `"}`)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		require.NoError(t, cmd.Start())
		code := exitStatus(t, cmd)
		return out.String(), errOut.String(), code
	}
	stdout, stderr, code := hook()
	require.Zero(t, code, stderr)
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
	require.Equal(t, "SessionStart", out.HookSpecificOutput.HookEventName)
	require.Contains(t, out.HookSpecificOutput.AdditionalContext, "hook-sentinel: deploys go through the staging cluster first")

	// A CLI a worker plugin runs (worker-agentcli) gets no banner: no recursion into memory.
	stdout, stderr, code = hook(worker.RunMarkerEnv + "=1")
	require.Zero(t, code, stderr)
	require.Empty(t, stdout, "a worker's CLI run gets no banner")
	require.Empty(t, stderr)

	require.NoError(t, w.h.signal(syscall.SIGTERM))
	stdout, stderr, code = hook()
	require.Zero(t, code)
	require.Empty(t, stdout)
	require.True(t, strings.HasPrefix(stderr, "memhost: no project banner for this session: "), stderr)
	require.Equal(t, 1, strings.Count(stderr, "\n"), stderr)
}
