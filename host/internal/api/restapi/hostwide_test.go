package restapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/access"
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/api/restapi"
	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// countingWorkers is the task runner of the workers' routes, counting what reached it.
type countingWorkers struct{ calls atomic.Int64 }

func (w *countingWorkers) Status(context.Context) (wire.WorkersStatus, error) {
	w.calls.Add(1)
	return wire.WorkersStatus{Workers: []wire.WorkerStatus{}, Tasks: []wire.TaskStatus{}}, nil
}

func (w *countingWorkers) Try(_ context.Context, task, _ string) (wire.TryResult, error) {
	w.calls.Add(1)
	return wire.TryResult{Task: task}, nil
}

func (w *countingWorkers) SetChain(string, []string) error {
	w.calls.Add(1)
	return nil
}

// hostWide is a host with the maintenance, workers and reload routes, two projects holding a
// fact each, an operator's token and an admin token bound to project acme.
type hostWide struct {
	bundle
	st               *pgstore.Store
	workers          *countingWorkers
	reloads          *atomic.Int64
	operator, boundA string
	factA, factC     uuid.UUID
}

func setupHostWide(t *testing.T) hostWide {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	svc := memory.New(st, lexical.New(), memory.Fixed(emb), nil, memory.DefaultConfig())
	m, err := maintenance.New(pool, st, maintenance.Config{Host: "test-host", Clock: later{}, Jobs: []maintenance.Scheduled{
		{Job: maintenance.Stale{Store: st, After: 90 * 24 * time.Hour}, Enabled: true, Every: 24 * time.Hour},
		{Job: maintenance.Purge{Store: st, Grace: 30 * 24 * time.Hour}, Enabled: true, Every: 24 * time.Hour},
		{Job: maintenance.Dormancy{Store: st, After: 30 * 24 * time.Hour}},
		{Job: &maintenance.Reembed{Store: st, Embedders: memory.Fixed(emb)}},
	}})
	require.NoError(t, err)
	tokens := auth.NewTokens(pool)
	h := hostWide{st: st, workers: &countingWorkers{}, reloads: &atomic.Int64{}}
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens), Maintenance: m, Workers: h.workers,
		Reload: func(context.Context) (any, error) { h.reloads.Add(1); return gin.H{"reloaded": true}, nil }})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	h.bundle = bundle{srv: srv, tokens: tokens, engine: r}
	named := func(name, project string) string {
		tok, _, err := tokens.Create(context.Background(), auth.CreateToken{Name: name, Scopes: []auth.Scope{auth.ScopeAdmin}, ProjectKey: project})
		require.NoError(t, err)
		return tok
	}
	h.operator, h.boundA = named("operator", ""), named("ops-acme", "acme")
	for key, id := range map[string]*uuid.UUID{"acme": &h.factA, "corp": &h.factC} {
		res, err := svc.Store(context.Background(), memory.Access{Project: key, Actor: "t"}, memory.StoreRequest{Text: "The build cache of " + key + " lives on the kestrel host."})
		require.NoError(t, err)
		*id = res.ID
	}
	return h
}

// itemIDs are the memory ids a maintenance report lists.
func itemIDs(r reply) []string {
	var ids []string
	items, _ := r.body["items"].([]any)
	for _, it := range items {
		ids = append(ids, it.(map[string]any)["id"].(string))
	}
	return ids
}

// TestABoundAdminTokenRunsMaintenanceOnlyInItsProject replays the attack of issue 25: an admin
// token bound to project acme ran stale then purge on project corp (hard-deleting its fact),
// listed every project's memory ids in a dry run, saw other projects' runs in the status,
// changed a worker chain and reloaded the host. Now its runs are confined to its project, the
// host-wide routes and jobs need an unbound admin token, the operator's token still does it
// all, and the history of a run by hand names the token that asked for it.
func TestABoundAdminTokenRunsMaintenanceOnlyInItsProject(t *testing.T) {
	t.Parallel()
	h := setupHostWide(t)

	for _, path := range []string{"/api/v1/maintenance/stale/run?older_than=1s&project=corp", "/api/v1/maintenance/purge/run?older_than=1s&project=corp"} {
		r := h.do(t, h.boundA, "POST", path, "")
		require.Equal(t, http.StatusForbidden, r.status, "%s: %v", path, r.body)
		_, _, msg := errField(r)
		require.Contains(t, msg, `bound to project "acme"`)
	}
	got, err := h.st.Get(context.Background(), h.factC)
	require.NoError(t, err, "corp's fact is still there")
	require.False(t, got.Archived())

	r := h.do(t, h.boundA, "POST", "/api/v1/maintenance/stale/run?dry_run=true", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, []string{h.factA.String()}, itemIDs(r), "a dry run without project lists its own project's ids only")
	require.Equal(t, "acme", r.body["run"].(map[string]any)["project"])

	r = h.do(t, h.boundA, "POST", "/api/v1/maintenance/reembed/run", "")
	require.Equal(t, http.StatusForbidden, r.status, r.body)
	_, _, msg := errField(r)
	require.Contains(t, msg, "host-wide")
	require.Contains(t, msg, "an admin token not bound to a project")

	// The operator's run over corp: the bound token's status does not show it.
	r = h.do(t, h.operator, "POST", "/api/v1/maintenance/stale/run?dry_run=true&project=corp", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, []string{h.factC.String()}, itemIDs(r))
	r = h.do(t, h.boundA, "GET", "/api/v1/maintenance", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	for _, j := range r.body["jobs"].([]any) {
		job := j.(map[string]any)
		if last, ok := job["last_run"].(map[string]any); ok {
			require.Equal(t, "acme", last["project"], "%s: only its own project's runs", job["job"])
		}
	}
	require.NotContains(t, toJSON(t, r.body), "corp")
	r = h.do(t, h.operator, "GET", "/api/v1/maintenance", "")
	require.Contains(t, toJSON(t, r.body), `"project":"corp"`, "the operator sees every run")

	for _, route := range []struct{ method, path, body string }{
		{"GET", "/api/v1/workers", ""},
		{"POST", "/api/v1/workers/try", `{"task":"merge"}`},
		{"PUT", "/api/v1/workers/chains/merge", `{"workers":["local"]}`},
		{"POST", "/api/v1/admin/reload", ""},
		{"POST", "/api/v1/projects/corp/archive", ""},
	} {
		r := h.do(t, h.boundA, route.method, route.path, route.body)
		require.Equal(t, http.StatusForbidden, r.status, "%s %s: %v", route.method, route.path, r.body)
		_, _, msg := errField(r)
		require.Contains(t, msg, `bound to project "acme"`, route.path)
		if !strings.Contains(route.path, "/projects/") {
			require.Contains(t, msg, "host-wide: it needs an admin token not bound to a project", route.path)
		}
	}
	require.Zero(t, h.workers.calls.Load(), "no workers' route reached the task runner")
	require.Zero(t, h.reloads.Load(), "no reload")

	// Its own project is its to maintain, and the history names the token.
	r = h.do(t, h.boundA, "POST", "/api/v1/maintenance/stale/run?older_than=1s", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, []string{h.factA.String()}, itemIDs(r))
	require.Equal(t, "maintenance:stale by token:ops-acme", lastActor(t, h, h.boundA, h.factA, "acme"))
	require.Equal(t, http.StatusOK, h.do(t, h.boundA, "POST", "/api/v1/projects/acme/archive", "").status, "its own project")

	// The operator still does it all.
	for _, route := range []struct{ method, path, body string }{
		{"GET", "/api/v1/workers", ""},
		{"POST", "/api/v1/workers/try", `{"task":"merge"}`},
		{"PUT", "/api/v1/workers/chains/merge", `{"workers":["local"]}`},
		{"POST", "/api/v1/admin/reload", ""},
		{"POST", "/api/v1/maintenance/reembed/run?dry_run=true", ""},
		{"POST", "/api/v1/projects/corp/archive", ""},
		{"POST", "/api/v1/projects/corp/unarchive", ""},
	} {
		r := h.do(t, h.operator, route.method, route.path, route.body)
		require.Equal(t, http.StatusOK, r.status, "%s %s: %v", route.method, route.path, r.body)
	}
	require.EqualValues(t, 3, h.workers.calls.Load())
	require.EqualValues(t, 1, h.reloads.Load())
	r = h.do(t, h.operator, "POST", "/api/v1/maintenance/stale/run?older_than=1s&project=corp", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, "maintenance:stale by token:operator", lastActor(t, h, h.operator, h.factC, "corp"))
	r = h.do(t, h.operator, "POST", "/api/v1/maintenance/purge/run?older_than=1s&project=corp", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	require.Equal(t, []string{h.factC.String()}, itemIDs(r))
	require.Equal(t, "maintenance:purge by token:operator", lastActor(t, h, h.operator, h.factC, "corp"))
}

// lastActor is who made the last change to memory id of project, as its history says.
func lastActor(t *testing.T, h hostWide, token string, id uuid.UUID, project string) string {
	t.Helper()
	r := h.do(t, token, "GET", "/api/v1/memories/"+id.String()+"/history?project="+project, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	entries := r.body["history"].([]any)
	return entries[len(entries)-1].(map[string]any)["actor"].(string)
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	raw, err := json.Marshal(v)
	require.NoError(t, err)
	return string(raw)
}
