package restapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/restapi"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// doAuth is do with a raw Authorization header.
func (b bundle) doAuth(t *testing.T, authorization, method, path, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, b.srv.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", authorization)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	return reply{status: resp.StatusCode, header: resp.Header}
}

func TestBearerParsingMatchesMCP(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	tok := b.token(t, "", auth.ScopeRead)
	require.Equal(t, http.StatusOK, b.doAuth(t, "bearer "+tok, "GET", "/api/v1/memories?project=p", "").status, "the scheme is case-insensitive")
	require.Equal(t, http.StatusUnauthorized, b.doAuth(t, "Bearer Bearer "+tok, "GET", "/api/v1/memories?project=p", "").status, "exactly one token")

	revokedTok, revoked, err := b.tokens.Create(context.Background(), auth.CreateToken{Name: "old", Scopes: []auth.Scope{auth.ScopeRead}})
	require.NoError(t, err)
	require.NoError(t, b.tokens.Revoke(context.Background(), revoked.ID))
	r1 := b.do(t, revokedTok, "GET", "/api/v1/memories?project=p", "")
	r2 := b.do(t, auth.TokenPrefix+strings.Repeat("Z", 43), "GET", "/api/v1/memories?project=p", "")
	require.Equal(t, http.StatusUnauthorized, r1.status)
	_, _, m1 := errField(r1)
	_, _, m2 := errField(r2)
	require.Equal(t, m2, m1, "a revoked token is told the same as an unknown one")
}

func TestProjectKeysAreHeldToOneRule(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	for name, q := range map[string]string{"nul": "a%00b", "invalid utf-8": "a%FFb", "escape": "a%1Bb", "newline": "a%0Ab"} {
		r := b.do(t, tok, "GET", "/api/v1/memories?project="+q, "")
		require.Equal(t, http.StatusBadRequest, r.status, name)
		_, field, _ := errField(r)
		require.Equal(t, "project", field, name)
	}
	long := strings.Repeat("k", 100_000)
	r := b.do(t, tok, "POST", "/api/v1/memories", `{"text":"x","project":"`+long+`"}`)
	require.Equal(t, http.StatusBadRequest, r.status)
	r = b.do(t, tok, "POST", "/api/v1/memories", `{"text":"We deploy with ArgoCD.","project":" sec-B "}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	r = b.do(t, tok, "GET", "/api/v1/memories?project=sec-B", "")
	require.Len(t, r.body["memories"], 1, "\" sec-B \" and \"sec-B\" are one project, as on MCP")
	r = b.do(t, tok, "GET", "/api/v1/memories?cwd=~/app", "")
	require.Equal(t, http.StatusBadRequest, r.status)
	_, field, msg := errField(r)
	require.Equal(t, "cwd", field)
	require.NotContains(t, msg, "lstat")
}

func TestBodyErrorsNameNoGoTypes(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	r := b.do(t, tok, "POST", "/api/v1/memories", `["a","b"]`)
	require.Equal(t, http.StatusBadRequest, r.status)
	_, field, msg := errField(r)
	require.Equal(t, "body", field)
	require.Equal(t, "body: must be a JSON object", msg)
	r = b.do(t, tok, "POST", "/api/v1/memories/search", `{"query":"x","project":"p","kinds":"fact"}`)
	_, field, msg = errField(r)
	require.Equal(t, "kinds", field)
	require.Equal(t, "kinds: must be an array", msg)
}

func TestStatusNeedsReadAndShowsCountsOnlyToAdmins(t *testing.T) {
	t.Parallel()
	b := setup(t, auth.Limits{})
	require.Equal(t, http.StatusForbidden, b.do(t, b.token(t, "", auth.ScopeWrite), "GET", "/api/v1/status", "").status)
	var gotFull []bool
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: nil, Door: access.NewDoor(b.tokens),
		Status: func(_ context.Context, full bool) (any, error) {
			gotFull = append(gotFull, full)
			return map[string]bool{"full": full}, nil
		}})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	s := bundle{srv: srv, tokens: b.tokens}
	require.Equal(t, http.StatusOK, s.do(t, s.token(t, "p", auth.ScopeRead), "GET", "/api/v1/status", "").status)
	require.Equal(t, http.StatusOK, s.do(t, s.token(t, "p", auth.ScopeAdmin), "GET", "/api/v1/status", "").status)
	require.Equal(t, http.StatusOK, s.do(t, s.token(t, "", auth.ScopeAdmin), "GET", "/api/v1/status", "").status)
	require.Equal(t, []bool{false, false, true}, gotFull, "only an unbound admin sees database-wide status")
}

// staticDoor authenticates every request as one principal, so a test can reach the memory
// service while the database under it is gone.
type staticDoor struct{ p auth.Principal }

func (s staticDoor) Authenticate(context.Context, string) (auth.Principal, error) { return s.p, nil }

func TestDatabaseOutageIsUnavailableWithRetryHint(t *testing.T) {
	t.Parallel()
	// A pool on a socket where no Postgres listens: every query fails to connect.
	dead, err := pgxpool.New(context.Background(), "postgres:///none?host="+t.TempDir()+"&user=x&connect_timeout=1")
	require.NoError(t, err)
	t.Cleanup(dead.Close)

	svc := memory.New(pgstore.New(dead), lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	writer := auth.Principal{Name: "w", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	for name, door := range map[string]*access.Door{
		"token store down":  access.NewDoor(auth.NewTokens(dead)),
		"memory store down": access.NewDoor(staticDoor{writer}),
	} {
		r := gin.New()
		restapi.Register(r, restapi.Options{Service: svc, Door: door})
		srv := httptest.NewServer(r)
		b := bundle{srv: srv}
		for _, call := range [][3]string{
			{"POST", "/api/v1/memories", `{"text":"We use pnpm.","project":"p"}`},
			{"GET", "/api/v1/memories?project=p", ""},
		} {
			rep := b.do(t, auth.TokenPrefix+strings.Repeat("A", 43), call[0], call[1], call[2])
			require.Equal(t, http.StatusServiceUnavailable, rep.status, "%s: %s %s: %v", name, call[0], call[1], rep.body)
			require.NotEmpty(t, rep.header.Get("Retry-After"), name)
			code, _, msg := errField(rep)
			require.Equal(t, "unavailable", code)
			require.NotContains(t, msg, "/", "no socket paths in the message")
		}
		srv.Close()
	}
}
