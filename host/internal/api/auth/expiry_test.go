package auth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestExpiredTokensNoLongerAuthenticate: a token with a TTL authenticates until the database's
// clock passes its expiry and is refused after, like a revoked one; tokens without a TTL never
// expire.
func TestExpiredTokensNoLongerAuthenticate(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)

	plain, tok, err := ts.Create(ctx, CreateToken{Name: "run:claude", Scopes: []Scope{ScopeRead, ScopeWrite}, ProjectKey: "github.com/o/r", TTL: time.Hour})
	require.NoError(t, err)
	require.NotNil(t, tok.ExpiresAt)
	require.WithinDuration(t, tok.CreatedAt.Add(time.Hour), *tok.ExpiresAt, time.Second)
	_, err = ts.Authenticate(ctx, plain)
	require.NoError(t, err)

	forever, _, err := ts.Create(ctx, CreateToken{Name: "ops", Scopes: []Scope{ScopeAdmin}})
	require.NoError(t, err)

	// An hour later, as the database sees it.
	_, err = pool.Exec(ctx, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, tok.ID)
	require.NoError(t, err)
	_, err = ts.Authenticate(ctx, plain)
	require.ErrorIs(t, err, ErrUnauthenticated)
	require.ErrorContains(t, err, "token expired")
	_, err = ts.Authenticate(ctx, forever)
	require.NoError(t, err)

	list, err := ts.List(ctx, true)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.NotNil(t, list[0].ExpiresAt)
	require.Nil(t, list[1].ExpiresAt)
}

// TestListHidesAndPurgeDeletesDeadTokens: the list shows the tokens that authenticate unless
// all is asked; Purge deletes revoked and expired tokens once the grace has passed, and keeps
// live ones and the recently dead.
func TestListHidesAndPurgeDeletesDeadTokens(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)
	mk := func(name string, ttl time.Duration) Token {
		_, tok, err := ts.Create(ctx, CreateToken{Name: name, Scopes: []Scope{ScopeRead}, TTL: ttl})
		require.NoError(t, err)
		return tok
	}
	live, forever := mk("live", time.Hour), mk("forever", 0)
	expired, revoked, oldRevoked, oldExpired := mk("expired", time.Hour), mk("revoked", 0), mk("old revoked", 0), mk("old expired", time.Hour)
	require.NoError(t, ts.Revoke(ctx, revoked.ID))
	require.NoError(t, ts.Revoke(ctx, oldRevoked.ID))
	_, err := pool.Exec(ctx, `UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, expired.ID)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE api_tokens SET expires_at = now() - interval '31 days' WHERE id = $1`, oldExpired.ID)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE api_tokens SET revoked_at = now() - interval '31 days' WHERE id = $1`, oldRevoked.ID)
	require.NoError(t, err)

	names := func(all bool) []string {
		list, err := ts.List(ctx, all)
		require.NoError(t, err)
		var out []string
		for _, tok := range list {
			out = append(out, tok.Name)
		}
		return out
	}
	require.Equal(t, []string{live.Name, forever.Name}, names(false))
	require.Len(t, names(true), 6)

	n, err := ts.Purge(ctx, PurgeGrace)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	require.Equal(t, []string{live.Name, forever.Name, expired.Name, revoked.Name}, names(true))
}

func TestTTLIsBounded(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ts := NewTokens(pool)
	for _, ttl := range []time.Duration{-time.Second, MaxTTL + time.Hour} {
		_, _, err := ts.Create(context.Background(), CreateToken{Name: "x", Scopes: []Scope{ScopeRead}, TTL: ttl})
		require.ErrorContains(t, err, "ttl "+ttl.String()+" is out of range: 0 (never expires) up to 8784h0m0s")
	}
	list, err := ts.List(context.Background(), true)
	require.NoError(t, err)
	require.Empty(t, list, "nothing created")
}
