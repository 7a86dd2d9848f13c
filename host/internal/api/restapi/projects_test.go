package restapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/restapi"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/brain/projectmap"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/redact"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// setupProjects is setup with the project routes mounted, on an engine routing on the raw
// path as the host's does.
func setupProjects(t *testing.T) (bundle, func(query string) int) {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	redactor, err := redact.New()
	require.NoError(t, err)
	// The real redactor, as the server wires it: map and brain writes must be redacted.
	redactFn := func(s string) (string, int) {
		out, findings := redactor.Redact(s)
		return out, len(findings)
	}
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), redactFn, memory.DefaultConfig())
	tokens := auth.NewTokens(pool)
	r := gin.New()
	r.UseRawPath = true
	restapi.Register(r, restapi.Options{Service: svc, Brain: brain.New(st, svc, brain.DefaultConfig()), Projects: st, Door: access.NewDoor(tokens)})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	count := func(query string) int {
		var n int
		require.NoError(t, pool.QueryRow(context.Background(), query).Scan(&n))
		return n
	}
	return bundle{srv: srv, tokens: tokens, engine: r}, count
}

const projA, projB = "github.com/acme/app", "github.com/acme/other"

func at(key, route string) string { return "/api/v1/projects/" + url.PathEscape(key) + "/" + route }

func TestProjectRoutesWorkflow(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	admin := b.token(t, "", auth.ScopeAdmin)

	r := b.do(t, agent, "GET", at(projA, "goal"), "")
	require.Equal(t, http.StatusNotFound, r.status)
	_, _, msg := errField(r)
	require.Contains(t, msg, `project "github.com/acme/app" has no goal yet`)

	r = b.do(t, agent, "PUT", at(projA, "goal"), `{"text":"Ship it."}`)
	require.Equal(t, http.StatusForbidden, r.status, "agents propose; setting needs admin")
	r = b.do(t, admin, "PUT", at(projA, "goal"), `{"text":"Ship it."}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "Ship it.", r.body["text"])

	r = b.do(t, agent, "POST", at(projA, "proposals"), `{"layer":"goal","text":"Ship it well.","reason":"quality"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	id := r.body["proposal"].(map[string]any)["id"].(string)
	r = b.do(t, agent, "GET", at(projA, "proposals"), "")
	require.Len(t, r.body["proposals"], 1)
	r = b.do(t, agent, "GET", at(projA, "proposals/"+id), "")
	require.Contains(t, r.body["diff"], "+Ship it well.")
	require.Equal(t, http.StatusForbidden, b.do(t, agent, "POST", at(projA, "proposals/"+id+"/approve"), "").status)
	r = b.do(t, admin, "POST", at(projA, "proposals/"+id+"/approve"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "approved", r.body["proposal"].(map[string]any)["status"])
	r = b.do(t, admin, "POST", at(projA, "proposals/"+id+"/reject"), "")
	require.Equal(t, http.StatusConflict, r.status)

	r = b.do(t, agent, "POST", at(projA, "journal"), `{"text":"Session wired the REST routes.","agent":"codex","session":"s1"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)
	r = b.do(t, agent, "GET", at(projA, "journal")+"?limit=5", "")
	require.Len(t, r.body["entries"], 1)
	r = b.do(t, agent, "POST", at(projA, "search"), `{"query":"REST routes session","layers":["journal","goal"]}`)
	require.Equal(t, http.StatusOK, r.status, r.body)
	hits := r.body["hits"].([]any)
	require.Equal(t, "journal", hits[0].(map[string]any)["layer"])

	m, err := json.Marshal(projectmap.Map{Format: 1, GeneratedAt: time.Now().UTC(), Description: "Demo tree.", Files: 1})
	require.NoError(t, err)
	r = b.do(t, agent, "PUT", at(projA, "map"), string(m))
	require.Equal(t, http.StatusOK, r.status, r.body)
	r = b.do(t, agent, "GET", at(projA, "map"), "")
	require.Contains(t, r.body["summary"], "Demo tree.")
	require.NotNil(t, r.body["map"])

	r = b.do(t, agent, "GET", at(projA, "banner")+"?cli=gemini&budget=700", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Contains(t, r.body["text"], "Ship it well.")
	require.Contains(t, r.body["text"], "mcp_memhost_memory_store")
	req, err := http.NewRequest("GET", b.srv.URL+at(projA, "banner")+"?format=text", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+agent)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	text, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, "text/plain; charset=utf-8", resp.Header.Get("Content-Type"))
	require.True(t, strings.HasPrefix(string(text), "#"), string(text))

	r = b.do(t, agent, "GET", at(projA, "health"), "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, float64(1), r.body["journal"].(map[string]any)["total"])
}

func TestProjectRoutesRefuseBadInputAndOtherProjects(t *testing.T) {
	t.Parallel()
	b, count := setupProjects(t)
	agent := b.token(t, projA, auth.ScopeRead, auth.ScopeWrite)
	reader := b.token(t, projA, auth.ScopeRead)
	admin := b.token(t, "", auth.ScopeAdmin)
	adminB := b.token(t, projB, auth.ScopeAdmin)

	r := b.do(t, agent, "POST", at(projA, "proposals"), `{"layer":"goal","text":"A's proposal"}`)
	require.Equal(t, http.StatusCreated, r.status)
	id := r.body["proposal"].(map[string]any)["id"].(string)
	before := count(`SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM proposals) + (SELECT count(*) FROM project_maps)`)

	big := strings.Repeat("a", 16385)
	for name, tc := range map[string]struct {
		token, method, path, body string
		status                    int
		field, want               string
	}{
		"empty text":        {admin, "PUT", at(projA, "plan"), `{"text":""}`, 400, "text", "must not be empty"},
		"oversized text":    {agent, "POST", at(projA, "proposals"), `{"layer":"plan","text":"` + big + `"}`, 400, "text", "the limit is 16384 bytes"},
		"bad layer":         {agent, "POST", at(projA, "proposals"), `{"layer":"fact","text":"x"}`, 400, "layer", `"fact" is not one of goal, plan`},
		"unknown field":     {agent, "POST", at(projA, "journal"), `{"text":"x","mood":"great"}`, 400, "mood", "is not a known field"},
		"empty journal":     {agent, "POST", at(projA, "journal"), `{"text":"\u200b"}`, 400, "text", "must not be empty"},
		"bad limit":         {agent, "GET", at(projA, "journal") + "?limit=x", "", 400, "limit", "must be an integer"},
		"bad status":        {agent, "GET", at(projA, "proposals") + "?status=open", "", 400, "status", `"open" is not one of`},
		"bad budget":        {agent, "GET", at(projA, "banner") + "?budget=5", "", 400, "budget", "5 is out of range"},
		"bad format":        {agent, "GET", at(projA, "banner") + "?format=xml", "", 400, "format", "must be json or text"},
		"bad map":           {agent, "PUT", at(projA, "map"), `{"format":1,"generated_at":"2026-01-01T00:00:00Z","files":-1}`, 400, "map.files", ""},
		"map not json":      {agent, "PUT", at(projA, "map"), `[1,2]`, 400, "map", "must be a JSON object"},
		"bad id":            {agent, "GET", at(projA, "proposals/nope"), "", 400, "id", "is not a proposal id"},
		"long key":          {admin, "GET", at(strings.Repeat("k", 600), "goal"), "", 400, "project", "bytes"},
		"control key":       {admin, "GET", at("a\x1bb", "goal"), "", 400, "project", ""},
		"unknown project":   {admin, "GET", at("github.com/acme/nope", "plan"), "", 404, "", "has no plan yet"},
		"no map":            {admin, "GET", at("github.com/acme/nope", "map"), "", 404, "", "has no map yet"},
		"other's proposal":  {adminB, "POST", at(projB, "proposals/"+id+"/approve"), "", 404, "", "has no proposal"},
		"other's proposal2": {adminB, "GET", at(projB, "proposals/"+id), "", 404, "", "has no proposal"},
		"bound elsewhere":   {agent, "GET", at(projB, "journal"), "", 403, "", "bound to project"},
		"reader proposes":   {reader, "POST", at(projA, "proposals"), `{"layer":"goal","text":"x"}`, 403, "", "memory:write"},
		"reader uploads":    {reader, "PUT", at(projA, "map"), `{}`, 403, "", "memory:write"},
		"agent approves":    {agent, "POST", at(projA, "proposals/"+id+"/approve"), "", 403, "", "admin"},
		"no token":          {"", "GET", at(projA, "goal"), "", 401, "", "bearer token"},
	} {
		r := b.do(t, tc.token, tc.method, tc.path, tc.body)
		require.Equal(t, tc.status, r.status, "%s: %v", name, r.body)
		_, field, msg := errField(r)
		require.Equal(t, tc.field, field, name)
		require.Contains(t, msg, tc.want, name)
		require.NotContains(t, msg, "pgx", name)
	}
	after := count(`SELECT (SELECT count(*) FROM memories) + (SELECT count(*) FROM proposals) + (SELECT count(*) FROM project_maps)`)
	require.Equal(t, before, after, "nothing changed")

	// B's inbox, journal, search and banner hold nothing of A.
	r = b.do(t, adminB, "GET", at(projB, "proposals")+"?status=all", "")
	require.Empty(t, r.body["proposals"])
	r = b.do(t, adminB, "GET", at(projB, "banner"), "")
	require.NotContains(t, r.body["text"], "A's proposal")
	r = b.do(t, adminB, "POST", at(projB, "search"), `{"query":"proposal"}`)
	require.Empty(t, r.body["hits"])
}

func TestOpenAPIDocumentsEveryProjectRoute(t *testing.T) {
	t.Parallel()
	b, _ := setupProjects(t)
	r := b.do(t, "", "GET", "/api/v1/openapi.json", "")
	paths := r.body["paths"].(map[string]any)
	n := 0
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
		if strings.HasPrefix(p, "/api/v1/projects/") {
			n++
		}
	}
	require.Equal(t, 28, n, "every project route")
}
