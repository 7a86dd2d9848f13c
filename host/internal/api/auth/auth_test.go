package auth

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

func TestParseScopes(t *testing.T) {
	t.Parallel()
	scopes, err := ParseScopes("memory:read, memory:write,memory:read")
	require.NoError(t, err)
	require.Equal(t, []Scope{ScopeRead, ScopeWrite}, scopes)

	scopes, err = ParseScopes("admin")
	require.NoError(t, err)
	require.Equal(t, []Scope{ScopeAdmin}, scopes)

	_, err = ParseScopes("memory:read,memory:delete")
	require.EqualError(t, err, `unknown scope "memory:delete" (valid scopes: memory:read, memory:write, admin)`)

	_, err = ParseScopes(" , ")
	require.ErrorContains(t, err, "no scopes given")
}

func TestPrincipalScopes(t *testing.T) {
	t.Parallel()
	reader := Principal{Name: "r", Scopes: []Scope{ScopeRead}}
	require.True(t, reader.Has(ScopeRead))
	require.False(t, reader.Has(ScopeWrite))
	require.True(t, reader.CanReadProject("any/project"))
	require.False(t, reader.CanWriteProject("any/project"))
	require.False(t, reader.CanWriteGlobal())

	writer := Principal{Name: "w", Scopes: []Scope{ScopeRead, ScopeWrite}, ProjectKey: "github.com/o/r"}
	require.True(t, writer.CanWriteProject("github.com/o/r"))
	require.False(t, writer.CanWriteProject("github.com/o/other"))
	require.False(t, writer.CanReadProject("github.com/o/other"))
	require.False(t, writer.CanWriteGlobal())

	admin := Principal{Name: "a", Scopes: []Scope{ScopeAdmin}}
	for _, s := range AllScopes {
		require.True(t, admin.Has(s), "admin implies %s", s)
	}
	require.True(t, admin.CanWriteGlobal())
	require.True(t, admin.CanWriteProject("x"))

	boundAdmin := Principal{Name: "ba", Scopes: []Scope{ScopeAdmin}, ProjectKey: "p"}
	require.False(t, boundAdmin.CanReadProject("q"), "binding limits even admin")
	require.False(t, boundAdmin.CanWriteGlobal(), "a bound admin changes nothing outside its project")
}

func TestResolveProject(t *testing.T) {
	t.Parallel()
	bound := Principal{Name: "ci", Scopes: []Scope{ScopeWrite}, ProjectKey: "github.com/o/r"}
	key, err := bound.ResolveProject("")
	require.NoError(t, err)
	require.Equal(t, "github.com/o/r", key)
	key, err = bound.ResolveProject("github.com/o/r")
	require.NoError(t, err)
	require.Equal(t, "github.com/o/r", key)
	_, err = bound.ResolveProject("github.com/o/other")
	require.ErrorIs(t, err, ErrForbidden)
	require.ErrorContains(t, err, "github.com/o/r")
	require.ErrorContains(t, err, "github.com/o/other")

	unbound := Principal{Name: "dev", Scopes: []Scope{ScopeRead}}
	_, err = unbound.ResolveProject("")
	require.ErrorIs(t, err, ErrProjectRequired)
	require.EqualError(t, err, "project is required (pass project or cwd)")
	key, err = unbound.ResolveProject("github.com/o/other")
	require.NoError(t, err)
	require.Equal(t, "github.com/o/other", key)
}

func TestTokensLifecycle(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)

	plaintext, tok, err := ts.Create(ctx, CreateToken{Name: "laptop", Scopes: []Scope{ScopeRead, ScopeWrite}, ProjectKey: "github.com/o/r"})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(plaintext, TokenPrefix))
	require.Len(t, plaintext, len(TokenPrefix)+43, "32 bytes in unpadded base64url")
	require.Equal(t, "laptop", tok.Name)
	require.False(t, tok.CreatedAt.IsZero())

	// Only the hash is stored.
	var stored []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT token_hash FROM api_tokens WHERE id = $1`, tok.ID).Scan(&stored))
	require.Equal(t, hashToken(plaintext), stored)
	require.NotContains(t, string(stored), plaintext[len(TokenPrefix):])

	p, err := ts.Authenticate(ctx, "Bearer "+plaintext)
	require.NoError(t, err)
	require.Equal(t, Principal{TokenID: tok.ID, Name: "laptop", Scopes: []Scope{ScopeRead, ScopeWrite}, ProjectKey: "github.com/o/r"}, p)

	// last_used_at is set on first use and not rewritten within the minute.
	var first time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, tok.ID).Scan(&first))
	_, err = ts.Authenticate(ctx, plaintext)
	require.NoError(t, err)
	var second time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, tok.ID).Scan(&second))
	require.True(t, first.Equal(second), "no write within the granularity window")

	// ... but is refreshed once it is older than that.
	_, err = pool.Exec(ctx, `UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, tok.ID)
	require.NoError(t, err)
	_, err = ts.Authenticate(ctx, plaintext)
	require.NoError(t, err)
	var third time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT last_used_at FROM api_tokens WHERE id = $1`, tok.ID).Scan(&third))
	require.WithinDuration(t, time.Now(), third, 30*time.Second)

	admin, adminTok, err := ts.Create(ctx, CreateToken{Name: "ops", Scopes: []Scope{ScopeAdmin}})
	require.NoError(t, err)
	p, err = ts.Authenticate(ctx, admin)
	require.NoError(t, err)
	require.Empty(t, p.ProjectKey)
	require.True(t, p.CanWriteGlobal())

	list, err := ts.List(ctx, false)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, tok.ID, list[0].ID)
	require.Equal(t, "github.com/o/r", list[0].ProjectKey)
	require.NotNil(t, list[0].LastUsedAt)
	require.Equal(t, adminTok.ID, list[1].ID)
	require.Nil(t, list[1].RevokedAt)

	require.NoError(t, ts.Revoke(ctx, tok.ID))
	_, err = ts.Authenticate(ctx, plaintext)
	require.ErrorIs(t, err, ErrUnauthenticated)
	require.NoError(t, ts.Revoke(ctx, tok.ID), "revoking twice is not an error")
	list, err = ts.List(ctx, true)
	require.NoError(t, err)
	require.NotNil(t, list[0].RevokedAt)

	err = ts.Revoke(ctx, uuid.New())
	require.ErrorIs(t, err, ErrNotFound)

	// The other token is unaffected.
	_, err = ts.Authenticate(ctx, admin)
	require.NoError(t, err)
}

func TestAuthenticateRejects(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)
	plaintext, _, err := ts.Create(ctx, CreateToken{Name: "t", Scopes: []Scope{ScopeRead}})
	require.NoError(t, err)

	// Synthetic wrong values: same shape as a real token, different bytes.
	last := "A"
	if strings.HasSuffix(plaintext, "A") {
		last = "B"
	}
	wrong := plaintext[:len(plaintext)-1] + last
	for _, bearer := range []string{"", "Bearer ", "not-a-token", TokenPrefix, TokenPrefix + strings.Repeat("A", 43), wrong, strings.ToUpper(plaintext)} {
		_, err := ts.Authenticate(ctx, bearer)
		require.ErrorIs(t, err, ErrUnauthenticated, "bearer %q", bearer)
	}
}

func TestCreateValidates(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)

	_, _, err := ts.Create(ctx, CreateToken{Name: " ", Scopes: []Scope{ScopeRead}})
	require.ErrorContains(t, err, "name must not be empty")
	_, _, err = ts.Create(ctx, CreateToken{Name: "x", Scopes: nil})
	require.ErrorContains(t, err, "no scopes given")
	_, _, err = ts.Create(ctx, CreateToken{Name: "x", Scopes: []Scope{"root"}})
	require.ErrorContains(t, err, `unknown scope "root"`)
	_, _, err = ts.Create(ctx, CreateToken{Name: "x", Scopes: []Scope{ScopeRead}, ProjectKey: strings.Repeat("p", 513)})
	require.ErrorContains(t, err, "project")

	list, err := ts.List(ctx, true)
	require.NoError(t, err)
	require.Empty(t, list)
}

func TestLimiter(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLimiter("writes", 60, 3) // one per second, bursts of three
	l.now = func() time.Time { return clock }
	a, b := uuid.New(), uuid.New()

	for range 3 {
		ok, wait := l.Allow(a)
		require.True(t, ok)
		require.Zero(t, wait)
	}
	ok, wait := l.Allow(a)
	require.False(t, ok)
	require.Equal(t, time.Second, wait)

	// Buckets are per token.
	ok, _ = l.Allow(b)
	require.True(t, ok)

	// Refused writes do not consume capacity: after one second exactly one write passes.
	ok, _ = l.Allow(a)
	require.False(t, ok)
	clock = clock.Add(time.Second)
	ok, _ = l.Allow(a)
	require.True(t, ok)
	ok, wait = l.Allow(a)
	require.False(t, ok)
	require.Equal(t, time.Second, wait)

	// Idle buckets are evicted once full again; active ones survive.
	require.Equal(t, 2, l.size())
	clock = clock.Add(2 * time.Minute)
	ok, _ = l.Allow(b)
	require.True(t, ok)
	require.Equal(t, 1, l.size(), "token a's bucket was refilled and dropped")
	for range 3 {
		ok, _ = l.Allow(a)
		require.True(t, ok, "a fresh bucket allows a full burst")
	}
}

func TestLimiterDisabled(t *testing.T) {
	t.Parallel()
	l := NewLimiter("writes", 0, 1)
	id := uuid.New()
	for range 1000 {
		ok, wait := l.Allow(id)
		require.True(t, ok)
		require.Zero(t, wait)
	}
	require.Zero(t, l.size())

	var nilLimiter *Limiter
	ok, _ := nilLimiter.Allow(id)
	require.True(t, ok)
}

func TestLimiterConcurrent(t *testing.T) {
	t.Parallel()
	l := NewLimiter("writes", 6000, 50)
	id := uuid.New()
	done := make(chan int)
	for range 4 {
		go func() {
			n := 0
			for range 100 {
				if ok, _ := l.Allow(id); ok {
					n++
				}
			}
			done <- n
		}()
	}
	total := 0
	for range 4 {
		total += <-done
	}
	// 50 burst plus whatever refilled (100/s) while the loop ran; far below 400.
	require.GreaterOrEqual(t, total, 50)
	require.Less(t, total, 400)
}

// TestLimiterSet: a reload's new limit applies at once, to tokens that already have a bucket
// (which keeps its level) and to new ones; 0 disables and a later Set limits again.
func TestLimiterSet(t *testing.T) {
	t.Parallel()
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := NewLimiter("writes", 600, 10)
	l.now = func() time.Time { return clock }
	a := uuid.New()
	for range 9 {
		ok, _ := l.Allow(a)
		require.True(t, ok)
	}
	l.Set(60, 2) // one a second, bursts of two
	require.Equal(t, "60 writes per minute (bursts of 2)", l.String())
	ok, _ := l.Allow(a)
	require.True(t, ok, "the bucket kept its one remaining token")
	ok, wait := l.Allow(a)
	require.False(t, ok)
	require.Equal(t, time.Second, wait)

	l.Set(0, 1)
	for range 100 {
		ok, _ = l.Allow(a)
		require.True(t, ok, "0 disables")
	}
	l.Set(60, 1)
	ok, _ = l.Allow(uuid.New())
	require.True(t, ok)
}
