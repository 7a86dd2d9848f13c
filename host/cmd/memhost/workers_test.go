package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestWorkersThroughTheCLI: an operator configures two workers for merge, the first broken;
// `memhost workers try` shows the second answered, with its latency, tokens and validated
// result; `memhost workers` shows each worker's state and day; a chain changed from the CLI
// applies at once; only an admin token may do any of it.
func TestWorkersThroughTheCLI(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "", `{"text":"Use pnpm, never npm."}`)
	w := serveWorkers(t, fmt.Sprintf(`[workers.gone]
plugin = "openaicompat"
base_url = "%s/v1"
model = "gone"
[workers.local]
plugin = "openaicompat"
base_url = "%s/v1"
model = "good"
[workers.chains]
merge = ["gone", "local"]
`, api.URL, api.URL))
	core, cfg, handler := w.core, w.flags[1], w.handler
	ctx := context.Background()
	reader, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "reader", Scopes: []auth.Scope{auth.ScopeRead}})
	require.NoError(t, err)
	p := w.flags

	out, err := run(t, append([]string{"workers", "try", "merge"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `task merge answered by local \(model good\) in \d+ms, tokens 120 in / 9 out`, out)
	require.Contains(t, out, "attempts: gone unavailable (the runtime has no such model or endpoint (HTTP 404): model 'gone' not found); local ok")
	require.Contains(t, out, `result: {"text":"Use pnpm, never npm."}`)

	out, err = run(t, append([]string{"workers", "try", "merge", "--worker", "gone"}, p...)...)
	require.EqualError(t, err, "task merge: no worker of the chain answered: gone unavailable (the runtime has no such model or endpoint (HTTP 404): model 'gone' not found)")
	require.Contains(t, out, "attempts: gone unavailable")

	out, err = run(t, append([]string{"workers"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `gone\s+openaicompat\s+gone\s+\w+\s+2\s+0%.*last call unavailable \(below\)`, out)
	require.Regexp(t, `gone: last call unavailable at [\d-]+ [\d:]+ \(merge\): the runtime has no such model or endpoint \(HTTP 404\): model 'gone' not found`, out)
	require.Regexp(t, `local\s+openaicompat\s+good\s+ready\s+1\s+100%\s+\S+\s+\S+\s+120/9`, out)
	require.Contains(t, out, "merge: gone -> local")
	require.Contains(t, out, "gatekeeper: gone -> local", "a kind without a chain tries every worker")

	out, err = run(t, append([]string{"workers", "chain", "merge", "local"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "merge: local")
	out, err = run(t, append([]string{"workers", "--json"}, p...)...)
	require.NoError(t, err, out)
	var st wire.WorkersStatus
	require.NoError(t, json.Unmarshal([]byte(out), &st), out)
	require.Equal(t, "merge", st.Tasks[0].Task)
	require.Equal(t, []string{"local"}, st.Tasks[0].Chain)

	_, err = run(t, append([]string{"workers", "chain", "merge", "local", "nope"}, p...)...)
	require.ErrorContains(t, err, `workers: names "nope", which is not a defined worker (defined: gone, local)`)
	_, err = run(t, append([]string{"workers", "try", "summarise"}, p...)...)
	require.ErrorContains(t, err, `task: "summarise" is not a task kind`)
	_, err = run(t, "workers", "--config", cfg, "--token", reader)
	require.ErrorContains(t, err, "admin scope")

	// memhost plugins shows the worker processes beside the embedder.
	out, err = run(t, append([]string{"plugins"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `worker\s+local\s+\S+\s+ready`, out)
	require.Regexp(t, `worker\s+gone\s+\S+\s+\w+`, out)

	// The routes are in the API's description.
	resp, err := http.Get(w.url + "/api/v1/openapi.json")
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	n := 0
	for _, route := range handler.(*gin.Engine).Routes() {
		if !strings.HasPrefix(route.Path, "/api/v1/workers") {
			continue
		}
		n++
		_, ok := doc.Paths[strings.Replace(route.Path, ":task", "{task}", 1)][strings.ToLower(route.Method)]
		require.True(t, ok, "%s %s is not in openapi.json", route.Method, route.Path)
	}
	require.Equal(t, 3, n)
}

// servedWorkers is a host serving with workers: the flags that reach it with an admin token,
// its core, handler and URL.
type servedWorkers struct {
	flags   []string
	core    *server.Core
	handler http.Handler
	url     string
}

// serveWorkers serves a host whose config ends with workers (TOML tables).
func serveWorkers(t *testing.T, workers string) servedWorkers {
	t.Helper()
	ln := httptest.NewUnstartedServer(nil)
	cfg := filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf("[server]\nlisten = %q\n[database]\nurl = %q\n[plugins]\ndirs = [%q, %q]\n[log]\nlevel = \"warn\"\n%s",
		ln.Listener.Addr().String(), testdb.Schema(t), testplugins.Dir(t), testplugins.Workers(t), workers)
	require.NoError(t, os.WriteFile(cfg, []byte(body), 0o600))
	core := openCore(t, cfg)
	require.NoError(t, core.StartWorkers(t.Context()))
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	admin, _, err := core.Tokens.Create(context.Background(), auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeAdmin}})
	require.NoError(t, err)
	return servedWorkers{flags: []string{"--config", cfg, "--token", admin}, core: core, handler: handler, url: ln.URL}
}

// workersHost serves a host whose config ends with workers and returns the flags that reach
// it with an admin token.
func workersHost(t *testing.T, workers string) []string { return serveWorkers(t, workers).flags }

// TestWorkerFailuresSayWhy: a worker that fails says why, in `workers try` and in `workers`:
// the endpoint refused the connection, rejected the key (401), has no such model, or the agent
// CLI exited 1, with its last line on stderr.
func TestWorkerFailuresSayWhy(t *testing.T) {
	t.Parallel()
	keyed := testplugins.NewOpenAI(t, "right-key", `{"text":"x"}`)
	api := testplugins.NewOpenAI(t, "", `{"text":"x"}`)
	closed := httptest.NewServer(nil)
	closed.Close() // a port nothing listens on
	cli := filepath.Join(t.TempDir(), "claude")
	testplugins.WriteScript(t, cli, "#!/bin/sh\necho 'starting' >&2\necho 'Invalid API key · Please run /login' >&2\nexit 1\n")
	p := workersHost(t, fmt.Sprintf(`[workers.refused]
plugin = "openaicompat"
base_url = "%s/v1"
model = "good"
[workers.badkey]
plugin = "openaicompat"
base_url = "%s/v1"
model = "good"
[workers.nomodel]
plugin = "openaicompat"
base_url = "%s/v1"
model = "qwen9"
[workers.cli]
plugin = "agentcli"
cli = "claude"
cli_path = %q
`, closed.URL, keyed.URL, api.URL, cli))

	for worker, why := range map[string]string{
		"refused": "cannot reach the runtime: dial tcp " + strings.TrimPrefix(closed.URL, "http://") + ": connect: connection refused",
		"badkey":  "the runtime rejected the credentials (HTTP 401); no API key is configured (workers.badkey.api_key_env)",
		"nomodel": "the runtime has no such model or endpoint (HTTP 404): model 'qwen9' not found",
		"cli":     "claude exited with exit status 1: Invalid API key · Please run /login",
	} {
		out, err := run(t, append([]string{"workers", "try", "merge", "--worker", worker}, p...)...)
		require.Error(t, err, out)
		require.Contains(t, err.Error(), "task merge: no worker of the chain answered: "+worker+" ", "the task is named once")
		require.Contains(t, err.Error(), why)
		require.Contains(t, out, "attempts: "+worker+" ")
	}
	out, err := run(t, append([]string{"workers"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `cli\s+agentcli\s+.*\s+ready\s+1\s+0%.*last call unavailable \(below\)`, out)
	require.Regexp(t, `cli: last call unavailable at [\d-]+ [\d:]+ \(merge\): claude exited with exit status 1: Invalid API key · Please run /login`, out)
	require.Regexp(t, `badkey: last call refused at .*\(merge\): the runtime rejected the credentials \(HTTP 401\)`, out)
	require.Regexp(t, `refused: last call unavailable at .*connection refused`, out)
}

// TestWorkerEnvReachesTheCLI: a Codex whose model provider reads its key from a variable of its
// own (env_key) fails, saying so, until the worker's env table names that variable; then the
// variable reaches the CLI and the task is answered. Only the named variable passes.
func TestWorkerEnvReachesTheCLI(t *testing.T) {
	t.Parallel()
	name := "FAKE_API_KEY_" + strings.ToUpper(strings.ReplaceAll(t.Name(), "/", "_"))
	require.NoError(t, os.Setenv(name, "sk-"+"fake-"+"0123456789"))
	require.NoError(t, os.Setenv(name+"_OTHER", "not passed"))
	t.Cleanup(func() { _ = os.Unsetenv(name); _ = os.Unsetenv(name + "_OTHER") })
	dir := t.TempDir()
	cli := filepath.Join(dir, "codex")
	testplugins.WriteScript(t, cli, fmt.Sprintf(`#!/bin/sh
env > %q
if [ -z "$%s" ]; then echo 'Error: Missing environment variable: `+"`%s`"+`.' >&2; exit 1; fi
cat >/dev/null
echo '{"type":"item.completed","item":{"type":"agent_message","text":"{\"text\":\"Use pnpm.\"}"}}'
echo '{"type":"turn.completed","usage":{"input_tokens":10,"output_tokens":5}}'
`, filepath.Join(dir, "env"), name, name))
	p := workersHost(t, fmt.Sprintf(`[workers.bare]
plugin = "agentcli"
cli = "codex"
cli_path = %q
[workers.passed]
plugin = "agentcli"
cli = "codex"
cli_path = %q
env = [%q]
`, cli, cli, name))

	_, err := run(t, append([]string{"workers", "try", "merge", "--worker", "bare"}, p...)...)
	require.ErrorContains(t, err, "codex exited with exit status 1: Error: Missing environment variable: `"+name+"`.")
	out, err := run(t, append([]string{"workers", "try", "merge", "--worker", "passed"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, `result: {"text":"Use pnpm."}`)
	env, err := os.ReadFile(filepath.Join(dir, "env"))
	require.NoError(t, err)
	require.Contains(t, string(env), name+"=sk-fake-0123456789\n")
	require.NotContains(t, string(env), name+"_OTHER")
}

// TestWorkerEnvTakesNamesOnly: an env entry that is not a variable name (a pasted key, say) is
// refused without being echoed, and memhost's own variables never pass.
func TestWorkerEnvTakesNamesOnly(t *testing.T) {
	t.Parallel()
	pasted := "sk-" + "live-" + "abcdef0123456789"
	cfg := writeConfig(t, t.TempDir(), fmt.Sprintf("[workers.codex]\nplugin = \"agentcli\"\ncli = \"codex\"\nenv = [%q, \"MEMHOST_DATABASE_URL\"]\n", pasted))
	out, err := run(t, "config", "check", "--config", cfg)
	require.Error(t, err)
	problems, _, _ := strings.Cut(out+err.Error(), "\nKEY ") // the problems, before the table of values
	require.Contains(t, problems, "workers.codex.env: entry 1 is not a variable NAME")
	require.Contains(t, problems, "workers.codex.env: MEMHOST_DATABASE_URL: memhost's own variables never reach a worker")
	require.NotContains(t, problems, pasted)
}

// TestPluginsWithoutATokenSayWhatTheyCannotSee: without a token, `memhost plugins` and
// `memhost status` against a running host show the embedders' states from /readyz, list
// nothing the host runs as "stopped ... not running here", and say that an admin token shows
// the host's plugins and workers; with one, the workers are there with their real state.
func TestPluginsWithoutATokenSayWhatTheyCannotSee(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "", `{"text":"x"}`)
	p := workersHost(t, fmt.Sprintf("[workers.local]\nplugin = \"openaicompat\"\nbase_url = \"%s/v1\"\nmodel = \"good\"\n", api.URL))
	cfg := p[:2]
	for _, args := range [][]string{{"plugins"}, {"status"}} {
		out, err := run(t, append(args, cfg...)...)
		require.NoError(t, err, out)
		require.NotContains(t, out, "not running here", "%s: the host runs them", args[0])
		require.Contains(t, out, "pass an admin token (--token or MEMHOST_TOKEN) to see the host's plugins, its workers and why any is not ready")
		require.Regexp(t, `embedder\s+bm25-v1-384\s+\S+\s+ready`, out)
	}
	out, err := run(t, append([]string{"plugins"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `worker\s+local\s+\S+\s+ready`, out)
	require.NotContains(t, out, "pass an admin token")
}
