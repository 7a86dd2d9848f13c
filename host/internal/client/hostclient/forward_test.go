package hostclient_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/client/spawn"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
)

// minter mints session tokens through the host's token store, as memhost mcp does through
// the operator's database (spawn.MintTokens).
func (h *testHost) minter(cacheDir string) spawn.MintTokens {
	return spawn.MintTokens{CacheDir: cacheDir, Store: func(context.Context) (spawn.Minter, error) { return h.core.Tokens, nil }}
}

// forwarder is a Forwarder for projectA on host url with tokens and a tools cache of its own.
func forwarder(t *testing.T, url string, tokens hostclient.TokenSource) *hostclient.Forwarder {
	t.Helper()
	return &hostclient.Forwarder{Host: &hostclient.Client{URL: url}, Tokens: tokens, Project: projectA, Version: "test",
		ToolsCache: filepath.Join(t.TempDir(), "mcp-tools.json")}
}

// connect starts f's stdio session over pipes and connects an MCP client to it as the CLI
// named client; closing the session ends the input, and Serve's result is checked at cleanup.
func connect(t *testing.T, f *hostclient.Forwarder, client string) *mcp.ClientSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	served := make(chan error, 1)
	go func() {
		err := f.Serve(context.Background(), inR, outW)
		_ = outW.Close()
		served <- err
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, nil).
		Connect(context.Background(), &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = cs.Close()
		select {
		case err := <-served:
			require.NoError(t, err, "Serve ends cleanly at end of input")
		case <-time.After(30 * time.Second):
			t.Error("Serve did not end after its input closed")
		}
	})
	return cs
}

// toolText is a tool result's text.
func toolText(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	require.NotEmpty(t, res.Content)
	return res.Content[0].(*mcp.TextContent).Text
}

func toolNames(res *mcp.ListToolsResult) []string {
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	return names
}

// TestForwarderServesTheHostsTools: the handshake carries the host's instructions, the tools are
// the host's, a call is stored in the forwarder's project under the CLI's name, and the
// session's own token is revoked when it ends.
func TestForwarderServesTheHostsTools(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	f := forwarder(t, h.url, h.minter(""))
	cs := connect(t, f, "claude-code")
	require.NotEmpty(t, cs.InitializeResult().Instructions)
	require.NotContains(t, cs.InitializeResult().Instructions, "unavailable")

	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Contains(t, toolNames(tools), "memory_store")
	cached, err := os.ReadFile(f.ToolsCache)
	require.NoError(t, err, "the tool list is kept for a session that starts while the host is down")
	require.Contains(t, string(cached), "memory_search")

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Deploys go through Argo CD."}})
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(t, res))
	page, err := h.core.Service.List(ctx, operator(projectA), memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 1)
	require.Equal(t, "Deploys go through Argo CD.", page.Memories[0].Text)
	require.Equal(t, "claude-code", page.Memories[0].Agent, "the host attributes the write to the CLI behind the forwarder")

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "no_such_tool"})
	require.Error(t, err, "the host's own refusal reaches the client as it is")

	live, err := h.core.Tokens.List(ctx, false)
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.Equal(t, projectA, live[0].ProjectKey, "the session's token is bound to its project")
	require.NoError(t, cs.Close())
	require.Eventually(t, func() bool {
		live, err := h.core.Tokens.List(ctx, false)
		return err == nil && len(live) == 0
	}, 10*time.Second, 20*time.Millisecond, "a token minted for the session alone is revoked when it ends")
}

// TestForwarderWithoutAHost: with no host the handshake still completes and says memory is
// unavailable, the tools are those the last session saw, and a call answers with the reason
// for the model to read instead of failing the session.
func TestForwarderWithoutAHost(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	up := forwarder(t, h.url, h.minter(""))
	_, err := connect(t, up, "codex").ListTools(ctx, nil)
	require.NoError(t, err)

	down := forwarder(t, closedURL(t), h.minter(""))
	down.ToolsCache = up.ToolsCache
	cs := connect(t, down, "codex")
	require.Contains(t, cs.InitializeResult().Instructions, "Project memory is unavailable: no memhost host is running at "+down.Host.URL)
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	require.Contains(t, toolNames(tools), "memory_store", "the last session's tools")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Lost?"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Equal(t, "Project memory is unavailable: no memhost host is running at "+down.Host.URL+
		". Carry on without it; the user can start the host with `memhost serve`.", toolText(t, res))

	// Without a kept list there are no tools, and still no failure.
	none := forwarder(t, closedURL(t), h.minter(""))
	tools, err = connect(t, none, "codex").ListTools(ctx, nil)
	require.NoError(t, err)
	require.Empty(t, tools.Tools)
}

// failingTokens grants nothing.
type failingTokens struct{}

func (failingTokens) Grant(context.Context, string, string) (string, func(context.Context) error, error) {
	return "", nil, errors.New("database: connection refused")
}

// TestForwarderSaysWhenNoTokenCanBeHad: a token source that fails is named to the model
// without its internals.
func TestForwarderSaysWhenNoTokenCanBeHad(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	cs := connect(t, forwarder(t, h.url, failingTokens{}), "gemini-cli")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_search", Arguments: map[string]any{"query": "deploys"}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, toolText(t, res), "no token for this project could be had")
	require.NotContains(t, toolText(t, res), "connection refused")
}

// TestForwarderMintsAgainForARefusedKeptToken: a kept token the host no longer accepts
// (revoked, or minted on another database) is forgotten and a fresh one minted, once.
func TestForwarderMintsAgainForARefusedKeptToken(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	tokens := h.minter(filepath.Join(t.TempDir(), "tokens")) // a folder of its own: the cache wants 0700
	kept, _, err := tokens.Grant(ctx, projectA, "mcp")
	require.NoError(t, err)
	again, _, err := tokens.Grant(ctx, projectA, "mcp")
	require.NoError(t, err)
	require.Equal(t, kept, again, "the token is kept")
	live, err := h.core.Tokens.List(ctx, false)
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.NoError(t, h.core.Tokens.Revoke(ctx, live[0].ID))

	cs := connect(t, forwarder(t, h.url, tokens), "codex")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Staging needs the VPN."}})
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(t, res))
	again, _, err = tokens.Grant(ctx, projectA, "mcp")
	require.NoError(t, err)
	require.NotEqual(t, kept, again, "the refused token was replaced in the cache")
}

// TestForwarderRetriesACallOnAFreshSession: a call whose connection breaks (a host restarting)
// is sent once more on a session opened again, instead of failing the model's tool call.
func TestForwarderRetriesACallOnAFreshSession(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	ctx := context.Background()
	handler, closeMCP := h.core.Handler()
	t.Cleanup(closeMCP)
	var cut atomic.Int32 // tool calls whose connection is cut before the host sees them
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		require.NoError(t, err)
		if strings.Contains(string(body), `"tools/call"`) && cut.Add(-1) >= 0 {
			conn, _, err := http.NewResponseController(w).Hijack()
			require.NoError(t, err)
			_ = conn.Close()
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cs := connect(t, forwarder(t, front.URL, h.minter("")), "codex")

	cut.Store(1)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Sent twice, stored once."}})
	require.NoError(t, err)
	require.False(t, res.IsError, toolText(t, res))
	page, err := h.core.Service.List(ctx, operator(projectA), memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 1)

	cut.Store(2) // and the retry too: the model reads why
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_store", Arguments: map[string]any{"text": "Never arrives."}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	require.Contains(t, toolText(t, res), "Project memory is unavailable: the memhost host at "+front.URL+" did not answer")
}

// TestForwarderAnswersEveryRequestReadBeforeEOF pipes a whole session in and closes input at
// once, as `printf ... | memhost mcp` does: every request read before end of input is
// answered before Serve returns.
func TestForwarderAnswersEveryRequestReadBeforeEOF(t *testing.T) {
	t.Parallel()
	h := startHost(t)
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
	}
	for i := range 6 {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"memory_store","arguments":{"text":"Piped fact number %d is about service %c."}}}`, 3+i, i, 'A'+i))
	}
	lines = append(lines, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"memory_search","arguments":{"query":"piped fact"}}}`)
	out := &testlog.Buffer{}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	f := forwarder(t, h.url, h.minter(""))
	require.NoError(t, f.Serve(ctx, strings.NewReader(strings.Join(lines, "\n")+"\n"), out))

	answered := map[int]bool{}
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), sc.Text())
		if m.ID != nil {
			require.Nil(t, m.Error, sc.Text())
			answered[*m.ID] = true
		}
	}
	for id := 1; id <= 9; id++ {
		require.True(t, answered[id], "request %d was read before end of input and must be answered; got %v", id, answered)
	}
	page, err := h.core.Service.List(context.Background(), operator(projectA), memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 6)
}
