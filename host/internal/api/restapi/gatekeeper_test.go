package restapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

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

// vetoTaskState vetoes texts that start with "Now " (the real one asks a worker chain:
// maintenance.Gatekeeper).
type vetoTaskState struct{}

func (vetoTaskState) Veto(_ context.Context, _, text string) string {
	switch {
	case strings.HasPrefix(text, "Now "):
		return "not stored: the gatekeeper judged it not durable: current task state"
	case strings.HasPrefix(text, "Currently "):
		// A model's words from before the write rules held them.
		return "not stored: the gatekeeper judged it not durable:\x1b[2K\nforged line \u202e"
	}
	return ""
}

// TestAGatekeeperVetoIsAnAnswerNotAnError: a write the gatekeeper vetoes answers 200 with
// "stored": false and "vetoed" saying why, and neither an id nor a memory (it answered an
// all-zero id and an empty memory dated 0001-01-01); the reason reaches the client without raw
// control characters. Other writes are stored as before (201, "stored": true).
func TestAGatekeeperVetoIsAnAnswerNotAnError(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	svc := memory.New(pgstore.New(pool), lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil,
		memory.DefaultConfig(), memory.WithGatekeeper(vetoTaskState{}))
	tokens := auth.NewTokens(pool)
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens)})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	b := bundle{srv: srv, tokens: tokens, engine: r}
	agent := b.token(t, "acme", auth.ScopeRead, auth.ScopeWrite)

	res := b.do(t, agent, "POST", "/api/v1/memories", `{"text":"Now editing line 412 of app.go."}`)
	require.Equal(t, http.StatusOK, res.status, res.body)
	require.Equal(t, "not stored: the gatekeeper judged it not durable: current task state", res.body["vetoed"])
	require.Equal(t, false, res.body["stored"])
	require.NotContains(t, res.body, "id", "no id of a row that does not exist")
	require.NotContains(t, res.body, "memory")
	res = b.do(t, agent, "POST", "/api/v1/memories", `{"text":"Currently debugging the login flow."}`)
	require.Equal(t, http.StatusOK, res.status, res.body)
	reason := res.body["vetoed"].(string)
	require.Contains(t, reason, "forged line")
	for _, raw := range []string{"\x1b", "\n", "\u202e"} {
		require.NotContains(t, reason, raw)
	}
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT count(*) FROM memories`).Scan(&n))
	require.Zero(t, n)

	res = b.do(t, agent, "POST", "/api/v1/memories", `{"text":"Backups run at 03:00 daily."}`)
	require.Equal(t, http.StatusCreated, res.status, res.body)
	require.Nil(t, res.body["vetoed"])
	require.Equal(t, true, res.body["stored"])
	require.NotEmpty(t, res.body["id"])
}
