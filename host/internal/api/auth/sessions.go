package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The operator console's credentials (migration 0014). A sign-in code is minted for a token
// that is already authenticated (`memhost console` asks the host with the operator's token)
// and redeemed once, within SigninCodeTTL, for a browser session. A session acts as its token:
// every request re-reads the token, so revoking or expiring the token ends its sessions at
// once. Codes and session ids are 256-bit random values stored as sha256, like tokens.

const (
	// SigninCodePrefix and SessionPrefix mark the two values, as TokenPrefix marks a token.
	SigninCodePrefix = "mhc_"
	SessionPrefix    = "mhs_"
	// SigninCodeTTL is how long a sign-in link works: long enough to open it, short enough
	// that one left in a terminal's scrollback is dead.
	SigninCodeTTL = 5 * time.Minute
	// SessionTTL is a browser session's life from sign-in; the token's own expiry ends it
	// sooner.
	SessionTTL = 12 * time.Hour
)

// errSignin is what every refused sign-in code is told: unknown, used and expired look alike.
var errSignin = fmt.Errorf("%w: this sign-in link is invalid, used or expired; run `memhost console` for a new one", ErrUnauthenticated)

// newSecret returns prefix and 256 random bits, URL-safe.
func newSecret(prefix string) (string, error) {
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("read random bytes: %w", err)
	}
	return prefix + base64.RawURLEncoding.EncodeToString(raw), nil
}

// SigninCode mints a single-use sign-in code for p's token, valid for SigninCodeTTL.
func (ts *Tokens) SigninCode(ctx context.Context, p Principal) (code string, expires time.Time, err error) {
	if code, err = newSecret(SigninCodePrefix); err != nil {
		return "", time.Time{}, fmt.Errorf("sign-in code: %w", err)
	}
	err = ts.pool.QueryRow(ctx, `
		INSERT INTO console_signin_codes (code_hash, token_id, expires_at)
		VALUES ($1, $2, now() + $3::bigint * interval '1 microsecond') RETURNING expires_at`,
		hashToken(code), p.TokenID, SigninCodeTTL.Microseconds()).Scan(&expires)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign-in code for token %q: %w", p.Name, err)
	}
	return code, expires, nil
}

// Redeem spends a sign-in code and opens a session for its token, returning the session id
// (the cookie's value, shown nowhere else) and the principal it acts as. A code works once:
// two redemptions racing see one succeed. A code whose token was revoked or expired since
// opens nothing.
func (ts *Tokens) Redeem(ctx context.Context, code string) (session string, p Principal, err error) {
	code = strings.TrimSpace(code)
	if !strings.HasPrefix(code, SigninCodePrefix) {
		return "", Principal{}, errSignin
	}
	if session, err = newSecret(SessionPrefix); err != nil {
		return "", Principal{}, fmt.Errorf("open session: %w", err)
	}
	err = pgx.BeginFunc(ctx, ts.pool, func(tx pgx.Tx) error {
		row := tx.QueryRow(ctx, `
			WITH spent AS (
				UPDATE console_signin_codes SET used_at = now()
				WHERE code_hash = $1 AND used_at IS NULL AND expires_at > now()
				RETURNING token_id)
			SELECT t.id, t.name, t.scopes, coalesce(t.project_key, ''), t.created_at, t.last_used_at, t.revoked_at, t.expires_at
			FROM spent JOIN api_tokens t ON t.id = spent.token_id
			WHERE t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`, hashToken(code))
		tok, err := scanToken(row)
		if errors.Is(err, pgx.ErrNoRows) {
			return errSignin
		}
		if err != nil {
			return err
		}
		p = tok.Principal()
		// A session never outlives its token.
		_, err = tx.Exec(ctx, `
			INSERT INTO console_sessions (id_hash, token_id, expires_at)
			VALUES ($1, $2, least(now() + $3::bigint * interval '1 microsecond', coalesce($4, 'infinity'::timestamptz)))`,
			hashToken(session), tok.ID, SessionTTL.Microseconds(), tok.ExpiresAt)
		return err
	})
	switch {
	case errors.Is(err, ErrUnauthenticated):
		return "", Principal{}, err
	case err != nil:
		return "", Principal{}, fmt.Errorf("redeem sign-in code: %w", err)
	}
	return session, p, nil
}

// AuthenticateSession resolves a console session id to the principal of its token. A session
// that is unknown, signed out, past SessionTTL, or whose token is revoked or expired, wraps
// ErrUnauthenticated (all alike).
func (ts *Tokens) AuthenticateSession(ctx context.Context, session string) (Principal, error) {
	session = strings.TrimSpace(session)
	if !strings.HasPrefix(session, SessionPrefix) {
		return Principal{}, fmt.Errorf("%w: not a console session", ErrUnauthenticated)
	}
	row := ts.pool.QueryRow(ctx, `
		SELECT t.id, t.name, t.scopes, coalesce(t.project_key, ''), t.created_at, t.last_used_at, t.revoked_at, t.expires_at,
		       s.last_seen_at < now() - $2 * interval '1 second'
		FROM console_sessions s JOIN api_tokens t ON t.id = s.token_id
		WHERE s.id_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()
		  AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > now())`,
		hashToken(session), lastUsedGranularity.Seconds())
	var stale bool
	tok, err := scanToken(row, &stale)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, fmt.Errorf("%w: the console session has ended", ErrUnauthenticated)
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate session: %w", err)
	}
	if stale {
		// As for tokens: at most one write per session and interval, however busy the page.
		if _, err := ts.pool.Exec(ctx, `UPDATE console_sessions SET last_seen_at = now() WHERE id_hash = $1`, hashToken(session)); err != nil {
			return Principal{}, fmt.Errorf("authenticate session: record last use: %w", err)
		}
	}
	return tok.Principal(), nil
}

// EndSession signs a session out; an unknown or already ended session is no error.
func (ts *Tokens) EndSession(ctx context.Context, session string) error {
	if _, err := ts.pool.Exec(ctx, `UPDATE console_sessions SET revoked_at = now() WHERE id_hash = $1 AND revoked_at IS NULL`,
		hashToken(strings.TrimSpace(session))); err != nil {
		return fmt.Errorf("end console session: %w", err)
	}
	return nil
}

// purgeConsole deletes sign-in codes and sessions that stopped working more than grace ago;
// those of a deleted token went with it.
func (ts *Tokens) purgeConsole(ctx context.Context, grace time.Duration) (int64, error) {
	var n int64
	for _, q := range []string{
		`DELETE FROM console_signin_codes WHERE expires_at < now() - $1::bigint * interval '1 microsecond'`,
		`DELETE FROM console_sessions WHERE least(revoked_at, expires_at) < now() - $1::bigint * interval '1 microsecond'`,
	} {
		tag, err := ts.pool.Exec(ctx, q, grace.Microseconds())
		if err != nil {
			return n, fmt.Errorf("purge console sessions: %w", err)
		}
		n += tag.RowsAffected()
	}
	return n, nil
}
