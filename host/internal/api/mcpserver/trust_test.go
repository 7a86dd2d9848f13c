package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/project"
)

// TestProjectMapBuildNeedsWriteAndIsRateLimited: walking a directory to build a map is a
// write (it stores the result) costing seconds, so a read-only token only reads the stored
// map, and a writer builds within the map-build limit.
func TestProjectMapBuildNeedsWriteAndIsRateLimited(t *testing.T) {
	t.Parallel()
	b, br := setupBrain(t, func(o *setupOptions) { o.limits.MapBuilds = auth.NewLimiter("map builds", 1, 1) })
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/demo\n\ngo 1.24\n"), 0o600))
	id, err := project.Resolve(dir)
	require.NoError(t, err)
	stored := func() error {
		_, err := br.Map(context.Background(), memory.Access{Project: id.Key, Actor: "test"}, brain.MapRequest{})
		return err
	}

	reader := b.connect(t, b.token(t, "dashboard", readScopes, ""), "claude-code", "")
	msg := toolErr(t, reader, mcpserver.ToolMap, map[string]any{"cwd": dir})
	require.Contains(t, msg, "no map yet")
	require.Contains(t, msg, "memory:write")
	msg = toolErr(t, reader, mcpserver.ToolMap, map[string]any{"cwd": dir, "refresh": true})
	require.Contains(t, msg, "forbidden")
	require.Contains(t, msg, "memory:write")
	require.ErrorIs(t, stored(), rules.ErrNotFound, "a read-only token built and stored nothing")

	writer := b.connect(t, b.token(t, "agent", writeScopes, ""), "claude-code", "")
	built := ok[mcpserver.MapOutput](t, writer, mcpserver.ToolMap, map[string]any{"cwd": dir})
	require.Equal(t, id.Key, built.Project)
	require.NoError(t, stored())
	msg = toolErr(t, writer, mcpserver.ToolMap, map[string]any{"cwd": dir, "refresh": true})
	require.Regexp(t, `^rate limit: token "agent" is over its limit of 1 map builds per minute \(bursts of 1\)`, msg)
	require.Equal(t, built.GeneratedAt, ok[mcpserver.MapOutput](t, writer, mcpserver.ToolMap, map[string]any{"cwd": dir}).GeneratedAt,
		"a fresh map is answered without a build, whatever the limit")
	require.Equal(t, id.Key, ok[mcpserver.MapOutput](t, reader, mcpserver.ToolMap, map[string]any{"cwd": dir}).Project, "readers get the stored map")
}

// TestSDKRefusalsHaveTheErrorShape: what the MCP SDK refuses itself answers in the JSON error
// shape of every other refusal, and a request with two Authorization headers is refused.
func TestSDKRefusalsHaveTheErrorShape(t *testing.T) {
	t.Parallel()
	b := setup(t)
	token := b.token(t, "laptop", writeScopes, projectA)
	errorOf := func(t *testing.T, resp *http.Response, body map[string]any) map[string]any {
		t.Helper()
		require.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"))
		e, ok := body["error"].(map[string]any)
		require.True(t, ok, "%v", body)
		return e
	}

	resp, _ := rpc(t, b.url, token, nil, initialize("2025-11-25", "codex"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	hdr := map[string]string{"Mcp-Session-Id": resp.Header.Get("Mcp-Session-Id"), "Mcp-Protocol-Version": "2025-11-25"}
	resp, body := rpc(t, b.url, b.token(t, "other", writeScopes, projectA), hdr, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	e := errorOf(t, resp, body)
	require.Equal(t, "forbidden", e["code"])
	require.Contains(t, e["message"], "another token")

	huge := initialize("2025-11-25", strings.Repeat("x", 5<<20))
	resp, body = rpc(t, b.url, token, nil, huge)
	require.Equal(t, http.StatusRequestEntityTooLarge, resp.StatusCode)
	e = errorOf(t, resp, body)
	require.Equal(t, "invalid_argument", e["code"])
	require.Equal(t, "body", e["field"])
	require.Contains(t, e["message"], "limit of 4194304 bytes")

	raw, err := json.Marshal(initialize("2025-11-25", "codex"))
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, b.url, bytes.NewReader(raw))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Add("Authorization", "Bearer "+token)
	req.Header.Add("Authorization", "Bearer mh_someone-else")
	r2, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer r2.Body.Close()
	require.Equal(t, http.StatusUnauthorized, r2.StatusCode, "two Authorization headers are refused, not resolved by picking one")
	var out map[string]any
	require.NoError(t, json.NewDecoder(r2.Body).Decode(&out))
	require.Contains(t, errorOf(t, r2, out)["message"], "exactly one Authorization header")
}

// TestReadRateLimit: reads have a per-token limit of their own; a refusal names it.
func TestReadRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.limits.Reads = auth.NewLimiter("reads", 1, 2) })
	cs := b.connect(t, b.token(t, "looper", writeScopes, projectA), "claude-code", "")
	for range 2 {
		ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, map[string]any{"query": "lint"})
	}
	msg := toolErr(t, cs, mcpserver.ToolSearch, map[string]any{"query": "lint"})
	require.Regexp(t, `^rate limit: token "looper" is over its limit of 1 reads per minute \(bursts of 2\); nothing was done, retry after \d+s`, msg)
	require.Contains(t, toolErr(t, cs, mcpserver.ToolList, nil), "reads per minute", "every read counts")
	ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Lint with golangci-lint v2."})

	other := b.connect(t, b.token(t, "calm", readScopes, projectA), "codex", "")
	ok[mcpserver.SearchOutput](t, other, mcpserver.ToolSearch, map[string]any{"query": "lint"})
}
