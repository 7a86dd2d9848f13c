//go:build e2econsole

package e2econsole

import (
	"context"
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
)

// The project every test works in, and another one a bound session must not reach.
const (
	project = "github.com/acme/console-demo"
	other   = "github.com/acme/elsewhere"
)

// world is a host with a project worth looking at: facts an agent stored, a goal, a pending
// proposal, journal entries, an archived fact, a consolidation merge and an open conflict.
type world struct {
	h        *host
	admin    string // an admin token bound to no project: the operator's
	agent    *mcp.ClientSession
	facts    map[string]uuid.UUID // by a short name
	proposal string
	conflict uuid.UUID
}

type storedMemory struct {
	ID     string `json:"id"`
	Folded bool   `json:"folded"`
}

func newWorld(t *testing.T, dirs ...string) *world {
	t.Helper()
	h := startHost(t, dirs...)
	w := &world{h: h, admin: h.token("--scopes", "admin", "--name", "operator"), facts: map[string]uuid.UUID{}}
	agentToken := h.token("--scopes", "memory:read,memory:write", "--name", "claude-code-agent")
	w.agent = h.agent(agentToken)
	put := func(name, text, kind string) {
		res := call[storedMemory](t, w.agent, "memory_store", map[string]any{"text": text, "kind": kind, "project": project})
		require.False(t, res.Folded, text)
		w.facts[name] = uuid.MustParse(res.ID)
	}
	put("pnpm", "We use pnpm, never npm, in this repository.", "convention")
	put("tz", "Tests need TZ=UTC or the date helpers fail.", "gotcha")
	put("deploy", "Deploys go through ArgoCD from the main branch.", "fact")
	put("argo", "ArgoCD ships every deploy of the services.", "fact")
	put("ports", "The API listens on port 8080 and the worker on 9090.", "reference")
	put("old", "The frontend bundles with webpack 4.", "fact")
	put("stale", "Currently debugging the session.ended event delivery.", "fact")
	for i := range 12 {
		put(fmt.Sprintf("svc%d", i), fmt.Sprintf("Service s%d owns the %s queue and retries %d times.", i, []string{"orders", "billing", "mail", "search"}[i%4], i+2), "fact")
	}
	call[map[string]any](t, w.agent, "memory_store", map[string]any{"text": "The elsewhere project ships nightly.", "project": other})

	require.Equal(t, 200, h.rest(w.admin, "PUT", "/api/v1/projects/"+url.PathEscape(project)+"/goal", `{"text":"Ship the console: see and steer the project's memory."}`, nil))
	require.Equal(t, 200, h.rest(w.admin, "PUT", "/api/v1/projects/"+url.PathEscape(project)+"/plan", `{"text":"1. Memories screen\n2. Project screen\n3. Health and plots"}`, nil))
	var proposed struct {
		Proposal struct {
			ID string `json:"id"`
		} `json:"proposal"`
	}
	require.Equal(t, 201, h.rest(agentToken, "POST", "/api/v1/projects/"+url.PathEscape(project)+"/proposals",
		`{"layer":"goal","text":"Ship the console and the value figures.","reason":"the value issue landed","agent":"codex"}`, &proposed))
	w.proposal = proposed.Proposal.ID
	for _, j := range []string{"Fixed the flaky login test; TZ=UTC was missing in CI.", "Moved the frontend from npm to pnpm."} {
		require.Equal(t, 201, h.rest(agentToken, "POST", "/api/v1/projects/"+url.PathEscape(project)+"/journal", `{"text":"`+j+`","agent":"claude","session":"s-`+fmt.Sprint(len(j))+`"}`, nil))
	}
	require.Equal(t, 200, h.rest(agentToken, "POST", "/api/v1/memories/"+w.facts["stale"].String()+"/archive?project="+url.QueryEscape(project), `{"reason":"stale"}`, nil))

	// What the maintenance jobs would make, made by "another host" on the same database: a
	// consolidation merge and a conflict the conflicts job found.
	ctx := context.Background()
	st := pgstore.New(h.pool())
	sv, err := st.Get(ctx, w.facts["deploy"])
	require.NoError(t, err)
	ab, err := st.Get(ctx, w.facts["argo"])
	require.NoError(t, err)
	_, _, err = st.Merge(ctx, store.MergeParams{Survivor: sv.ID, Absorbed: []uuid.UUID{ab.ID}, Texts: map[uuid.UUID]string{sv.ID: sv.Text, ab.ID: ab.Text},
		MergedFromMax: 20, Actor: "maintenance:consolidate", Detail: map[string]any{"method": "vectors"}})
	require.NoError(t, err)
	w.conflict = uuid.Must(uuid.NewV7())
	filed, err := st.FileConflict(ctx, store.Conflict{ID: w.conflict, ScopeKey: project, MemoryA: w.facts["pnpm"], TextA: "We use pnpm, never npm, in this repository.",
		MemoryB: w.facts["old"], TextB: "The frontend bundles with webpack 4.", Evidence: "The journal says the frontend moved; webpack 4 predates it.", Severity: "low", CreatedAt: time.Now().UTC()})
	require.NoError(t, err)
	require.True(t, filed)
	return w
}

// page is a console page's URL for the world's project.
func (w *world) page(path string, kv ...string) string {
	q := url.Values{"project": {project}}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return w.h.url + "/console/" + path + "?" + q.Encode()
}

// signIn opens a browser signed in with token.
func (w *world) signIn(t *testing.T, token string) *browser {
	t.Helper()
	b := newBrowser(t)
	b.open(w.h.signinLink(token))
	b.check("signin")
	b.shot("signin")
	b.clickAndWait("form[action='/console/signin'] button")
	return b
}
