package restapi_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"
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

// TestUnmergeRoute: POST /memories/{id}/unmerge restores what a consolidation merge absorbed
// and the survivor's own text; a read-only token and another project's token are refused, and
// a memory with nothing merged into it is a 400 naming the field.
func TestUnmergeRoute(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	st := pgstore.New(pool)
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	tokens := auth.NewTokens(pool)
	r := gin.New()
	restapi.Register(r, restapi.Options{Service: svc, Door: access.NewDoor(tokens)})
	srv := httptest.NewServer(r)
	t.Cleanup(srv.Close)
	b := bundle{srv: srv, tokens: tokens, engine: r}
	ctx := context.Background()
	acc := memory.Access{Project: "acme", Actor: "t"}
	a, err := svc.Store(ctx, acc, memory.StoreRequest{Text: "The api runs 28 replicas in prod"})
	require.NoError(t, err)
	c, err := svc.Store(ctx, acc, memory.StoreRequest{Text: "Production has 28 api pods"})
	require.NoError(t, err)
	_, err = svc.Merge(ctx, memory.MergeRequest{Survivor: a.ID, Absorbed: []uuid.UUID{c.ID},
		Texts: map[uuid.UUID]string{a.ID: a.Memory.Text, c.ID: c.Memory.Text}, Text: "In prod the api runs 28 replicas", Actor: "maintenance:consolidate"})
	require.NoError(t, err)

	path := "/api/v1/memories/" + a.ID.String() + "/unmerge"
	require.Equal(t, http.StatusForbidden, b.do(t, b.token(t, "", auth.ScopeRead), "POST", path+"?project=acme", "").status)
	require.Equal(t, http.StatusNotFound, b.do(t, b.token(t, "other", auth.ScopeRead, auth.ScopeWrite), "POST", path, "").status)
	tok := b.token(t, "", auth.ScopeRead, auth.ScopeWrite)
	rep := b.do(t, tok, "POST", path, `{"project":"acme"}`)
	require.Equal(t, http.StatusOK, rep.status, rep.body)
	require.Equal(t, "The api runs 28 replicas in prod", rep.body["text"])
	got := b.do(t, tok, "GET", "/api/v1/memories/"+c.ID.String()+"?project=acme", "")
	require.Nil(t, got.body["archived_at"], "the absorbed memory is back")

	again := b.do(t, tok, "POST", path, `{"project":"acme"}`)
	require.Equal(t, http.StatusBadRequest, again.status, again.body)
	require.Contains(t, again.body["error"].(map[string]any)["message"], "nothing merged into it")
}
