package restapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestJournalEntriesAreMemoriesToListAndSearch: the journal is made of memories, so
// GET /memories?kinds=journal lists its entries and POST /memories/search with kinds ["journal"]
// finds them (issue 30: both refused "journal" as "not a memory kind"); without kinds both
// keep to facts. An unknown kind names every kind a read takes; goal and plan point to their
// own routes.
func TestJournalEntriesAreMemoriesToListAndSearch(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	r := b.do(t, agent, "POST", at(projA, "journal"), `{"text": "codex session ended after 4m: moved the release scripts to make."}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	r = b.do(t, agent, "POST", "/api/v1/memories", `{"text": "Release scripts live in the Makefile."}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)

	r = b.do(t, agent, "GET", "/api/v1/memories?kinds=journal", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	ms := r.body["memories"].([]any)
	require.Len(t, ms, 1)
	require.Equal(t, "journal", ms[0].(map[string]any)["kind"])

	r = b.do(t, agent, "GET", "/api/v1/memories", "")
	ms = r.body["memories"].([]any)
	require.Len(t, ms, 1)
	require.Equal(t, "fact", ms[0].(map[string]any)["kind"])

	r = b.do(t, agent, "POST", "/api/v1/memories/search", `{"query": "release scripts", "kinds": ["journal", "fact"]}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["results"].([]any), 2)

	r = b.do(t, agent, "GET", "/api/v1/memories?kinds=diary", "")
	require.Equal(t, http.StatusBadRequest, r.status)
	_, field, msg := errField(r)
	require.Equal(t, "kinds", field)
	require.Contains(t, msg, "reference, journal")
	r = b.do(t, agent, "GET", "/api/v1/memories?kinds=goal", "")
	require.Equal(t, http.StatusBadRequest, r.status)
	_, _, msg = errField(r)
	require.Contains(t, msg, "memhost project goal set")
}
