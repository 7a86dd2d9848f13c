package restapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/restapi"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// TestMain sets gin's mode once: it is a process global, and parallel tests must not race on it.
// goleak then fails the package when a test leaves a goroutine running.
func TestMain(m *testing.M) {
	gin.SetMode(gin.ReleaseMode)
	goleak.VerifyTestMain(m)
}

type bundle struct {
	srv    *httptest.Server
	tokens *auth.Tokens
	engine *gin.Engine
}

func setup(t *testing.T, limits auth.Limits) bundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	svc := memory.New(pgstore.New(pool), lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	tokens := auth.NewTokens(pool)
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens), Limits: limits,
		Status: func(context.Context, bool) (any, error) { return map[string]string{"database": "ok"}, nil }})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	return bundle{srv: srv, tokens: tokens, engine: r}
}

func (b bundle) token(t *testing.T, project string, scopes ...auth.Scope) string {
	t.Helper()
	tok, _, err := b.tokens.Create(context.Background(), auth.CreateToken{Name: "test", Scopes: scopes, ProjectKey: project})
	require.NoError(t, err)
	return tok
}

type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func (b bundle) do(t *testing.T, token, method, path, body string) reply {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, b.srv.URL+path, r)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	out := reply{status: resp.StatusCode, header: resp.Header}
	if len(raw) > 0 {
		require.NoError(t, json.Unmarshal(raw, &out.body), string(raw))
	}
	return out
}

func errField(r reply) (code, field, msg string) {
	e, _ := r.body["error"].(map[string]any)
	code, _ = e["code"].(string)
	field, _ = e["field"].(string)
	msg, _ = e["message"].(string)
	return
}

func TestMemoryLifecycle(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	q := "?project=acme"
	r := b.do(t, tok, "POST", "/api/v1/memories", `{"text":"We use pnpm, not npm, in this repo.","kind":"convention","project":"acme","agent":"claude-code"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	id := r.body["id"].(string)
	r = b.do(t, tok, "POST", "/api/v1/memories", `{"text":"This project uses pnpm instead of npm.","project":"acme"}`)
	require.Equal(t, http.StatusOK, r.status, "a fold answers 200: %v", r.body)
	require.Equal(t, true, r.body["folded"])
	require.Equal(t, id, r.body["id"])

	r = b.do(t, tok, "POST", "/api/v1/memories/search", `{"query":"which package manager?","project":"acme"}`)
	require.Equal(t, http.StatusOK, r.status)
	results := r.body["results"].([]any)
	require.Len(t, results, 1)
	require.Equal(t, id, results[0].(map[string]any)["id"])

	require.Equal(t, http.StatusOK, b.do(t, tok, "GET", "/api/v1/memories/"+id+q, "").status)
	r = b.do(t, tok, "PUT", "/api/v1/memories/"+id+"/pin"+q, "")
	require.Equal(t, true, r.body["pinned"])
	r = b.do(t, tok, "DELETE", "/api/v1/memories/"+id+"/pin"+q, "")
	require.Equal(t, false, r.body["pinned"])
	r = b.do(t, tok, "POST", "/api/v1/memories/"+id+"/archive"+q, `{"reason":"switched to bun"}`)
	require.Equal(t, http.StatusOK, r.status)
	require.NotNil(t, r.body["archived_at"])
	r = b.do(t, tok, "GET", "/api/v1/memories"+q, "")
	require.Empty(t, r.body["memories"])
	r = b.do(t, tok, "GET", "/api/v1/memories"+q+"&only_archived=true", "")
	require.Len(t, r.body["memories"], 1)
	r = b.do(t, tok, "POST", "/api/v1/memories/"+id+"/restore"+q, "")
	require.Equal(t, http.StatusOK, r.status)
	r = b.do(t, tok, "GET", "/api/v1/memories/"+id+"/history"+q, "")
	var events []string
	for _, h := range r.body["history"].([]any) {
		events = append(events, h.(map[string]any)["event"].(string))
	}
	require.Equal(t, []string{"add", "fold", "pin", "unpin", "archive", "restore"}, events)
	r = b.do(t, tok, "GET", "/api/v1/status", "")
	require.Equal(t, http.StatusOK, r.status)
}

func TestErrorsAreClearAndChangeNothing(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	rw := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	ro := b.token(t, "", auth.ScopeRead)
	boundA := b.token(t, "project-a", auth.ScopeRead, auth.ScopeWrite)

	r := b.do(t, "", "GET", "/api/v1/memories?project=p", "")
	require.Equal(t, http.StatusUnauthorized, r.status)
	require.Contains(t, r.header.Get("WWW-Authenticate"), "Bearer")
	r = b.do(t, "mh_not-a-real-token", "GET", "/api/v1/memories?project=p", "")
	require.Equal(t, http.StatusUnauthorized, r.status)

	r = b.do(t, ro, "POST", "/api/v1/memories", `{"text":"x y","project":"p"}`)
	require.Equal(t, http.StatusForbidden, r.status)
	_, _, msg := errField(r)
	require.Contains(t, msg, "memory:write")

	cases := []struct{ body, field, want string }{
		{`{"text":"","project":"p"}`, "text", "must not be empty"},
		{`{"text":"` + strings.Repeat("a", 16385) + `","project":"p"}`, "text", "the limit is 16384 bytes"},
		{`{"text":"ok","colour":"red","project":"p"}`, "colour", "not a known field"},
		{`{"text":"ok","kind":"rumour","project":"p"}`, "kind", "not one of"},
		{`{"text":"ok","importance":"high","project":"p"}`, "importance", "must be a number"},
		{`{"text":"ok"}`, "project", "required"},
		{`{"text":"ok","project":"p"} trailing`, "body", "after the JSON object"},
		{`not json`, "body", "not valid JSON"},
		{`{"text":"ok","scope":"global","project":"p"}`, "", "admin"},
	}
	for _, tc := range cases {
		r := b.do(t, rw, "POST", "/api/v1/memories", tc.body)
		require.Contains(t, []int{http.StatusBadRequest, http.StatusForbidden}, r.status, tc.body)
		_, field, msg := errField(r)
		require.Equal(t, tc.field, field, tc.body)
		require.Contains(t, msg, tc.want, tc.body)
	}
	r = b.do(t, rw, "GET", "/api/v1/memories?project=p", "")
	require.Empty(t, r.body["memories"], "nothing was stored")

	// Project binding: a token bound to A cannot reach B, explicitly or by id.
	r = b.do(t, boundA, "POST", "/api/v1/memories", `{"text":"A's secret plan","project":"project-b"}`)
	require.Equal(t, http.StatusForbidden, r.status)
	r = b.do(t, boundA, "POST", "/api/v1/memories", `{"text":"A's plan"}`)
	require.Equal(t, http.StatusCreated, r.status)
	idA := r.body["id"].(string)
	r = b.do(t, rw, "GET", "/api/v1/memories/"+idA+"?project=project-b", "")
	require.Equal(t, http.StatusNotFound, r.status)
	r = b.do(t, rw, "POST", "/api/v1/memories/"+idA+"/archive?project=project-b", "")
	require.Equal(t, http.StatusNotFound, r.status)
	r = b.do(t, rw, "GET", "/api/v1/memories/not-a-uuid?project=p", "")
	require.Equal(t, http.StatusBadRequest, r.status)
}

func TestWriteRateLimit(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{Writes: auth.NewLimiter("writes", 60, 2)})
	tok := b.token(t, "p", auth.ScopeRead, auth.ScopeWrite)
	for _, text := range []string{"CI runs on Buildkite", "Releases are tagged by hand"} {
		r := b.do(t, tok, "POST", "/api/v1/memories", `{"text":"`+text+`"}`)
		require.Equal(t, http.StatusCreated, r.status)
	}
	r := b.do(t, tok, "POST", "/api/v1/memories", `{"text":"one too many"}`)
	require.Equal(t, http.StatusTooManyRequests, r.status)
	require.NotEmpty(t, r.header.Get("Retry-After"))
	code, _, msg := errField(r)
	require.Equal(t, "rate_limited", code)
	require.Contains(t, msg, "retry after")
	require.Contains(t, msg, "60 writes per minute (bursts of 2)", "the refusal names the limit")
	require.Equal(t, http.StatusOK, b.do(t, tok, "POST", "/api/v1/memories/search", `{"query":"fact"}`).status, "reads have their own limit")
}

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	r := b.do(t, "", "GET", "/api/v1/openapi.json", "")
	require.Equal(t, http.StatusOK, r.status)
	paths := r.body["paths"].(map[string]any)
	for _, route := range b.engine.Routes() {
		p := route.Path
		for _, seg := range strings.Split(p, "/") {
			if strings.HasPrefix(seg, ":") {
				p = strings.Replace(p, seg, "{"+seg[1:]+"}", 1)
			}
		}
		ops, ok := paths[p].(map[string]any)
		require.True(t, ok, "route %s %s is not in openapi.json", route.Method, route.Path)
		_, ok = ops[strings.ToLower(route.Method)]
		require.True(t, ok, "method %s of %s is not in openapi.json", route.Method, p)
	}
	var buf bytes.Buffer
	require.NoError(t, json.NewEncoder(&buf).Encode(r.body))
}
