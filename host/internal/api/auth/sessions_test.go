package auth

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

// TestConsoleSignin: a sign-in code opens one session for its token and works once; the
// session acts as the token; only hashes are stored; signing out, revoking the token and
// expiry each end it; a code that expired or whose token was revoked opens nothing.
func TestConsoleSignin(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)
	plaintext, tok, err := ts.Create(ctx, CreateToken{Name: "operator", Scopes: []Scope{ScopeRead}, ProjectKey: "github.com/o/r"})
	require.NoError(t, err)
	p, err := ts.Authenticate(ctx, plaintext)
	require.NoError(t, err)

	code, expires, err := ts.SigninCode(ctx, p)
	require.NoError(t, err)
	require.Regexp(t, `^mhc_[A-Za-z0-9_-]{43}$`, code)
	require.WithinDuration(t, time.Now().Add(SigninCodeTTL), expires, time.Minute)
	var stored []byte
	require.NoError(t, pool.QueryRow(ctx, `SELECT code_hash FROM console_signin_codes`).Scan(&stored))
	require.Equal(t, hashToken(code), stored, "only the code's hash is stored")

	// Two redemptions at once: exactly one opens a session.
	var wg sync.WaitGroup
	sessions, errs := make([]string, 4), make([]error, 4)
	for i := range sessions {
		wg.Go(func() { sessions[i], _, errs[i] = ts.Redeem(ctx, code) })
	}
	wg.Wait()
	var session string
	for i, err := range errs {
		if err == nil {
			require.Empty(t, session, "a code works once")
			session = sessions[i]
		} else {
			require.ErrorIs(t, err, ErrUnauthenticated)
			require.Contains(t, err.Error(), "invalid, used or expired")
		}
	}
	require.Regexp(t, `^mhs_[A-Za-z0-9_-]{43}$`, session)
	require.NoError(t, pool.QueryRow(ctx, `SELECT id_hash FROM console_sessions`).Scan(&stored))
	require.Equal(t, hashToken(session), stored, "only the session id's hash is stored")

	got, err := ts.AuthenticateSession(ctx, session)
	require.NoError(t, err)
	require.Equal(t, Principal{TokenID: tok.ID, Name: "operator", Scopes: []Scope{ScopeRead}, ProjectKey: "github.com/o/r"}, got)
	_, err = ts.AuthenticateSession(ctx, "mhs_"+session[4:10]+"x")
	require.ErrorIs(t, err, ErrUnauthenticated)
	_, err = ts.AuthenticateSession(ctx, plaintext)
	require.ErrorIs(t, err, ErrUnauthenticated, "a token is no session")

	require.NoError(t, ts.EndSession(ctx, session))
	_, err = ts.AuthenticateSession(ctx, session)
	require.ErrorIs(t, err, ErrUnauthenticated, "signed out")

	// Revoking the token ends its other sessions and spoils its unspent codes.
	code2, _, err := ts.SigninCode(ctx, p)
	require.NoError(t, err)
	session2, _, err := ts.Redeem(ctx, code2)
	require.NoError(t, err)
	code3, _, err := ts.SigninCode(ctx, p)
	require.NoError(t, err)
	require.NoError(t, ts.Revoke(ctx, tok.ID))
	_, err = ts.AuthenticateSession(ctx, session2)
	require.ErrorIs(t, err, ErrUnauthenticated)
	_, _, err = ts.Redeem(ctx, code3)
	require.ErrorIs(t, err, ErrUnauthenticated)
}

// TestConsoleSessionExpiry: an expired code opens nothing; a session ends at SessionTTL, and
// no later than its token expires.
func TestConsoleSessionExpiry(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	ctx := context.Background()
	ts := NewTokens(pool)
	plaintext, _, err := ts.Create(ctx, CreateToken{Name: "brief", Scopes: []Scope{ScopeAdmin}, TTL: time.Hour})
	require.NoError(t, err)
	p, err := ts.Authenticate(ctx, plaintext)
	require.NoError(t, err)

	code, _, err := ts.SigninCode(ctx, p)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE console_signin_codes SET expires_at = now() - interval '1 second'`)
	require.NoError(t, err)
	_, _, err = ts.Redeem(ctx, code)
	require.ErrorIs(t, err, ErrUnauthenticated, "expired")

	code, _, err = ts.SigninCode(ctx, p)
	require.NoError(t, err)
	session, _, err := ts.Redeem(ctx, code)
	require.NoError(t, err)
	var sessionEnds, tokenEnds time.Time
	require.NoError(t, pool.QueryRow(ctx, `SELECT s.expires_at, t.expires_at FROM console_sessions s JOIN api_tokens t ON t.id = s.token_id`).Scan(&sessionEnds, &tokenEnds))
	require.Equal(t, tokenEnds, sessionEnds, "a session never outlives its token")
	_, err = pool.Exec(ctx, `UPDATE console_sessions SET expires_at = now() - interval '1 second'`)
	require.NoError(t, err)
	_, err = ts.AuthenticateSession(ctx, session)
	require.ErrorIs(t, err, ErrUnauthenticated)

	// The purge deletes what ended long ago, and a deleted token's rows go with it.
	_, err = pool.Exec(ctx, `UPDATE console_sessions SET expires_at = now() - interval '40 days'`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `UPDATE console_signin_codes SET expires_at = now() - interval '40 days'`)
	require.NoError(t, err)
	_, err = ts.Purge(ctx, PurgeGrace)
	require.NoError(t, err)
	var left int
	require.NoError(t, pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM console_sessions) + (SELECT count(*) FROM console_signin_codes)`).Scan(&left))
	require.Zero(t, left)
}
