package spawn

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// mintTokens is a MintTokens on a fresh schema that counts how often it needed the store.
func mintTokens(t *testing.T, cache string) (MintTokens, *auth.Tokens, *atomic.Int32) {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	store := auth.NewTokens(pool)
	var opened atomic.Int32
	return MintTokens{CacheDir: cache, Store: func(context.Context) (Minter, error) {
		opened.Add(1)
		return store, nil
	}}, store, &opened
}

// TestAProjectTokenIsKeptAndReused: the first session mints a token bound to the project with
// the default lifetime; the next sessions of the project reuse it without the database; a
// token past half its life, or one the host refused (forgotten), is replaced.
func TestAProjectTokenIsKeptAndReused(t *testing.T) {
	t.Parallel()
	cache := filepath.Join(t.TempDir(), "tokens")
	m, store, opened := mintTokens(t, cache)
	ctx := context.Background()

	token, release, err := m.Grant(ctx, "github.com/o/r", "claude")
	require.NoError(t, err)
	require.NoError(t, release(ctx))
	p, err := store.Authenticate(ctx, token)
	require.NoError(t, err, "kept: not revoked at the session's end")
	require.Equal(t, "github.com/o/r", p.ProjectKey)
	require.Equal(t, []auth.Scope{auth.ScopeRead, auth.ScopeWrite}, p.Scopes)
	list, err := store.List(ctx, false)
	require.NoError(t, err)
	require.WithinDuration(t, time.Now().Add(DefaultTokenTTL), *list[0].ExpiresAt, time.Minute)
	fi, err := os.Stat(cache)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	files, err := filepath.Glob(filepath.Join(cache, "*.json"))
	require.NoError(t, err)
	require.Len(t, files, 1)
	fi, err = os.Stat(files[0])
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	again, _, err := m.Grant(ctx, "github.com/o/r", "codex")
	require.NoError(t, err)
	require.Equal(t, token, again)
	require.Equal(t, int32(1), opened.Load(), "reused without the database")

	other, _, err := m.Grant(ctx, "github.com/o/other", "claude")
	require.NoError(t, err)
	require.NotEqual(t, token, other, "each project has its own")

	// Past half its life: a fresh one.
	data, err := json.Marshal(cached{Token: token, ExpiresAt: time.Now().Add(DefaultTokenTTL/2 - time.Minute)})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m.path("github.com/o/r"), data, 0o600))
	fresh, _, err := m.Grant(ctx, "github.com/o/r", "claude")
	require.NoError(t, err)
	require.NotEqual(t, token, fresh)

	m.Forget("github.com/o/r")
	newest, _, err := m.Grant(ctx, "github.com/o/r", "claude")
	require.NoError(t, err)
	require.NotEqual(t, fresh, newest)
	require.Equal(t, int32(4), opened.Load())
}

// TestAPerSessionTokenIsRevoked: without a cache, each session's token is its own and is
// revoked when it ends.
func TestAPerSessionTokenIsRevoked(t *testing.T) {
	t.Parallel()
	m, store, _ := mintTokens(t, "")
	ctx := context.Background()
	token, release, err := m.Grant(ctx, "github.com/o/r", "claude")
	require.NoError(t, err)
	_, err = store.Authenticate(ctx, token)
	require.NoError(t, err)
	require.NoError(t, release(ctx))
	_, err = store.Authenticate(ctx, token)
	require.ErrorIs(t, err, auth.ErrUnauthenticated)
}

// staleTokens first grants a token the host does not know (a kept token revoked since), then
// real ones.
type staleTokens struct {
	*fakeTokens
	forgot atomic.Bool
}

func (s *staleTokens) Grant(ctx context.Context, project, cli string) (string, func(context.Context) error, error) {
	if !s.forgot.Load() {
		return "mh_" + random(32), func(context.Context) error { return nil }, nil
	}
	return s.fakeTokens.Grant(ctx, project, cli)
}

func (s *staleTokens) Forget(string) { s.forgot.Store(true) }

func TestARefusedKeptTokenIsReplaced(t *testing.T) {
	t.Parallel()
	b := setup(t, "claude", "-p", "hi")
	stale := &staleTokens{fakeTokens: b.tokens}
	b.opts.Tokens = stale
	res, _ := b.run(t)
	require.True(t, res.Injected, b.warn.String())
	require.True(t, stale.forgot.Load())
	require.Empty(t, b.warn.String())
	b.tokens.only(t)
}
