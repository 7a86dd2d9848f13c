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

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
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
	ln := httptest.NewUnstartedServer(nil)
	cfg := filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf(`[server]
listen = %q
[database]
url = %q
[plugins]
dirs = [%q, %q]
[log]
level = "warn"
[workers.gone]
plugin = "openaicompat"
base_url = "%s/v1"
model = "gone"
[workers.local]
plugin = "openaicompat"
base_url = "%s/v1"
model = "good"
[workers.chains]
merge = ["gone", "local"]
`, ln.Listener.Addr().String(), testdb.Schema(t), testplugins.Dir(t), testplugins.Workers(t), api.URL, api.URL)
	require.NoError(t, os.WriteFile(cfg, []byte(body), 0o600))
	core := openCore(t, cfg)
	require.NoError(t, core.StartWorkers(t.Context()))
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeAdmin}})
	require.NoError(t, err)
	reader, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "reader", Scopes: []auth.Scope{auth.ScopeRead}})
	require.NoError(t, err)
	p := []string{"--config", cfg, "--token", admin}

	out, err := run(t, append([]string{"workers", "try", "merge"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `task merge answered by local \(model good\) in \d+ms, tokens 120 in / 9 out`, out)
	require.Contains(t, out, "attempts: gone unavailable (the worker or its model could not be reached); local ok")
	require.Contains(t, out, `result: {"text":"Use pnpm, never npm."}`)

	out, err = run(t, append([]string{"workers", "try", "merge", "--worker", "gone"}, p...)...)
	require.ErrorContains(t, err, "no worker of the chain answered: gone unavailable")
	require.Contains(t, out, "attempts: gone unavailable")

	out, err = run(t, append([]string{"workers"}, p...)...)
	require.NoError(t, err, out)
	require.Regexp(t, `gone\s+openaicompat\s+gone\s+\w+\s+2\s+0%`, out)
	require.Regexp(t, `local\s+openaicompat\s+good\s+ready\s+1\s+100%\s+\S+\s+\S+\s+120/9`, out)
	require.Contains(t, out, "merge: gone -> local")
	require.Contains(t, out, "gatekeeper: gone -> local", "a kind without a chain tries every worker")

	out, err = run(t, append([]string{"workers", "chain", "merge", "local"}, p...)...)
	require.NoError(t, err, out)
	require.Contains(t, out, "merge: local")
	out, err = run(t, append([]string{"workers", "--json"}, p...)...)
	require.NoError(t, err, out)
	var st tasks.Status
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
	resp, err := http.Get(ln.URL + "/api/v1/openapi.json")
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
