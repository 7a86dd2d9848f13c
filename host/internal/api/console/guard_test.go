package console_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestWritesComeFromTheConsole: a write is refused (403, nothing changed) when the browser
// says it came from another origin, when it carries neither Sec-Fetch-Site nor Origin, and
// when its form token is missing or another session's; the same write from the console's
// page goes through.
func TestWritesComeFromTheConsole(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.fact(t, projectA, "We use pnpm, never npm.")
	c := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	other := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	c.get("/console/memories/" + m.ID.String() + q(projectA))
	other.get("/console/")
	path := "/console/memories/" + m.ID.String() + "/archive"
	form := func() url.Values { return url.Values{"project": {projectA}, "reason": {"forged"}} }
	for name, headers := range map[string]map[string]string{
		"cross-site":         {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
		"same-site":          {"Sec-Fetch-Site": "same-site", "Origin": "http://127.0.0.1:1"},
		"other origin":       {"Origin": "https://evil.example"},
		"no browser headers": {},
	} {
		status, page := c.postWith(path, form(), headers)
		require.Equal(t, 403, status, name)
		require.Contains(t, page, "did not come from a memhost console page", name)
	}
	for name, token := range map[string]string{"no token": "", "another session's": other.csrf} {
		f := form()
		f.Set("csrf", token)
		if token == "" {
			f.Set("csrf", "x") // postWith fills in the client's own when empty
		}
		status, _ := c.post(path, f)
		require.Equal(t, 403, status, name)
	}
	v, err := b.mem.Peek(context.Background(), memory.Access{Project: projectA}, m.ID)
	require.NoError(t, err)
	require.Nil(t, v.ArchivedAt, "nothing changed")

	status, page := c.post(path, form())
	require.Equal(t, 200, status, page)
	require.Contains(t, page, "Archived.")
	v, err = b.mem.Peek(context.Background(), memory.Access{Project: projectA}, m.ID)
	require.NoError(t, err)
	require.NotNil(t, v.ArchivedAt)
	require.Equal(t, "forged", v.ArchivedReason)
}

// TestScopesAreREST's: a read-only session sees and changes nothing; a write session changes
// memories but not the goal, plan or inboxes (admin); a session bound to a project is refused
// another project, and another project's memory is not found even by id.
func TestScopesAreRESTs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	m := b.fact(t, projectA, "We use pnpm, never npm.")
	inB := b.fact(t, projectB, "Project B deploys on Fridays.")
	ctx := context.Background()
	_, err := b.brain.Propose(ctx, memory.Access{Project: projectA, Actor: "agent"}, brainProposal("goal", "Ship it."))
	require.NoError(t, err)
	page := "/console/memories/" + m.ID.String()

	reader := b.signIn(t, b.token(t, "", auth.ScopeRead))
	status, body := reader.get(page + q(projectA))
	require.Equal(t, 200, status)
	require.NotContains(t, body, "Change it", "no controls without the write scope")
	for _, w := range []struct{ path string }{{page + "/archive"}, {page + "/pin"}, {page + "/edit"}, {"/console/memories/archive"}, {"/console/project/goal"}} {
		status, body := reader.post(w.path, url.Values{"project": {projectA}, "id": {m.ID.String()}, "text": {"x y"}})
		require.Equal(t, 403, status, w.path)
		require.Contains(t, body, "scope", w.path)
	}

	writer := b.signIn(t, b.token(t, "", auth.ScopeRead, auth.ScopeWrite))
	writer.get(page + q(projectA))
	status, _ = writer.post(page+"/pin", url.Values{"project": {projectA}})
	require.Equal(t, 200, status, "a write token pins")
	status, body = writer.post("/console/project/goal", url.Values{"project": {projectA}, "text": {"Ours now."}})
	require.Equal(t, 403, status, "the goal is an admin's")
	require.Contains(t, body, "admin")

	bound := b.signIn(t, b.token(t, projectA, auth.ScopeAdmin))
	status, body = bound.get("/console/memories" + q(projectB))
	require.Equal(t, 403, status)
	require.Contains(t, body, "bound to project")
	status, _ = bound.get("/console/memories/" + inB.ID.String() + q(projectA))
	require.Equal(t, 404, status, "another project's memory is not found by id")
	status, _ = bound.post("/console/memories/"+inB.ID.String()+"/archive", url.Values{"project": {projectA}})
	require.Equal(t, 404, status)
	v, err := b.mem.Peek(ctx, memory.Access{Project: projectB}, inB.ID)
	require.NoError(t, err)
	require.Nil(t, v.ArchivedAt)
	status, body = bound.get("/console/health")
	require.Equal(t, 200, status)
	require.Contains(t, body, "bound to no project", "the host-wide parts are not a bound token's")
	require.NotContains(t, body, "memhost-embedder-bm25")
	require.NotContains(t, body, "local-llm")
	operator := b.signIn(t, b.token(t, "", auth.ScopeAdmin))
	_, body = operator.get("/console/health")
	require.Contains(t, body, "memhost-embedder-bm25", "an operator's token sees the plugins")
	require.Contains(t, body, "local-llm", "and the workers")
}
