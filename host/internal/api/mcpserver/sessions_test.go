package mcpserver_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/wire"
)

// sessionTransport sends the token and the session header, as the MCP entry memhost run hands
// a CLI does.
type sessionTransport struct{ token, session string }

func (st sessionTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+st.token)
	r.Header.Set(wire.SessionHeader, st.session)
	return http.DefaultTransport.RoundTrip(r)
}

// TestToolCallsAreRecordedInTheirSession: a CLI whose MCP entry carries the session header has
// its searches' hits and gets recorded as retrieved, its stores as stored and its
// memory_load_context banner as given, in that session's record; a call without the header
// records nothing, and one of another project's session never reaches this one.
func TestToolCallsAreRecordedInTheirSession(t *testing.T) {
	t.Parallel()
	b, br := setupBrain(t)
	tok := b.token(t, "run", writeScopes, projectA)
	c := mcp.NewClient(&mcp.Implementation{Name: "claude-code", Version: "2.1"}, nil)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.url,
		HTTPClient: &http.Client{Transport: sessionTransport{tok, "run-a1b2"}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })

	res := call(t, cs, "memory_store", map[string]any{"text": "Release branches are cut every second Tuesday from main."})
	require.False(t, res.IsError, text(res))
	call(t, cs, "memory_store", map[string]any{"text": "Hotfixes go to the release branch first, then are merged back to main."})
	res = call(t, cs, "memory_search", map[string]any{"query": "when are release branches cut"})
	require.False(t, res.IsError, text(res))
	res = call(t, cs, "project_search", map[string]any{"query": "hotfixes"})
	require.False(t, res.IsError, text(res))

	a := memory.Access{Project: projectA}
	d, err := br.Session(context.Background(), a, "run-a1b2")
	require.NoError(t, err)
	require.Equal(t, "run", d.Origin)
	require.Equal(t, 2, d.Stored)
	require.Equal(t, 2, d.Retrieved)
	for _, m := range d.Memories {
		if m.Event == "retrieved" {
			require.Equal(t, "search", m.Channel)
			require.Positive(t, m.Tokens)
		}
	}
	id := d.Memories[0].ID.String()
	call(t, cs, "memory_get", map[string]any{"id": id})
	res = call(t, cs, "memory_load_context", map[string]any{})
	require.False(t, res.IsError, text(res))
	d, err = br.Session(context.Background(), a, "run-a1b2")
	require.NoError(t, err)
	require.Equal(t, 2, d.Given, "the banner's facts")
	require.Equal(t, "claude", d.CLI)

	// Without the header nothing is recorded.
	plain := b.connectAsCLI(t, tok, "claude-code")
	call(t, plain, "memory_search", map[string]any{"query": "release branches"})
	page, err := br.Sessions(context.Background(), a, brain.SessionsRequest{})
	require.NoError(t, err)
	require.Len(t, page.Sessions, 1)

	// A key the rules refuse is no session: the call still works and records nothing.
	cs2, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: b.url,
		HTTPClient: &http.Client{Transport: sessionTransport{tok, "bad key!"}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs2.Close() })
	res = call(t, cs2, "memory_load_context", map[string]any{})
	require.False(t, res.IsError, text(res))
	page, err = br.Sessions(context.Background(), a, brain.SessionsRequest{})
	require.NoError(t, err)
	require.Len(t, page.Sessions, 1)
}
