package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestStdioMCP runs `memhost mcp` as a CLI would launch it: the project defaults to the
// directory it starts in, resolved from the repository's origin remote.
func TestStdioMCP(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	tok := h.token("--name", "stdio")
	repo := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git", "config"),
		[]byte("[remote \"origin\"]\n\turl = git@github.com:Acme/Stdio.git\n"), 0o644))

	cmd := exec.Command(h.bin, "mcp", "--config", h.config)
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), "MEMHOST_TOKEN="+tok)
	c := mcp.NewClient(&mcp.Implementation{Name: "stdio-agent", Version: "1.0"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()

	first := callTool[stored](t, cs, "memory_store", map[string]any{"text": "Stdio agents see the same memory as HTTP ones."})
	found := callTool[searched](t, cs, "memory_search", map[string]any{"query": "stdio agents memory"})
	require.Equal(t, first.ID, found.Hits[0].ID)
	got := callTool[struct {
		Project string `json:"project"`
		Agent   string `json:"agent"`
	}](t, cs, "memory_get", map[string]any{"id": first.ID})
	require.Equal(t, "github.com/Acme/Stdio", got.Project, "the project comes from the launch directory's git remote")
	require.Equal(t, "stdio-agent", got.Agent, "the agent defaults to the MCP client's name")
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
