package restapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestAMemoryIsEdited: PATCH /memories/{id} corrects a fact's text (searchable by its new words
// at once, the old ones gone), kind and importance, and history records an update with the
// text before and after. Bad input names the field and the rule and changes nothing; a text
// another live memory holds is a conflict naming it; a journal entry, another project's memory
// and a global one without admin rights are refused.
func TestAMemoryIsEdited(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	admin := b.token(t, "", auth.ScopeAdmin)
	stored := func(token, body string) string {
		r := b.do(t, token, "POST", "/api/v1/memories", body)
		require.Equal(t, http.StatusCreated, r.status, r.body)
		return r.body["id"].(string)
	}
	id := stored(agent, `{"text": "The API listens on port 8080."}`)
	other := stored(agent, `{"text": "Deploys go out on Fridays."}`)

	r := b.do(t, agent, "PATCH", "/api/v1/memories/"+id, `{"text": "The API listens on port 9090.", "kind": "gotcha", "importance": 0.9}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, true, r.body["changed"])
	m := r.body["memory"].(map[string]any)
	require.Equal(t, "The API listens on port 9090.", m["text"])
	require.Equal(t, "gotcha", m["kind"])
	require.Equal(t, 0.9, m["importance"])
	require.Equal(t, id, m["id"])

	r = b.do(t, agent, "POST", "/api/v1/memories/search", `{"query": "9090"}`)
	require.Len(t, r.body["results"].([]any), 1)
	r = b.do(t, agent, "POST", "/api/v1/memories/search", `{"query": "8080"}`)
	require.Empty(t, r.body["results"].([]any), "the old text is no longer what the memory says")

	r = b.do(t, agent, "GET", "/api/v1/memories/"+id+"/history", "")
	h := r.body["history"].([]any)
	require.Len(t, h, 2)
	last := h[1].(map[string]any)
	require.Equal(t, "update", last["event"])
	require.Equal(t, "The API listens on port 8080.", last["before_text"])
	require.Equal(t, "The API listens on port 9090.", last["after_text"])

	r = b.do(t, agent, "PATCH", "/api/v1/memories/"+id, `{"importance": 0.9}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, false, r.body["changed"], "nothing to change is no write")

	for body, want := range map[string][2]string{
		`{}`:                                     {"body", "names nothing to change"},
		`{"importance": 1.5}`:                    {"importance", "1.5 is out of range 0..1"},
		`{"kind": "goal"}`:                       {"kind", "project document"},
		`{"text": ""}`:                           {"text", ""},
		`{"text": "x", "pinned": true}`:          {"pinned", "is not a known field"},
		`{"text": "Deploys go out on Fridays."}`: {"", "already says this"},
	} {
		r := b.do(t, agent, "PATCH", "/api/v1/memories/"+id, body)
		_, field, msg := errField(r)
		if want[0] == "" {
			require.Equal(t, http.StatusConflict, r.status, body)
			require.Contains(t, msg, other[len(other)-8:], "the conflict names the memory that holds the text")
		} else {
			require.Equal(t, http.StatusBadRequest, r.status, body)
			require.Equal(t, want[0], field, body)
		}
		require.Contains(t, msg, want[1], body)
	}
	r = b.do(t, agent, "GET", "/api/v1/memories/"+id, "")
	require.Equal(t, "The API listens on port 9090.", r.body["text"], "a refused edit changed nothing")

	r = b.do(t, agent, "POST", at(projA, "journal"), `{"text": "claude session ended after 5m."}`)
	entry := r.body["entry"].(map[string]any)["id"].(string)
	r = b.do(t, agent, "PATCH", "/api/v1/memories/"+entry, `{"text": "rewritten"}`)
	require.Equal(t, http.StatusBadRequest, r.status)
	_, _, msg := errField(r)
	require.Contains(t, msg, "journal entry")

	outsider := b.token(t, "github.com/acme/other", auth.ScopeRead, auth.ScopeWrite)
	r = b.do(t, outsider, "PATCH", "/api/v1/memories/"+id, `{"text": "The API listens on port 1."}`)
	require.Equal(t, http.StatusNotFound, r.status)

	global := stored(admin, `{"text": "Answer in English.", "scope": "global", "project": "github.com/acme/app"}`)
	r = b.do(t, agent, "PATCH", "/api/v1/memories/"+global, `{"text": "Answer in French."}`)
	require.Equal(t, http.StatusForbidden, r.status)
}
