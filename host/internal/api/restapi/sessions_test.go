package restapi_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// store writes a fact in project through REST and returns its id.
func (b bundle) store(t *testing.T, token, project, text string) string {
	t.Helper()
	body, err := json.Marshal(map[string]string{"text": text, "project": project})
	require.NoError(t, err)
	r := b.do(t, token, "POST", "/api/v1/memories", string(body))
	require.Contains(t, []int{http.StatusCreated, http.StatusOK}, r.status, r.body)
	return r.body["memory"].(map[string]any)["id"].(string)
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// TestSessionValueThroughREST: a session's task-scoped banner, its prompt's context and its end
// are recorded through REST, and GET .../value reports them; a token bound to another project
// sees none of it; bad input names its field and records nothing.
func TestSessionValueThroughREST(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	other := b.token(t, projB, auth.ScopeRead, auth.ScopeWrite)
	crowd := func(from, to int) {
		for i := from; i < to; i++ {
			b.store(t, agent, projA, fmt.Sprintf("Worker %d of the q%d pool drains job batch %d before shutdown on node n%d.", i, i*7, i*13, i*3))
		}
	}
	crowd(0, 20)
	needle := b.store(t, agent, projA, "The login integration test is flaky because the session cookie expires at midnight UTC; freeze the clock with faketime.")
	rate := b.store(t, agent, projA, "Login rate limits are 5 attempts a minute per IP; tests reset them through /debug/limits.")
	crowd(20, 80)

	sess := map[string]string{"key": "run-5d1c", "cli": "claude", "origin": "run"}
	r := b.do(t, agent, "POST", at(projA, "banner"), jsonBody(t, map[string]any{"cli": "claude", "budget": 500, "task": "fix the flaky login test", "session": sess}))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "scoped", r.body["task_mode"])
	require.Contains(t, r.body["text"], "## Relevant to this task\n")
	require.Contains(t, r.body["text"], "faketime")

	resp, err := http.Post(b.srv.URL+at(projA, "banner")+"?format=text", "application/json", strings.NewReader(`{"task":"fix the flaky login test"}`))
	require.NoError(t, err)
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode, "a banner needs a token")
	resp.Body.Close()
	req, err := http.NewRequest("POST", b.srv.URL+at(projA, "banner")+"?format=text", strings.NewReader(`{"task":"fix the flaky login test"}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+agent)
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	plain, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	require.Contains(t, string(plain), "faketime")

	r = b.do(t, agent, "POST", at(projA, "prompt-context"), jsonBody(t, map[string]any{"session": sess, "prompt": "why is the login test flaky, and are login rate limits involved?"}))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "scoped", r.body["mode"])
	require.Equal(t, []any{rate}, r.body["memories"], "the banner gave the needle already")

	r = b.do(t, agent, "POST", at(projA, "sessions/end"), jsonBody(t, map[string]any{"session": sess, "cli_session": "9f1e",
		"started_at": time.Now().Add(-time.Minute), "tokens": 1200, "cited": []string{needle[len(needle)-8:]}}))
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, map[string]any{"cited": float64(1)}, r.body["recorded"])
	require.Equal(t, float64(1), r.body["used"])

	r = b.do(t, agent, "GET", at(projA, "value")+"?since=7d", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	totals := r.body["totals"].(map[string]any)
	require.Equal(t, float64(1), totals["sessions"])
	require.Equal(t, float64(1), totals["cited"])
	require.Greater(t, totals["injected"].(float64), float64(1))
	require.NotEmpty(t, r.body["estimate"])
	sessions := r.body["sessions"].([]any)
	require.Len(t, sessions, 1)
	require.Equal(t, "9f1e", sessions[0].(map[string]any)["cli_session"])

	r = b.do(t, agent, "GET", at(projA, "sessions/run-5d1c"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, true, r.body["task_scoped"])
	r = b.do(t, agent, "GET", at(projA, "memories/"+needle+"/access"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, map[string]any{"given": float64(1), "cited": float64(1)}, r.body["counts"])
	r = b.do(t, agent, "GET", at(projA, "sessions")+"?limit=5", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Len(t, r.body["sessions"], 1)

	// Another project's token reaches none of it.
	for _, route := range []string{"value", "sessions", "sessions/run-5d1c"} {
		r = b.do(t, other, "GET", at(projA, route), "")
		require.Equal(t, http.StatusForbidden, r.status, route)
	}
	r = b.do(t, other, "GET", at(projB, "value"), "")
	require.Equal(t, http.StatusOK, r.status)
	require.Equal(t, float64(0), r.body["totals"].(map[string]any)["sessions"])

	// Bad input: the field is named, and nothing is recorded.
	for _, tc := range []struct {
		method, route, body, field string
	}{
		{"GET", "value?since=soon", "", "since"},
		{"GET", "value?since=-3d", "", "since"},
		{"GET", "value?unused_after=0x", "", "unused_after"},
		{"POST", "banner", `{"session":{"key":"has space"}}`, "session"},
		{"POST", "banner", `{"task":"` + strings.Repeat("x", 70000) + `"}`, "task"},
		{"POST", "prompt-context", `{"prompt":"login","budget":9000}`, "budget"},
		{"POST", "sessions/end", `{"session":{"key":"k"}}`, "started_at"},
		{"POST", "sessions/end", `{"session":{"key":"k"},"started_at":"2026-01-01T00:00:00Z","cited":["zz"]}`, "ids"},
		{"POST", "sessions/end", `{"session":{"key":"k"},"started_at":"2026-01-01T00:00:00Z","prompt":"x"}`, "prompt"},
	} {
		r = b.do(t, agent, tc.method, at(projA, tc.route), tc.body)
		require.Equal(t, http.StatusBadRequest, r.status, "%s %v", tc.route, r.body)
		_, field, _ := errField(r)
		require.Equal(t, tc.field, field, tc.route)
	}
	r = b.do(t, agent, "GET", at(projA, "sessions"), "")
	require.Len(t, r.body["sessions"], 1, "nothing recorded by the refused calls")
}
