package mcpserver_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/auth"
	"github.com/memhost/memhost/host/internal/mcpserver"
	"github.com/memhost/memhost/host/internal/memory"
)

// serveStdio runs Serve on an in-memory pipe and connects an SDK client.
func (b *bundle) serveStdio(t *testing.T, p auth.Principal, defaultProject, client string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- b.server.Serve(ctx, serverT, p, defaultProject) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, nil).Connect(ctx, clientT, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		require.NoError(t, <-done, "Serve ends cleanly when the client goes away")
		cancel()
	})
	return cs
}

func (b *bundle) principal(t *testing.T, name string, scopes []auth.Scope, projectKey string) auth.Principal {
	t.Helper()
	p, err := b.tokens.Authenticate(context.Background(), b.token(t, name, scopes, projectKey))
	require.NoError(t, err)
	return p
}

func TestStdioUsesTheDefaultProject(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.serveStdio(t, b.principal(t, "memhost-mcp", writeScopes, ""), projectA, "codex")

	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, tools.Tools, 7)

	stored := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Migrations live in migrations/sql and are forward-only."})
	require.Equal(t, projectA, stored.Memory.Project, "no project argument: the process's project")
	require.Equal(t, "codex", stored.Memory.Agent)
	hits := ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, map[string]any{"query": "where do migrations live"})
	require.NotEmpty(t, hits.Hits)
	require.Equal(t, stored.ID, hits.Hits[0].ID)

	other := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Other project fact.", "project": projectB})
	require.Equal(t, projectB, other.Memory.Project, "an explicit project still wins for an unbound token")

	// A bound principal keeps its binding over the default.
	bound := b.serveStdio(t, b.principal(t, "bound", writeScopes, projectB), projectA, "codex")
	require.Equal(t, projectB, ok[memory.StoreResult](t, bound, mcpserver.ToolStore, map[string]any{"text": "B uses Bazel."}).Memory.Project)
	require.Contains(t, toolErr(t, bound, mcpserver.ToolGet, map[string]any{"id": stored.ID.String()}), "not found")
}

// TestInternalErrorsDoNotLeak breaks the database under a live server: the model gets a
// generic message with a reference, the host log gets the cause.
func TestInternalErrorsDoNotLeak(t *testing.T) {
	t.Parallel()
	b := setup(t)
	cs := b.serveStdio(t, b.principal(t, "agent", writeScopes, projectA), "", "claude-code")
	stored := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Cache keys include the schema version."})

	b.pool.Close()
	msg := toolErr(t, cs, mcpserver.ToolGet, map[string]any{"id": stored.ID.String()})
	require.Regexp(t, `^internal error \(ref [0-9a-f]{8}\); see the memhost host log$`, msg)
	require.Contains(t, b.logs.String(), "mcp tool failed")
	require.Contains(t, b.logs.String(), "closed pool")
}
