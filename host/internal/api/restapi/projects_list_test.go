package restapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestProjectsListingForOperators: GET /api/v1/projects lists every project that holds
// anything, most recently active first, with its counts, a page at a time; it needs the admin
// scope, and a token bound to a project sees that project alone.
func TestProjectsListingForOperators(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	admin := b.token(t, "", auth.ScopeAdmin)
	agentA := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)

	for _, text := range []string{"We use pnpm, never npm.", "CI runs on Buildkite.", "Releases ship on Tuesdays."} {
		r := b.do(t, agentA, "POST", "/api/v1/memories", `{"text":"`+text+`"}`)
		require.Equal(t, http.StatusCreated, r.status, r.body)
	}
	r := b.do(t, agentA, "GET", "/api/v1/memories?limit=1", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	id := r.body["memories"].([]any)[0].(map[string]any)["id"].(string)
	require.Equal(t, http.StatusOK, b.do(t, agentA, "POST", "/api/v1/memories/"+id+"/archive", `{"reason":"moved"}`).status)
	require.Equal(t, http.StatusCreated, b.do(t, agentA, "POST", at(projA, "journal"), `{"text":"Set up CI."}`).status)
	require.Equal(t, http.StatusCreated, b.do(t, agentA, "POST", at(projA, "proposals"), `{"layer":"goal","text":"Ship it."}`).status)
	// projB is written last: it is the most recently active.
	r = b.do(t, admin, "POST", "/api/v1/memories", `{"text":"Other uses yarn.","project":"`+projB+`"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)

	r = b.do(t, admin, "GET", "/api/v1/projects", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	rows := r.body["projects"].([]any)
	require.Len(t, rows, 2)
	first, second := rows[0].(map[string]any), rows[1].(map[string]any)
	require.Equal(t, projB, first["key"])
	require.Equal(t, projA, second["key"])
	require.Equal(t, map[string]any{"memories": 2.0, "archived": 1.0, "pending_proposals": 1.0, "journal_entries": 1.0},
		map[string]any{"memories": second["memories"], "archived": second["archived"], "pending_proposals": second["pending_proposals"], "journal_entries": second["journal_entries"]})
	require.NotEmpty(t, second["last_activity"])
	require.Nil(t, r.body["next_cursor"])

	r = b.do(t, admin, "GET", "/api/v1/projects?limit=1", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, projB, r.body["projects"].([]any)[0].(map[string]any)["key"])
	cursor := r.body["next_cursor"].(string)
	r = b.do(t, admin, "GET", "/api/v1/projects?limit=1&cursor="+cursor, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["projects"].([]any), 1)
	require.Equal(t, projA, r.body["projects"].([]any)[0].(map[string]any)["key"])
	require.Nil(t, r.body["next_cursor"])

	for query, want := range map[string]string{"limit=500": "500 is out of range 1..200", "limit=0x": "must be an integer", "cursor=nope": "is not a cursor"} {
		r = b.do(t, admin, "GET", "/api/v1/projects?"+query, "")
		require.Equal(t, http.StatusBadRequest, r.status, query)
		_, _, msg := errField(r)
		require.Contains(t, msg, want, query)
	}

	require.Equal(t, http.StatusForbidden, b.do(t, agentA, "GET", "/api/v1/projects", "").status, "agents do not see other projects' keys")
	reader := b.token(t, "", auth.ScopeRead)
	require.Equal(t, http.StatusForbidden, b.do(t, reader, "GET", "/api/v1/projects", "").status)
	boundAdmin := b.token(t, projA, auth.ScopeAdmin)
	r = b.do(t, boundAdmin, "GET", "/api/v1/projects", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["projects"].([]any), 1)
	require.Equal(t, projA, r.body["projects"].([]any)[0].(map[string]any)["key"])
}
