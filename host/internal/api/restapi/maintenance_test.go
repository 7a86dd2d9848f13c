package restapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
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

// later is a clock 100 days ahead: every memory written now is past the 90-day threshold.
type later struct{}

func (later) Now() time.Time { return time.Now().Add(100 * 24 * time.Hour) }

// TestMaintenanceRoutes: admins see each job's last and next run and run a job now, dry or
// not, and see what it did; others are refused; an unknown job, a bad dry_run or older_than
// is refused naming the field.
func TestMaintenanceRoutes(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	m, err := maintenance.New(pool, st, maintenance.Config{Host: "test-host", Clock: later{}, Jobs: []maintenance.Scheduled{{
		Job: maintenance.Stale{Store: st, After: 90 * 24 * time.Hour}, Enabled: true, Every: 24 * time.Hour,
		Budget: maintenance.Budget{MaxRows: 10},
	}}})
	require.NoError(t, err)
	tokens := auth.NewTokens(pool)
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens), Maintenance: m})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	b := bundle{srv: srv, tokens: tokens, engine: r}

	mem, err := svc.Store(context.Background(), memory.Access{Project: "acme", Actor: "t"}, memory.StoreRequest{Text: "The old cron host is kestrel."})
	require.NoError(t, err)
	admin := b.token(t, "", auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin)
	user := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)

	require.Equal(t, http.StatusForbidden, b.do(t, user, "GET", "/api/v1/maintenance", "").status)
	require.Equal(t, http.StatusForbidden, b.do(t, user, "POST", "/api/v1/maintenance/stale/run", "").status)

	rep := b.do(t, admin, "GET", "/api/v1/maintenance", "")
	require.Equal(t, http.StatusOK, rep.status, rep.body)
	jobs := rep.body["jobs"].([]any)
	require.Len(t, jobs, 1)
	job := jobs[0].(map[string]any)
	require.Equal(t, "maintenance.stale", job["kind"])
	require.Nil(t, job["last_run"])

	rep = b.do(t, admin, "POST", "/api/v1/maintenance/stale/run?dry_run=true&project=acme", "")
	require.Equal(t, http.StatusOK, rep.status, rep.body)
	items := rep.body["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, mem.ID.String(), items[0].(map[string]any)["id"])
	got, err := st.Get(context.Background(), mem.ID)
	require.NoError(t, err)
	require.False(t, got.Archived(), "a dry run changes nothing")

	rep = b.do(t, admin, "POST", "/api/v1/maintenance/stale/run", "")
	require.Equal(t, http.StatusOK, rep.status, rep.body)
	run := rep.body["run"].(map[string]any)
	require.Equal(t, "manual", run["trigger"])
	require.Equal(t, float64(1), run["changed"])
	got, err = st.Get(context.Background(), mem.ID)
	require.NoError(t, err)
	require.Equal(t, "stale", got.ArchivedReason)

	rep = b.do(t, admin, "GET", "/api/v1/maintenance", "")
	last := rep.body["jobs"].([]any)[0].(map[string]any)["last_run"].(map[string]any)
	require.Equal(t, "test-host", last["host"])
	require.Equal(t, "ok", last["outcome"])

	rep = b.do(t, admin, "POST", "/api/v1/maintenance/nope/run", "")
	require.Equal(t, http.StatusBadRequest, rep.status)
	_, field, msg := errField(rep)
	require.Equal(t, "job", field)
	require.Contains(t, msg, "valid: stale")
	rep = b.do(t, admin, "POST", "/api/v1/maintenance/stale/run?dry_run=maybe", "")
	require.Equal(t, http.StatusBadRequest, rep.status)
	_, field, _ = errField(rep)
	require.Equal(t, "dry_run", field)
	rep = b.do(t, admin, "POST", "/api/v1/maintenance/stale/run?older_than=0s", "")
	require.Equal(t, http.StatusBadRequest, rep.status)
	_, field, _ = errField(rep)
	require.Equal(t, "older_than", field)
}

// slowJob takes longer than the server's write timeout.
type slowJob struct{ took time.Duration }

func (slowJob) Name() string { return "slow" }

func (j slowJob) Run(ctx context.Context, _ maintenance.Run) (maintenance.Result, error) {
	select {
	case <-time.After(j.took):
		return maintenance.Result{Examined: 1}, nil
	case <-ctx.Done():
		return maintenance.Result{}, ctx.Err()
	}
}

// TestALongRunByHandOutlastsTheWriteTimeout: a run by hand that takes longer than the server's
// write timeout still gets its answer (a 100K-memory consolidation takes minutes; the answer
// was cut at 60 s).
func TestALongRunByHandOutlastsTheWriteTimeout(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	m, err := maintenance.New(pool, st, maintenance.Config{Host: "test-host", Jobs: []maintenance.Scheduled{{Job: slowJob{took: 1500 * time.Millisecond}}}})
	require.NoError(t, err)
	tokens := auth.NewTokens(pool)
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens), Maintenance: m})
	srv := httptest.NewUnstartedServer(r)
	srv.Config.WriteTimeout = 500 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	b := bundle{srv: srv, tokens: tokens, engine: r}
	admin := b.token(t, "", auth.ScopeAdmin)

	rep := b.do(t, admin, "POST", "/api/v1/maintenance/slow/run", "")
	require.Equal(t, http.StatusOK, rep.status, rep.body)
	require.Equal(t, "ok", rep.body["run"].(map[string]any)["outcome"])
}
