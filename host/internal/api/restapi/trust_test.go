package restapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// TestBoundAdminChangesNothingGlobal: a token bound to a project changes nothing outside it,
// and global memories are seen by every project, so even a bound admin token may not write,
// archive, restore or pin them.
func TestBoundAdminChangesNothingGlobal(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	operator := b.token(t, "", auth.ScopeAdmin)
	boundAdmin := b.token(t, "acme", auth.ScopeAdmin)
	r := b.do(t, operator, "POST", "/api/v1/memories", `{"text":"House style: tabs, not spaces.","scope":"global","project":"acme"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	global := r.body["id"].(string)

	r = b.do(t, boundAdmin, "POST", "/api/v1/memories", `{"text":"Every project uses pnpm.","scope":"global"}`)
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	_, _, msg := errField(r)
	require.Contains(t, msg, "not bound to a project")
	for _, route := range []struct{ method, path string }{
		{"POST", "/archive"}, {"POST", "/restore"}, {"PUT", "/pin"}, {"DELETE", "/pin"},
	} {
		r = b.do(t, boundAdmin, route.method, "/api/v1/memories/"+global+route.path, "")
		require.Equal(t, http.StatusForbidden, r.status, "%s %s: %v", route.method, route.path, r.body)
	}
	r = b.do(t, b.token(t, "other", auth.ScopeRead), "GET", "/api/v1/memories/"+global, "")
	require.Equal(t, http.StatusOK, r.status)
	require.Nil(t, r.body["archived_at"], "the global memory every project sees is unchanged")
	require.Equal(t, false, r.body["pinned"])
	r = b.do(t, boundAdmin, "GET", "/api/v1/memories?exclude_global=false", "")
	require.Len(t, r.body["memories"], 1, "the bound admin stored no global memory")

	r = b.do(t, boundAdmin, "POST", "/api/v1/memories", `{"text":"Deploys go through Argo CD."}`)
	require.Equal(t, http.StatusCreated, r.status, "its own project is its to write")
}

// gitRepo makes a directory whose project key comes from a git remote.
func gitRepo(t *testing.T, remote string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".git"), 0o700))
	cfg := "[core]\n\trepositoryformatversion = 0\n[remote \"origin\"]\n\turl = " + remote + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o600))
	return dir
}

// TestCwdIsNoOracle: a refused cwd never names the project (git remote) it resolves to.
func TestCwdIsNoOracle(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	dir := gitRepo(t, "https://github.com/secret-org/secret-repo.git")
	unbound := b.token(t, "", auth.ScopeRead)
	r := b.do(t, unbound, "GET", "/api/v1/memories?cwd="+url.QueryEscape(dir), "")
	require.Equal(t, http.StatusOK, r.status, "an unbound token may act for the cwd's project: %v", r.body)

	r = b.do(t, b.token(t, "acme", auth.ScopeRead), "GET", "/api/v1/memories?cwd="+url.QueryEscape(dir), "")
	require.Equal(t, http.StatusForbidden, r.status)
	_, _, msg := errField(r)
	require.Contains(t, msg, `bound to project "acme"`)
	require.NotContains(t, msg, "secret")

	r = b.do(t, unbound, "GET", "/api/v1/memories?project=acme&cwd="+url.QueryEscape(dir), "")
	require.Equal(t, http.StatusBadRequest, r.status)
	_, field, msg := errField(r)
	require.Equal(t, "project", field)
	require.NotContains(t, msg, "secret")
}

// TestChangeRoutesTakeTheProjectFromTheBody: archive, restore and pin take project (or cwd)
// in the JSON body as store and search do, not only in the query string.
func TestChangeRoutesTakeTheProjectFromTheBody(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	r := b.do(t, tok, "POST", "/api/v1/memories", `{"text":"We use pnpm, not npm.","project":"acme"}`)
	require.Equal(t, http.StatusCreated, r.status)
	id := r.body["id"].(string)

	r = b.do(t, tok, "POST", "/api/v1/memories/"+id+"/archive", `{"project":"acme","reason":"moved to bun"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.NotNil(t, r.body["archived_at"])
	r = b.do(t, tok, "POST", "/api/v1/memories/"+id+"/restore", `{"project":"acme"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Nil(t, r.body["archived_at"])
	r = b.do(t, tok, "PUT", "/api/v1/memories/"+id+"/pin", `{"project":"acme"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, true, r.body["pinned"])
	r = b.do(t, tok, "DELETE", "/api/v1/memories/"+id+"/pin", `{"project":"acme"}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, false, r.body["pinned"])

	r = b.do(t, tok, "POST", "/api/v1/memories/"+id+"/restore", `{"project":"acme","reason":"x"}`)
	require.Equal(t, http.StatusBadRequest, r.status, "only archive takes a reason")
	_, field, _ := errField(r)
	require.Equal(t, "reason", field)
	r = b.do(t, tok, "GET", "/api/v1/memories/"+id+"/history?project=acme", "")
	require.Len(t, r.body["history"], 5, "added, archived, restored, pinned, unpinned: %v", r.body)
}

// TestTwoAuthorizationHeadersAreRefused: which of two tokens a request runs as must not
// depend on which one a component happens to read.
func TestTwoAuthorizationHeadersAreRefused(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	req, err := http.NewRequest("GET", b.srv.URL+"/api/v1/memories?project=acme", nil)
	require.NoError(t, err)
	req.Header.Add("Authorization", "Bearer "+b.token(t, "", auth.ScopeRead))
	req.Header.Add("Authorization", "Bearer "+b.token(t, "", auth.ScopeAdmin))
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	var body map[string]map[string]string
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	require.Equal(t, "unauthenticated", body["error"]["code"])
	require.Contains(t, body["error"]["message"], "exactly one Authorization header")
}

// TestReadRateLimit: reads have a per-token limit of their own: 429 with Retry-After and a
// message naming the limit.
func TestReadRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{Reads: auth.NewLimiter("reads", 1, 2)})
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	for range 2 {
		require.Equal(t, http.StatusOK, b.do(t, tok, "POST", "/api/v1/memories/search", `{"query":"lint","project":"acme"}`).status)
	}
	r := b.do(t, tok, "POST", "/api/v1/memories/search", `{"query":"lint","project":"acme"}`)
	require.Equal(t, http.StatusTooManyRequests, r.status)
	require.NotEmpty(t, r.header.Get("Retry-After"))
	code, _, msg := errField(r)
	require.Equal(t, "rate_limited", code)
	require.Contains(t, msg, `token "test" is over its limit of 1 reads per minute (bursts of 2)`)
	require.Equal(t, http.StatusTooManyRequests, b.do(t, tok, "GET", "/api/v1/memories?project=acme", "").status, "every read counts")
	require.Equal(t, http.StatusCreated, b.do(t, tok, "POST", "/api/v1/memories", `{"text":"Lint with golangci-lint.","project":"acme"}`).status,
		"writes have their own bucket")
	require.Equal(t, http.StatusOK, b.do(t, b.token(t, "", auth.ScopeRead), "GET", "/api/v1/memories?project=acme", "").status, "buckets are per token")
}
