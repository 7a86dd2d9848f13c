package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/worker"
)

// repo makes a git repository whose origin is github.com/Acme/<name>: its project key.
func repo(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"),
		[]byte("[remote \"origin\"]\n\turl = git@github.com:Acme/"+name+".git\n"), 0o644))
	return dir
}

// mcpCommand is `memhost mcp` in dir as a CLI launches a stdio server: no token given (it
// mints one through the configured database, kept under cache) and env added.
func (h *host) mcpCommand(dir, cache string, env ...string) *exec.Cmd {
	cmd := exec.Command(h.bin, "mcp")
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "MEMHOST_CONFIG="+h.config, "XDG_CACHE_HOME="+cache, "MEMHOST_TOKEN="), env...)
	return cmd
}

// stdioMCP starts `memhost mcp` in dir (mcpCommand) and returns the client session and how
// long the handshake took.
func (h *host) stdioMCP(t *testing.T, dir, cache, client string) (*mcp.ClientSession, time.Duration) {
	t.Helper()
	cmd := h.mcpCommand(dir, cache)
	// It asks for structured output to decode results, and memhost mcp asks the host for it.
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, &mcp.ClientOptions{Capabilities: wire.StructuredClient()})
	began := time.Now()
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	took := time.Since(began)
	t.Cleanup(func() { _ = cs.Close() })
	return cs, took
}

// TestStdioMCPKnowsItsProject runs `memhost mcp` as a connected CLI starts it, in two
// projects' directories against one running host: each stores into its own project with no
// project argument, finds its own facts only, and its writes are the CLI's (the agent is the
// MCP client's name). It forwards to the host and opens no core of its own.
func TestStdioMCPKnowsItsProject(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	cache := t.TempDir()
	x, took := h.stdioMCP(t, repo(t, "Stdio"), cache, "stdio-agent")
	t.Logf("memhost mcp: handshake through the running host in %s (first start: mints the project's token)", took)
	y, _ := h.stdioMCP(t, repo(t, "Other"), cache, "stdio-agent")
	require.Contains(t, x.InitializeResult().Instructions, "memory_load_context", "the host's instructions reach the CLI")

	first := callTool[stored](t, x, "memory_store", map[string]any{"text": "Stdio agents see the same memory as HTTP ones."})
	callTool[stored](t, y, "memory_store", map[string]any{"text": "The other project's stdio agents deploy with Nomad."})
	found := callTool[searched](t, x, "memory_search", map[string]any{"query": "stdio agents"})
	require.Len(t, found.Hits, 1, "project X finds its own fact only: %v", found.Hits)
	require.Equal(t, first.ID, found.Hits[0].ID)
	got := callTool[struct {
		Project string `json:"project"`
		Agent   string `json:"agent"`
	}](t, x, "memory_get", map[string]any{"id": first.ID})
	require.Equal(t, "github.com/Acme/Stdio", got.Project, "the project comes from the launch directory's git remote")
	require.Equal(t, "stdio-agent", got.Agent, "the agent defaults to the MCP client's name")

	// A second session of the project reuses the kept token: no database on its way.
	_, took = h.stdioMCP(t, repo(t, "Stdio"), cache, "stdio-agent")
	t.Logf("memhost mcp: handshake with the kept token in %s", took)
	entries, err := os.ReadDir(filepath.Join(cache, "memhost", "tokens"))
	require.NoError(t, err)
	require.Len(t, entries, 2, "one kept token per project")
	for _, e := range entries {
		fi, err := e.Info()
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "a kept token is the user's alone")
	}
}

// TestStdioMCPWithoutAHost: with no host running, `memhost mcp` still completes the handshake
// (a CLI must start) and answers a tool call with an error that says memory is unavailable.
func TestStdioMCPWithoutAHost(t *testing.T) {
	t.Parallel()
	h := newHost(t) // configured, never started
	h.token("--name", "migrates-the-schema")
	cs, took := h.stdioMCP(t, repo(t, "Down"), t.TempDir(), "stdio-agent")
	t.Logf("memhost mcp: handshake with no host in %s", took)
	require.Contains(t, cs.InitializeResult().Instructions, "Project memory is unavailable: no memhost host is running at "+h.url)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Lost?"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	text := res.Content[0].(*mcp.TextContent).Text
	require.Contains(t, text, "Project memory is unavailable: no memhost host is running at "+h.url+". Carry on without it")
	require.NotContains(t, text, "mh_")
}

// TestExportImportCLI moves a project through the CLI: export, import under another key,
// import again (idempotent).
func TestExportImportCLI(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	tok := h.token("--name", "transfer")
	for _, text := range []string{"Deploys go through ArgoCD.", "The staging database is pg-stage-2.", "Use pnpm, never npm."} {
		status, _, err := h.rest(context.Background(), tok, "POST", "/api/v1/memories", `{"text":"`+text+`","project":"laptop/app"}`)
		require.NoError(t, err)
		require.Equal(t, 201, status)
	}
	file := filepath.Join(t.TempDir(), "app.jsonl")
	h.run("export", "--project", "laptop/app", "--out", file)
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Len(t, strings.Split(strings.TrimSpace(string(raw)), "\n"), 4, "a header and three memories")

	out := h.run("import", "--project", "server/app", file)
	require.Contains(t, out, "imported 3 memories, skipped 0")
	out = h.run("import", "--project", "server/app", file)
	require.Contains(t, out, "imported 0 memories, skipped 3")

	status, body, err := h.rest(context.Background(), tok, "POST", "/api/v1/memories/search", `{"query":"staging database","project":"server/app"}`)
	require.NoError(t, err)
	require.Equal(t, 200, status)
	require.NotEmpty(t, body["results"], "the running host follows the import through the change feed")

	// The import left the HNSW insertion to the host's background indexer, which drains it.
	reader := h.token("--scopes", "admin", "--name", "ops")
	require.Eventually(t, func() bool {
		status, body, err := h.rest(context.Background(), reader, "GET", "/api/v1/status", "")
		if err != nil || status != 200 {
			return false
		}
		counts, _ := body["memories"].(map[string]any)
		return counts != nil && counts["ann_deferred"] == float64(0) && counts["live"] == float64(6)
	}, 10*time.Second, 100*time.Millisecond)
}

// TestStdioForwardsRawArguments: `memhost mcp` hands a tool call's arguments to the host as
// the CLI sent them, so invalid UTF-8 and an unpaired surrogate escape are refused there
// (naming the field) instead of being replaced with U+FFFD on the way and stored.
func TestStdioForwardsRawArguments(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	cmd := h.mcpCommand(repo(t, "Raw"), t.TempDir())
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_store","arguments":{"text":"bad ` + "\xff" + ` byte"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_store","arguments":{"text":"note \ud800 here"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_list","arguments":{}}}`,
	}
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	out, err := cmd.Output()
	require.NoError(t, err)
	answers := map[int]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID     int `json:"id"`
			Result struct {
				IsError bool `json:"isError"`
				Content []struct {
					Text string `json:"text"`
				} `json:"content"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &m), line)
		if m.ID >= 2 && len(m.Result.Content) > 0 {
			answers[m.ID] = m.Result.Content[0].Text
			require.Equal(t, m.ID != 4, m.Result.IsError, line)
		}
	}
	require.Contains(t, answers[2], "invalid argument text: must be valid UTF-8")
	require.Contains(t, answers[3], `invalid argument text: must not hold an unpaired UTF-16 surrogate escape (\ud800`)
	require.Contains(t, answers[4], "No memories", "nothing was stored")
}

// TestStdioMCPServesNothingToAWorkersCLI: a CLI that a worker plugin runs carries
// worker.RunMarkerEnv; the memhost server that `memhost connect` registered in the user's
// settings then serves nothing, so the worker's run cannot read or write memory.
func TestStdioMCPServesNothingToAWorkersCLI(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	cmd := h.mcpCommand(repo(t, "Worker"), t.TempDir(), worker.RunMarkerEnv+"=1")
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"claude-code","version":"1"}}}` + "\n")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.Error(t, err, "the server does not start")
	require.Empty(t, out, "no MCP answer at all")
	require.Contains(t, stderr.String(), worker.RunMarkerEnv+" is set")
}
