package console_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/console"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/host/internal/wire"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// TestMain fails the package when a test leaves a goroutine running (the live feed's hub).
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	projectA = "github.com/acme/app"
	projectB = "github.com/acme/other"
)

// bundle is a console over real services on a fresh schema, served by httptest on loopback.
type bundle struct {
	srv      *httptest.Server
	tokens   *auth.Tokens
	mem      *memory.Service
	brain    *brain.Service
	store    *pgstore.Store
	pool     *pgxpool.Pool
	follower *lexical.Follower
}

func setup(t *testing.T) *bundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	ix := lexical.New()
	mem := memory.New(st, ix, memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	tokens := auth.NewTokens(pool)
	b := &bundle{tokens: tokens, mem: mem, brain: brain.New(st, mem, brain.DefaultConfig()), store: st, pool: pool,
		follower: lexical.NewFollower(st, ix, 10*time.Millisecond)}
	c := console.New(console.Options{Service: mem, Brain: b.brain, Door: access.NewDoor(tokens), Signin: tokens, Projects: st,
		Figures: st, Feed: b.follower, Workers: fakeWorkers{}, Status: hostStatus})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{}, 2)
	go func() { _ = c.Run(ctx); done <- struct{}{} }()
	go func() { b.follower.Run(ctx, nil); done <- struct{}{} }()
	b.srv = httptest.NewServer(c)
	t.Cleanup(func() { b.srv.Close(); cancel(); <-done; <-done })
	return b
}

// token mints a token.
func (b *bundle) token(t *testing.T, project string, scopes ...auth.Scope) string {
	t.Helper()
	tok, _, err := b.tokens.Create(context.Background(), auth.CreateToken{Name: "tester", Scopes: scopes, ProjectKey: project})
	require.NoError(t, err)
	return tok
}

// client is a browser stand-in: it keeps cookies and sends what a browser sends with a form
// from the console's own page (Origin and Sec-Fetch-Site).
type client struct {
	t    *testing.T
	b    *bundle
	http *http.Client
	csrf string
}

// signIn gets a sign-in code with token (as `memhost console` does) and spends it.
func (b *bundle) signIn(t *testing.T, token string) *client {
	t.Helper()
	req, err := http.NewRequest("POST", b.srv.URL+"/console/signin-code", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.Equal(t, 200, resp.StatusCode, "%s", body)
	code := regexp.MustCompile(`mhc_[A-Za-z0-9_-]{43}`).FindString(string(body))
	require.NotEmpty(t, code)
	jar, _ := cookiejar.New(nil)
	c := &client{t: t, b: b, http: &http.Client{Jar: jar}}
	status, page := c.post("/console/signin", url.Values{"code": {code}})
	require.Equal(t, 200, status, page)
	return c
}

// get fetches a console page.
func (c *client) get(path string) (int, string) {
	c.t.Helper()
	resp, err := c.http.Get(c.b.srv.URL + path)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	if m := regexp.MustCompile(`name="csrf" value="([^"]+)"`).FindStringSubmatch(string(body)); m != nil {
		c.csrf = m[1]
	}
	return resp.StatusCode, string(body)
}

// post sends a form as the console's own page does (its form token added when the client has
// seen one), following the redirect.
func (c *client) post(path string, form url.Values) (int, string) {
	c.t.Helper()
	return c.postWith(path, form, map[string]string{"Origin": c.b.srv.URL, "Sec-Fetch-Site": "same-origin"})
}

func (c *client) postWith(path string, form url.Values, headers map[string]string) (int, string) {
	c.t.Helper()
	if form.Get("csrf") == "" && c.csrf != "" {
		form.Set("csrf", c.csrf)
	}
	req, err := http.NewRequest("POST", c.b.srv.URL+path, strings.NewReader(form.Encode()))
	require.NoError(c.t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.http.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(c.t, err)
	return resp.StatusCode, string(body)
}

// store writes a fact as an agent would.
func (b *bundle) fact(t *testing.T, project, text string) memory.StoreResult {
	t.Helper()
	res, err := b.mem.Store(context.Background(), memory.Access{Project: project, Actor: "agent"}, memory.StoreRequest{Text: text, Source: "mcp", Agent: "claude-code"})
	require.NoError(t, err)
	return res
}

func q(project string) string { return "?project=" + url.QueryEscape(project) }

// fakeWorkers is a host with one LLM worker.
type fakeWorkers struct{}

func (fakeWorkers) Status(context.Context) (wire.WorkersStatus, error) {
	return wire.WorkersStatus{Workers: []wire.WorkerStatus{{Name: "local-llm", Plugin: "memhost-worker-openaicompat", State: "ready"}}}, nil
}

// hostStatus is the host's status as the daemon gives it: internals for a host-wide caller only.
func hostStatus(_ context.Context, full bool) (console.HostStatus, error) {
	s := console.HostStatus{Version: "test", Database: "ok", Embedder: console.EmbedderStatus{Name: "bm25-v1-384", State: "ready", Tier: "bm25"}}
	if full {
		s.Plugins = []plugins.Status{{Kind: "embedder", Name: "memhost-embedder-bm25", State: plugins.StateReady}}
	}
	return s, nil
}

// poolQuery runs one query on the bundle's database.
func (b *bundle) poolQuery(t *testing.T, sql string, args ...any) pgx.Row {
	t.Helper()
	return b.pool.QueryRow(context.Background(), sql, args...)
}
