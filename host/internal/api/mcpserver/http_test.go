package mcpserver_test

import (
	"context"
	"net/http"
	"regexp"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/wire"
)

// structured are the capabilities of a program that asks for structured output.
var structured = map[string]any{"extensions": map[string]any{wire.StructuredOutputExtension: map[string]any{}}}

var initialize = func(version, client string) map[string]any {
	return map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": structured,
		"clientInfo": map[string]any{"name": client, "version": "1.0"},
	}}
}

func TestMissingOrWrongTokenIs401(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for name, token := range map[string]string{"missing": "", "wrong": "mh_definitely-not-a-token", "foreign": "sk-ant-123"} {
		resp, body := rpc(t, b.url, token, nil, initialize("2025-11-25", "claude-code"))
		require.Equal(t, http.StatusUnauthorized, resp.StatusCode, name)
		require.Regexp(t, regexp.MustCompile(`^Bearer\b`), resp.Header.Get("WWW-Authenticate"), name)
		require.Equal(t, "application/json; charset=utf-8", resp.Header.Get("Content-Type"), name)
		require.Equal(t, "unauthenticated", body["error"].(map[string]any)["code"], name)
		require.NotEmpty(t, body["error"].(map[string]any)["message"], name)
	}
	resp, _ := rpc(t, b.url, "", map[string]string{"Authorization": "Basic dXNlcjpwYXNz"}, initialize("2025-11-25", "x"))
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	c := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "1.0"}, nil)
	tr := &mcp.StreamableClientTransport{Endpoint: b.url, HTTPClient: &http.Client{Transport: bearerTransport{"mh_wrong"}}, MaxRetries: -1}
	_, err := c.Connect(context.Background(), tr, nil)
	require.Error(t, err)
}

// TestInitializeEachProtocolVersion speaks raw JSON-RPC, as Codex and Gemini (2025-06-18),
// the Inspector (2025-11-25) and Claude Code (2026-07-28 first) do.
func TestInitializeEachProtocolVersion(t *testing.T) {
	t.Parallel()
	b := setup(t)
	token := b.token(t, "laptop", writeScopes, projectA)

	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		resp, body := rpc(t, b.url, token, nil, initialize(version, "codex"))
		require.Equal(t, http.StatusOK, resp.StatusCode, version)
		result := body["result"].(map[string]any)
		require.Equal(t, version, result["protocolVersion"])
		require.Equal(t, "memhost", result["serverInfo"].(map[string]any)["name"])
		require.NotNil(t, result["capabilities"].(map[string]any)["tools"])
		session := resp.Header.Get("Mcp-Session-Id")
		require.NotEmpty(t, session, version)

		hdr := map[string]string{"Mcp-Session-Id": session, "Mcp-Protocol-Version": version}
		resp, _ = rpc(t, b.url, token, hdr, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
		require.Equal(t, http.StatusAccepted, resp.StatusCode, version)
		resp, body = rpc(t, b.url, token, hdr, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
			"name": mcpserver.ToolStore, "arguments": map[string]any{"text": "Releases are tagged vX.Y.Z on main (" + version + ")."},
		}})
		require.Equal(t, http.StatusOK, resp.StatusCode, version)
		res := body["result"].(map[string]any)
		require.NotEqual(t, true, res["isError"], "%v", res)
		require.Equal(t, "codex", res["structuredContent"].(map[string]any)["memory"].(map[string]any)["agent"],
			"the session remembers clientInfo from initialize")

		// Another token cannot ride this session.
		other := b.token(t, "other", writeScopes, projectA)
		resp, _ = rpc(t, b.url, other, hdr, map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/list"})
		require.NotEqual(t, http.StatusOK, resp.StatusCode, version)
	}

	// 2026-07-28 has no initialize handshake: a client still sending initialize with that
	// version is answered with the newest handshake version (2025-11-25), as the spec's
	// negotiation requires, and can go on with it.
	resp, body := rpc(t, b.url, token, nil, initialize("2026-07-28", "claude-code"))
	require.Equal(t, http.StatusOK, resp.StatusCode)
	require.Equal(t, "2025-11-25", body["result"].(map[string]any)["protocolVersion"])

	// The stateless way: discover, then call, each request carrying its version and client.
	meta := map[string]any{
		"io.modelcontextprotocol/protocolVersion":    "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": structured,
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "claude-code", "version": "2.1"},
	}
	hdr := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "server/discover"}
	resp, body = rpc(t, b.url, token, hdr, map[string]any{"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": map[string]any{"_meta": meta}})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	require.Contains(t, body["result"].(map[string]any)["supportedVersions"], "2026-07-28")
	require.Empty(t, resp.Header.Get("Mcp-Session-Id"), "2026-07-28 is stateless")

	hdr = map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": mcpserver.ToolStore}
	resp, body = rpc(t, b.url, token, hdr, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": map[string]any{
		"_meta": meta, "name": mcpserver.ToolStore, "arguments": map[string]any{"text": "The API is served by cmd/apid."},
	}})
	require.Equal(t, http.StatusOK, resp.StatusCode, "%v", body)
	res := body["result"].(map[string]any)
	require.NotEqual(t, true, res["isError"], "%v", res)
	require.Equal(t, "claude-code", res["structuredContent"].(map[string]any)["memory"].(map[string]any)["agent"])
}

func TestWriteRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, func(o *setupOptions) { o.limits.Writes = auth.NewLimiter("writes", 1, 2) })
	token := b.token(t, "busy", writeScopes, projectA)
	cs := b.connect(t, token, "claude-code", "")
	first := ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Lint with golangci-lint v2."})
	ok[memory.StoreResult](t, cs, mcpserver.ToolStore, map[string]any{"text": "Docs are built with mkdocs."})
	msg := toolErr(t, cs, mcpserver.ToolStore, map[string]any{"text": "Benchmarks run with make bench."})
	require.Regexp(t, `^rate limit: token "busy" is over its limit of 1 writes per minute \(bursts of 2\); nothing was done, retry after \d+s`, msg)
	require.Regexp(t, `^rate limit`, toolErr(t, cs, mcpserver.ToolArchive, map[string]any{"id": first.ID.String()}))
	require.Equal(t, 2, b.countAll(t, projectA))
	require.Nil(t, ok[memory.View](t, cs, mcpserver.ToolGet, map[string]any{"id": first.ID.String()}).ArchivedAt)
	require.NotEmpty(t, ok[mcpserver.SearchOutput](t, cs, mcpserver.ToolSearch, map[string]any{"query": "lint"}).Hits, "reads have their own limit")

	// The bucket is per token.
	other := b.connect(t, b.token(t, "calm", writeScopes, projectA), "codex", "")
	ok[memory.StoreResult](t, other, mcpserver.ToolStore, map[string]any{"text": "Benchmarks run with make bench."})
}
