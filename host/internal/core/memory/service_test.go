package memory_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/daemon/lifecycle"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

type bundle struct {
	svc   *memory.Service
	store *pgstore.Store
	dsn   string
}

// setup wires the service to a fresh schema and a real BM25 plugin process.
func setup(t *testing.T) bundle {
	t.Helper()
	pool, dsn := testdb.Migrated(t)
	st := pgstore.New(pool)
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	redact := func(s string) (string, int) {
		// The real redactor is wired in the server; here a marker proves the path runs it.
		return strings.ReplaceAll(s, "SECRETVALUE", "[REDACTED:test]"), strings.Count(s, "SECRETVALUE")
	}
	svc := memory.New(st, lexical.New(), memory.Fixed(emb), redact, memory.DefaultConfig())
	runHitRecorder(t, svc)
	return bundle{svc: svc, store: st, dsn: dsn}
}

var alice = memory.Access{Project: "github.com/acme/app", Actor: "alice"}

func TestStoreFoldsParaphraseAndExactDuplicate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "We use pnpm, not npm, in this repo.", Kind: "convention", Agent: "claude-code"})
	require.NoError(t, err)
	require.False(t, first.Folded)

	para, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "This project uses pnpm instead of npm.", Agent: "codex"})
	require.NoError(t, err)
	require.True(t, para.Folded, "similarity %.3f", para.Similarity)
	require.Equal(t, first.ID, para.ID)
	require.Equal(t, 1, para.Memory.DedupedCount)
	require.Len(t, para.Memory.MergedFrom, 1)

	require.Equal(t, "We use pnpm, not npm, in this repo.", para.Memory.Text, "the first text stays: the later one is no better")

	exact, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "we use pnpm,   not npm, in this repo.", Agent: "gemini-cli"})
	require.NoError(t, err)
	require.True(t, exact.Exact)
	require.Equal(t, first.ID, exact.ID)

	distinct, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "The pnpm lockfile is committed to git."})
	require.NoError(t, err)
	require.False(t, distinct.Folded, "a different fact that shares words stays separate (similarity %.3f)", distinct.Similarity)
}

func TestStoreRejectsBadInputAndStoresNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	big := strings.Repeat("x", memory.DefaultConfig().MaxTextBytes+1)
	tooHigh := 1.5
	cases := []struct {
		name  string
		a     memory.Access
		req   memory.StoreRequest
		field string
		want  string
	}{
		{"empty", alice, memory.StoreRequest{Text: "   "}, "text", "must not be empty"},
		{"oversized", alice, memory.StoreRequest{Text: big}, "text", "the limit is 16384 bytes"},
		{"invalid utf8", alice, memory.StoreRequest{Text: "bad \xff byte"}, "text", "valid UTF-8"},
		{"nul", alice, memory.StoreRequest{Text: "a\x00b"}, "text", "NUL"},
		{"kind", alice, memory.StoreRequest{Text: "x y", Kind: "rumour"}, "kind", "is not one of fact"},
		{"scope", alice, memory.StoreRequest{Text: "x y", Scope: "session"}, "scope", "project, global"},
		{"importance", alice, memory.StoreRequest{Text: "x y", Importance: &tooHigh}, "importance", "out of range 0..1"},
		{"no project", memory.Access{}, memory.StoreRequest{Text: "x y"}, "project", "is required"},
	}
	for _, tc := range cases {
		_, err := b.svc.Store(ctx, tc.a, tc.req)
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, tc.name)
		require.Equal(t, tc.field, fe.Field, tc.name)
		require.Contains(t, fe.Error(), tc.want, tc.name)
	}
	_, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "house style: tabs", Scope: "global"})
	require.ErrorIs(t, err, rules.ErrForbidden)
	counts, err := b.store.Counts(ctx)
	require.NoError(t, err)
	require.Zero(t, counts.Live+counts.Archived, "bad input changes nothing")

	admin := alice
	admin.Admin = true
	g, err := b.svc.Store(ctx, admin, memory.StoreRequest{Text: "house style: tabs", Scope: "global"})
	require.NoError(t, err)
	require.Equal(t, store.ScopeGlobal, g.Memory.Scope)
}

func TestStoreRedactsSecrets(t *testing.T) {
	t.Parallel()
	b := setup(t)
	res, err := b.svc.Store(context.Background(), alice, memory.StoreRequest{Text: "staging token is SECRETVALUE"})
	require.NoError(t, err)
	require.Equal(t, 1, res.Redactions)
	require.Equal(t, "staging token is [REDACTED:test]", res.Memory.Text)
	h, err := b.svc.History(context.Background(), alice, res.ID)
	require.NoError(t, err)
	require.NotContains(t, *h[0].AfterText, "SECRETVALUE", "the secret never reaches the ledger either")
}

func seed(t *testing.T, b bundle, a memory.Access, texts ...string) []uuid.UUID {
	t.Helper()
	var ids []uuid.UUID
	for _, text := range texts {
		res, err := b.svc.Store(context.Background(), a, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		ids = append(ids, res.ID)
	}
	return ids
}

func TestSearchRanksAndIsolatesProjects(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := seed(t, b, alice,
		"Integration tests need TZ=UTC or the date assertions fail.",
		"The API server listens on port 8080.",
		"Use pnpm for installing dependencies.",
		"parseHTTPResponse lives in internal/httpx/response.go.",
	)
	bob := memory.Access{Project: "github.com/acme/other", Actor: "bob"}
	seed(t, b, bob, "The other project's API listens on port 9090.")

	hits, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "which port does the API server listen on?"}))
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	require.Equal(t, ids[1], hits[0].ID)
	for _, h := range hits {
		require.Equal(t, alice.Project, h.Project, "project B's memory never reaches project A")
	}

	hits, err = hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "parseHTTPResponse", TopK: 1}))
	require.NoError(t, err)
	require.Len(t, hits, 1)
	require.Equal(t, ids[3], hits[0].ID, "identifiers match through the lexical path")
	require.NotNil(t, hits[0].Lexical)

	hits, err = hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "port", Kinds: []string{"gotcha"}}))
	require.NoError(t, err)
	require.Empty(t, hits)

	_, err = b.svc.Get(ctx, bob, ids[1])
	require.ErrorIs(t, err, rules.ErrNotFound, "another project's id is not found")
	_, err = b.svc.Archive(ctx, bob, ids[1], "")
	require.ErrorIs(t, err, rules.ErrNotFound)
	_, err = b.svc.Search(ctx, alice, memory.SearchRequest{Query: "x", TopK: 1000})
	var fe *rules.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "top_k", fe.Field)
}

func TestSearchExcludesArchivedAndGetRecordsUses(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	ids := seed(t, b, alice, "Deploys go through ArgoCD.", "Releases are tagged vX.Y.Z.")
	_, err := b.svc.Archive(ctx, alice, ids[0], "moved to flux")
	require.NoError(t, err)
	hits, err := hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "ArgoCD deploys"}))
	require.NoError(t, err)
	for _, h := range hits {
		require.NotEqual(t, ids[0], h.ID)
	}
	hits, err = hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "ArgoCD deploys", IncludeArchived: true}))
	require.NoError(t, err)
	require.Equal(t, ids[0], hits[0].ID)

	restored, err := b.svc.Restore(ctx, alice, ids[0])
	require.NoError(t, err)
	require.Nil(t, restored.ArchivedAt)
	hits, err = hitsOf(b.svc.Search(ctx, alice, memory.SearchRequest{Query: "ArgoCD deploys"}))
	require.NoError(t, err)
	require.Equal(t, ids[0], hits[0].ID)

	require.Eventually(t, func() bool {
		v, err := b.svc.Get(ctx, alice, ids[0])
		return err == nil && v.HitCount >= 1
	}, 5*time.Second, 20*time.Millisecond, "reading a memory records a use in the background")

	h, err := b.svc.History(ctx, alice, ids[0])
	require.NoError(t, err)
	require.Len(t, h, 3)
	require.Equal(t, store.EventArchive, h[1].Event)
	require.Equal(t, "moved to flux", h[1].Detail["reason"])
}

func TestListPages(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	seed(t, b, alice, "one fact", "two facts here", "three distinct facts", "four: gamma ray", "five: delta wing")
	var all []memory.View
	cursor := ""
	for {
		page, err := b.svc.List(ctx, alice, memory.ListRequest{Limit: 2, Cursor: cursor})
		require.NoError(t, err)
		all = append(all, page.Memories...)
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	require.Len(t, all, 5)
	require.Equal(t, "five: delta wing", all[0].Text, "newest first")
	_, err := b.svc.List(ctx, alice, memory.ListRequest{Cursor: "garbage"})
	var fe *rules.FieldError
	require.ErrorAs(t, err, &fe)
	require.Equal(t, "cursor", fe.Field)
}

// TestSecondHostFollowsWrites: two hosts share one database; the second's lexical index
// learns the first's writes through the change feed.
func TestSecondHostFollowsWrites(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	pool2, err := pgxpool.New(ctx, b.dsn)
	require.NoError(t, err)
	t.Cleanup(pool2.Close)
	st2 := pgstore.New(pool2)
	ix2 := lexical.New()
	follower := lexical.NewFollower(st2, ix2, 10*time.Millisecond)
	_, err = follower.CatchUp(ctx)
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go follower.Run(runCtx, func(err error) { t.Errorf("follower: %v", err) })

	ids := seed(t, b, alice, "Feature flags are read from flags.yaml at boot.")
	q := lexical.Query{Text: "flags.yaml", Scopes: []store.ScopeRef{store.Project(alice.Project)}, Limit: 5}
	require.Eventually(t, func() bool {
		hits := ix2.Search(q)
		return len(hits) == 1 && hits[0].ID == ids[0]
	}, 5*time.Second, 10*time.Millisecond)
	_, err = b.svc.Archive(ctx, alice, ids[0], "")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return len(ix2.Search(q)) == 0 }, 5*time.Second, 10*time.Millisecond)
}

// cancelledUnderCall is an embedder whose calls end the way a call to a dying plugin can:
// with a context error although the caller's context is still alive.
type cancelledUnderCall struct{ embedder.Embedder }

func (c cancelledUnderCall) Embed(context.Context, embedder.Purpose, []string) ([][]float32, error) {
	return nil, fmt.Errorf("connection closing: %w", context.Canceled)
}

// TestEmbedderFailureIsUnavailableUnlessTheCallerCancelled: only the caller's own cancellation
// is reported as such; anything else the embedder ends with is rules.ErrUnavailable (503, retry).
func TestEmbedderFailureIsUnavailableUnlessTheCallerCancelled(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	emb := cancelledUnderCall{embeddertest.Launch(t, testplugins.BM25(t))}
	svc := memory.New(pgstore.New(pool), lexical.New(), memory.Fixed(emb), func(s string) (string, int) { return s, 0 }, memory.DefaultConfig())
	runHitRecorder(t, svc)

	_, err := svc.Store(context.Background(), alice, memory.StoreRequest{Text: "Deploys go through ArgoCD."})
	require.ErrorIs(t, err, rules.ErrUnavailable)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = svc.Store(ctx, alice, memory.StoreRequest{Text: "Deploys go through ArgoCD."})
	require.Error(t, err)
	require.NotErrorIs(t, err, rules.ErrUnavailable)
}

// runHitRecorder runs the service's hit recorder for the test, as the host's lifecycle does.
func runHitRecorder(t *testing.T, svc *memory.Service) {
	t.Helper()
	g := lifecycle.NewGroup(nil, lifecycle.Func("hit recorder", svc.RecordHits))
	require.NoError(t, g.Start(context.Background()))
	t.Cleanup(func() { require.NoError(t, g.Stop(context.Background())) })
}

// hitsOf drops a search's degraded note, which these tests check elsewhere.
func hitsOf(r memory.SearchResult, err error) ([]memory.SearchHit, error) { return r.Hits, err }
