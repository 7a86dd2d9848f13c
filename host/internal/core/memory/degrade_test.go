package memory_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// outage wraps a real embedder plugin and fails its Embed calls on demand, the way a plugin
// that crashed and is being restarted does (embedder.ErrUnavailable), or the way one that
// refuses a text for good does (embedder.ErrInvalidInput).
type outage struct {
	embedder.Embedder
	fail atomic.Pointer[error]
}

func (o *outage) Embed(ctx context.Context, p embedder.Purpose, texts []string) ([][]float32, error) {
	if err := o.fail.Load(); err != nil {
		return nil, *err
	}
	return o.Embedder.Embed(ctx, p, texts)
}

func (o *outage) set(err error) {
	if err == nil {
		o.fail.Store(nil)
		return
	}
	o.fail.Store(&err)
}

func TestSearchDegradesToLexicalWhenTheEmbedderIsDown(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	emb := &outage{Embedder: embeddertest.Launch(t, testplugins.BM25(t))}
	ix := lexical.New()
	svc := memory.New(pgstore.New(pool), ix, memory.Fixed(emb), nil, memory.DefaultConfig())
	ctx := context.Background()
	stored, err := svc.Store(ctx, alice, memory.StoreRequest{Text: "Releases are cut from the release/* branches by the deploy bot."})
	require.NoError(t, err)

	emb.set(fmt.Errorf("embedder Embed: %w: plugin restarting", embedder.ErrUnavailable))
	res, err := svc.Search(ctx, alice, memory.SearchRequest{Query: "release branches"})
	require.NoError(t, err, "memory never blocks an agent: search answers from the lexical path")
	require.Equal(t, memory.DegradedLexicalOnly, res.Degraded)
	require.NotEmpty(t, res.Hits)
	require.Equal(t, stored.ID, res.Hits[0].ID)
	require.Nil(t, res.Hits[0].Cosine)

	_, err = svc.Store(ctx, alice, memory.StoreRequest{Text: "The deploy bot needs the DEPLOY_ENV variable."})
	require.ErrorIs(t, err, rules.ErrUnavailable, "writes are refused with a retry hint, never half-stored")
	page, err := svc.List(ctx, alice, memory.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Memories, 1, "nothing was stored")

	emb.set(fmt.Errorf("embedder Embed: %w: text too long", embedder.ErrInvalidInput))
	_, err = svc.Store(ctx, alice, memory.StoreRequest{Text: "Some text the plugin refuses."})
	require.ErrorIs(t, err, rules.ErrRejected, "a permanent refusal is not retryable")
	require.NotErrorIs(t, err, rules.ErrUnavailable)

	emb.set(nil)
	res, err = svc.Search(ctx, alice, memory.SearchRequest{Query: "release branches"})
	require.NoError(t, err)
	require.Empty(t, res.Degraded)
	require.NotNil(t, res.Hits[0].Cosine, "both paths serve again")
}
