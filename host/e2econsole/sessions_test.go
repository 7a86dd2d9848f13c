//go:build e2econsole

package e2econsole

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/shortid"
	"github.com/memhost/memhost/host/internal/wire"
)

// TestSessionsScreens: an agent whose MCP entry names its session (as memhost run's does)
// searches and stores; the Sessions screen lists the session, its page shows what it searched
// and read and what it stored, and the memory's page has the access log entry linking back.
// Each screen passes the checks every screen does.
func TestSessionsScreens(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	const key = "run-e2e-console"
	agent := w.h.agentIn(w.h.token("--scopes", "memory:read,memory:write", "--name", "session-agent"), key)
	hits := call[struct {
		Hits []struct {
			ID string `json:"id"`
		} `json:"hits"`
	}](t, agent, "memory_search", map[string]any{"query": "which package manager do we use", "project": project})
	require.NotEmpty(t, hits.Hits)
	stored := call[storedMemory](t, agent, "memory_store", map[string]any{"text": "The console's session screens read issue 28's records.", "project": project})
	call[map[string]any](t, agent, "memory_load_context", map[string]any{"project": project})
	// The session ends as memhost run ends it: what its transcript showed, here a citation.
	end := fmt.Sprintf(`{"session":{"key":%q,"cli":"claude","origin":"run"},"started_at":%q,"cited":[%q]}`,
		key, time.Now().Add(-time.Minute).UTC().Format(time.RFC3339), shortid.Of(w.facts["pnpm"]))
	require.Equal(t, 200, w.h.rest(w.admin, "POST", "/api/v1/projects/"+url.PathEscape(project)+"/sessions/end", end, nil))

	b := w.signIn(t, w.admin)
	b.open(w.page("sessions"))
	b.check("sessions")
	b.shot("sessions")
	require.Contains(t, b.text("table.sessions"), key)

	require.Equal(t, 200, b.clickAndWait(`table.sessions a`))
	b.check("session")
	b.shot("session")
	require.Contains(t, b.text(`section[aria-labelledby="ev-retrieved"]`), shortid.Of(w.facts["pnpm"]), "the search's hit, recorded as it was returned")
	require.Contains(t, b.text(`section[aria-labelledby="ev-stored"]`), shortid.Of(uuid.MustParse(stored.ID)))
	require.Contains(t, b.text(`section[aria-labelledby="ev-given"]`), shortid.Of(w.facts["pnpm"]), "memory_load_context's banner")
	require.Contains(t, b.text(`section[aria-labelledby="ev-cited"]`), shortid.Of(w.facts["pnpm"]))

	b.open(w.page("memories/" + w.facts["pnpm"].String()))
	b.check("memory-access")
	b.shot("memory-access")
	log := b.text(`section[aria-labelledby="access-h"]`)
	for _, want := range []string{"given", "retrieved", "search", "cited", "transcript"} {
		require.Contains(t, log, want)
	}
	require.Equal(t, 200, b.clickAndWait(`section[aria-labelledby="access-h"] tbody a`))
	require.Contains(t, b.text("h1"), key, "the access log links the session")
	b.check("session-from-access")
}

// agentIn connects an MCP client whose entry names session key, as memhost run's entry does.
func (h *host) agentIn(token, key string) *mcp.ClientSession {
	h.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-console-session", Version: "1.0"}, &mcp.ClientOptions{Capabilities: wire.StructuredClient()})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp",
		HTTPClient: &http.Client{Transport: sessionHeader{bearer{token}, key}}, MaxRetries: -1}, nil)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// sessionHeader adds the session header to every request.
type sessionHeader struct {
	next http.RoundTripper
	key  string
}

func (s sessionHeader) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set(wire.SessionHeader, s.key)
	return s.next.RoundTrip(r)
}
