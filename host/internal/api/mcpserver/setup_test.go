package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

const (
	projectA = "github.com/acme/app"
	projectB = "github.com/acme/other"
)

var (
	readScopes  = []auth.Scope{"memory:read"}
	writeScopes = []auth.Scope{"memory:read", "memory:write"}
	adminScopes = []auth.Scope{"admin"}
)

// bundle is one test's memhost: a real service on a fresh schema with a real BM25 plugin
// process, real tokens on the same schema, and the MCP handler behind an httptest server.
type bundle struct {
	svc    *memory.Service
	tokens *auth.Tokens
	server *mcpserver.Server
	url    string
	logs   *testlog.Buffer
	pool   *pgxpool.Pool
	dsn    string
}

type setupOptions struct {
	limits auth.Limits
	config *memory.Config
	gate   memory.Gatekeeper
}

func setup(t *testing.T, opts ...func(*setupOptions)) *bundle {
	t.Helper()
	var o setupOptions
	for _, fn := range opts {
		fn(&o)
	}
	pool, dsn := testdb.Migrated(t)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	cfg := memory.DefaultConfig()
	if o.config != nil {
		cfg = *o.config
	}
	var svcOpts []memory.Option
	if o.gate != nil {
		svcOpts = append(svcOpts, memory.WithGatekeeper(o.gate))
	}
	svc := memory.New(pgstore.New(pool), lexical.New(), memory.Fixed(emb), nil, cfg, svcOpts...)
	logs := &testlog.Buffer{}
	srv := mcpserver.New(svc, mcpserver.Options{
		Limits: o.limits, Version: "test",
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	})
	tokens := auth.NewTokens(pool)
	hs := httptest.NewServer(srv.Handler(access.NewDoor(tokens)))
	t.Cleanup(func() { hs.Close(); srv.Close() })
	return &bundle{svc: svc, tokens: tokens, server: srv, url: hs.URL, logs: logs, pool: pool, dsn: dsn}
}

// token creates a real token and returns its plaintext.
func (b *bundle) token(t *testing.T, name string, scopes []auth.Scope, projectKey string) string {
	t.Helper()
	plain, _, err := b.tokens.Create(context.Background(), auth.CreateToken{Name: name, Scopes: scopes, ProjectKey: projectKey})
	require.NoError(t, err)
	return plain
}

// bearerTransport adds the token to every request, as MCP clients configured with a header do.
type bearerTransport struct{ token string }

func (bt bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+bt.token)
	return http.DefaultTransport.RoundTrip(r)
}

// connect opens an SDK client session named client ("claude-code") at protocol version
// (empty: the SDK's choice, the newest it and the server share). It asks for structured
// output, as a program does, so tests can decode results (ok).
func (b *bundle) connect(t *testing.T, token, client, version string) *mcp.ClientSession {
	t.Helper()
	return b.connectWith(t, token, client, version, &mcp.ClientOptions{Capabilities: wire.StructuredClient()})
}

// connectAsCLI opens a session as a coding CLI does: no structured output asked for.
func (b *bundle) connectAsCLI(t *testing.T, token, client string) *mcp.ClientSession {
	t.Helper()
	return b.connectWith(t, token, client, "", nil)
}

func (b *bundle) connectWith(t *testing.T, token, client, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, opts)
	tr := &mcp.StreamableClientTransport{Endpoint: b.url, HTTPClient: &http.Client{Transport: bearerTransport{token}}, MaxRetries: -1}
	cs, err := c.Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool; protocol errors fail the test, tool errors are returned in the result.
// A successful result's structured output (for a client that asked for it) must match the
// tool's advertised output schema: the server does not check it per call (addTool), so every
// test that calls a tool checks it.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	require.NoError(t, err)
	if !res.IsError && res.StructuredContent != nil {
		requireOutputMatchesSchema(t, cs, tool, res.StructuredContent)
	}
	return res
}

// outputSchemas caches each session's tools' resolved output schemas.
var outputSchemas sync.Map // *mcp.ClientSession -> map[string]*jsonschema.Resolved

func requireOutputMatchesSchema(t *testing.T, cs *mcp.ClientSession, tool string, out any) {
	t.Helper()
	cached, ok := outputSchemas.Load(cs)
	if !ok {
		list, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		schemas := map[string]*jsonschema.Resolved{}
		for _, tl := range list.Tools {
			if tl.OutputSchema == nil {
				continue
			}
			raw, err := json.Marshal(tl.OutputSchema)
			require.NoError(t, err)
			var s jsonschema.Schema
			require.NoError(t, json.Unmarshal(raw, &s))
			r, err := s.Resolve(nil)
			require.NoError(t, err)
			schemas[tl.Name] = r
		}
		cached, _ = outputSchemas.LoadOrStore(cs, schemas)
	}
	schema, ok := cached.(map[string]*jsonschema.Resolved)[tool]
	require.True(t, ok, "%s advertises an output schema", tool)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	var v any
	require.NoError(t, json.Unmarshal(raw, &v))
	require.NoError(t, schema.Validate(v), "%s output %s", tool, raw)
}

// ok calls a tool that must succeed and decodes its structured output.
func ok[T any](t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) T {
	t.Helper()
	res := call(t, cs, tool, args)
	require.False(t, res.IsError, "%s: %s", tool, text(res))
	require.NotNil(t, res.StructuredContent, "%s: no structured output for a client that asked for it", tool)
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out T
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

// toolErr calls a tool that must fail with a tool error and returns its message.
func toolErr(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) string {
	t.Helper()
	res := call(t, cs, tool, args)
	require.True(t, res.IsError, "%s should fail, got %s", tool, text(res))
	return text(res)
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// countAll is how many memories (live and archived) project holds.
func (b *bundle) countAll(t *testing.T, project string) int {
	t.Helper()
	page, err := b.svc.List(context.Background(), memory.Access{Project: project, Admin: true, Actor: "test"},
		memory.ListRequest{IncludeArchived: true, Limit: 500})
	require.NoError(t, err)
	return len(page.Memories)
}

// rpc posts one raw JSON-RPC message and returns the status, headers and decoded body.
func rpc(t *testing.T, url, token string, headers map[string]string, msg map[string]any) (*http.Response, map[string]any) {
	t.Helper()
	body, err := json.Marshal(msg)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") && len(bytes.TrimSpace(raw)) > 0 {
		require.NoError(t, json.Unmarshal(raw, &out), "body: %s", raw)
	}
	return resp, out
}
