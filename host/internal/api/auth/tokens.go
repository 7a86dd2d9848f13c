package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/memhost/memhost/host/internal/core/project"
)

const (
	// TokenPrefix starts every token so that secret scanners and humans recognise one.
	TokenPrefix = "mh_"
	// tokenBytes of crypto/rand entropy: 256 bits, beyond any brute force.
	tokenBytes = 32
	// MaxNameBytes bounds a token's display name.
	MaxNameBytes = 200
	// lastUsedGranularity limits last_used_at updates to one per token per interval, so
	// authentication does not turn every read request into a write.
	lastUsedGranularity = time.Minute
)

// Token is a stored token's metadata. The plaintext is never stored or returned here.
type Token struct {
	ID         uuid.UUID
	Name       string
	Scopes     []Scope
	ProjectKey string // "" = any project
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// ExpiresAt is when the token stops authenticating; nil = never.
	ExpiresAt *time.Time
}

// Principal returns the identity requests authenticated by t run as.
func (t Token) Principal() Principal {
	return Principal{TokenID: t.ID, Name: t.Name, Scopes: t.Scopes, ProjectKey: t.ProjectKey}
}

// CreateToken describes a token to mint.
type CreateToken struct {
	Name   string
	Scopes []Scope
	// ProjectKey, when set, binds the token to that project.
	ProjectKey string
	// TTL, when positive, makes the token expire that long after its creation (by the
	// database's clock, which every host sharing it agrees on). Zero means never.
	TTL time.Duration
}

// MaxTTL bounds CreateToken.TTL: a token meant to expire should do so within a year.
const MaxTTL = 366 * 24 * time.Hour

// Tokens stores API tokens in the api_tokens table.
type Tokens struct {
	pool *pgxpool.Pool
}

// NewTokens returns a token store on pool.
func NewTokens(pool *pgxpool.Pool) *Tokens {
	return &Tokens{pool: pool}
}

// hashToken is the stored form of a token. A fast unsalted hash is right here (unlike for
// passwords): the input is 256 random bits, so there is nothing to brute-force or
// precompute, and lookup by hash needs it deterministic.
func hashToken(plaintext string) []byte {
	sum := sha256.Sum256([]byte(plaintext))
	return sum[:]
}

// Create mints a token and stores its hash. The plaintext is returned once; it cannot be
// recovered later.
func (ts *Tokens) Create(ctx context.Context, req CreateToken) (string, Token, error) {
	name := strings.TrimSpace(req.Name)
	switch {
	case name == "":
		return "", Token{}, errors.New("create token: name must not be empty")
	}
	// The name is shown in token listings and proposals and recorded as the actor in history:
	// it is held to the rules of every one-line field.
	if err := rules.CheckLine("name", name, MaxNameBytes); err != nil {
		return "", Token{}, fmt.Errorf("create token: %w", err)
	}
	if err := checkScopes(req.Scopes); err != nil {
		return "", Token{}, fmt.Errorf("create token: %w", err)
	}
	if req.TTL < 0 || req.TTL > MaxTTL {
		return "", Token{}, fmt.Errorf("create token: ttl %s is out of range: 0 (never expires) up to %s", req.TTL, MaxTTL)
	}
	if req.ProjectKey != "" {
		if err := project.ValidateKey(req.ProjectKey); err != nil {
			return "", Token{}, fmt.Errorf("create token: %w", err)
		}
	}

	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", Token{}, fmt.Errorf("create token: read random bytes: %w", err)
	}
	plaintext := TokenPrefix + base64.RawURLEncoding.EncodeToString(raw)

	id, err := uuid.NewV7()
	if err != nil {
		return "", Token{}, fmt.Errorf("create token: new id: %w", err)
	}
	tok := Token{ID: id, Name: name, Scopes: append([]Scope(nil), req.Scopes...), ProjectKey: req.ProjectKey}
	err = ts.pool.QueryRow(ctx, `
		INSERT INTO api_tokens (id, name, token_hash, scopes, project_key, expires_at)
		VALUES ($1, $2, $3, $4, $5, CASE WHEN $6::bigint > 0 THEN now() + $6::bigint * interval '1 microsecond' END)
		RETURNING created_at, expires_at`,
		id, name, hashToken(plaintext), scopeStrings(tok.Scopes), nullable(req.ProjectKey), req.TTL.Microseconds(),
	).Scan(&tok.CreatedAt, &tok.ExpiresAt)
	if err != nil {
		return "", Token{}, fmt.Errorf("create token %q: %w", name, err)
	}
	return plaintext, tok, nil
}

// Authenticate resolves a presented bearer token (with or without the "Bearer " prefix)

// MintSession creates a token for one CLI session of project: allowed to read and write its
// memory, bound to it, expiring after ttl (> 0). It is what `memhost run`, the hooks and
// `memhost mcp` hand a CLI (spawn.Minter).
func (ts *Tokens) MintSession(ctx context.Context, project, name string, ttl time.Duration) (string, uuid.UUID, time.Time, error) {
	if ttl <= 0 {
		return "", uuid.Nil, time.Time{}, fmt.Errorf("mint session token: ttl must be positive, got %s", ttl)
	}
	plain, tok, err := ts.Create(ctx, CreateToken{Name: name, Scopes: []Scope{ScopeRead, ScopeWrite}, ProjectKey: project, TTL: ttl})
	if err != nil {
		return "", uuid.Nil, time.Time{}, err
	}
	return plain, tok.ID, *tok.ExpiresAt, nil
}

// Authenticate resolves a presented bearer token (with or without the "Bearer " prefix)
// to its Principal. Every failure that is the caller's fault wraps ErrUnauthenticated.
func (ts *Tokens) Authenticate(ctx context.Context, bearer string) (Principal, error) {
	plaintext := strings.TrimSpace(bearer)
	if len(plaintext) > 7 && strings.EqualFold(plaintext[:7], "bearer ") {
		plaintext = strings.TrimSpace(plaintext[7:])
	}
	if !strings.HasPrefix(plaintext, TokenPrefix) {
		// Not one of ours: skip the database round trip.
		return Principal{}, fmt.Errorf("%w: not a memhost token", ErrUnauthenticated)
	}

	row := ts.pool.QueryRow(ctx, `
		SELECT id, name, scopes, coalesce(project_key, ''), created_at, last_used_at, revoked_at, expires_at,
		       coalesce(expires_at <= now(), false)
		FROM api_tokens WHERE token_hash = $1`, hashToken(plaintext))
	var expired bool
	tok, err := scanToken(row, &expired)
	if errors.Is(err, pgx.ErrNoRows) {
		return Principal{}, fmt.Errorf("%w: unknown token", ErrUnauthenticated)
	}
	if err != nil {
		return Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	if tok.RevokedAt != nil {
		return Principal{}, fmt.Errorf("%w: token revoked", ErrUnauthenticated)
	}
	if expired {
		return Principal{}, fmt.Errorf("%w: token expired", ErrUnauthenticated)
	}

	if tok.LastUsedAt == nil || time.Since(*tok.LastUsedAt) >= lastUsedGranularity {
		// The WHERE clause repeats the check in the database, so concurrent requests and
		// other hosts sharing the database still write at most once per interval.
		_, err := ts.pool.Exec(ctx, `
			UPDATE api_tokens SET last_used_at = now()
			WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < now() - $2 * interval '1 second')`,
			tok.ID, lastUsedGranularity.Seconds())
		if err != nil {
			return Principal{}, fmt.Errorf("authenticate: record last use of token %s: %w", tok.ID, err)
		}
	}
	return tok.Principal(), nil
}

// List returns the tokens that still authenticate, oldest first; all includes the revoked
// and expired ones that are not purged yet.
func (ts *Tokens) List(ctx context.Context, all bool) ([]Token, error) {
	rows, err := ts.pool.Query(ctx, `
		SELECT id, name, scopes, coalesce(project_key, ''), created_at, last_used_at, revoked_at, expires_at
		FROM api_tokens
		WHERE $1 OR (revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now()))
		ORDER BY created_at, id`, all)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	defer rows.Close()
	var tokens []Token
	for rows.Next() {
		tok, err := scanToken(rows)
		if err != nil {
			return nil, fmt.Errorf("list tokens: %w", err)
		}
		tokens = append(tokens, tok)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	return tokens, nil
}

// PurgeGrace is how long a revoked or expired token stays listed (`memhost token list --all`)
// before Purge deletes it: every session mints project tokens that expire within a day, and
// the table should not grow with them.
const PurgeGrace = 30 * 24 * time.Hour

// Purge deletes the tokens revoked or expired more than grace ago and returns how many, and
// the console's sign-in codes and sessions that ended as long ago.
func (ts *Tokens) Purge(ctx context.Context, grace time.Duration) (int64, error) {
	if _, err := ts.purgeConsole(ctx, grace); err != nil {
		return 0, err
	}
	tag, err := ts.pool.Exec(ctx, `
		DELETE FROM api_tokens
		WHERE coalesce(revoked_at, expires_at) IS NOT NULL
		  AND least(revoked_at, expires_at) < now() - $1::bigint * interval '1 microsecond'`, grace.Microseconds())
	if err != nil {
		return 0, fmt.Errorf("purge tokens: %w", err)
	}
	return tag.RowsAffected(), nil
}

// Revoke revokes token id. Revoking an already revoked token succeeds and keeps the
// original revocation time; an unknown id wraps ErrNotFound.
func (ts *Tokens) Revoke(ctx context.Context, id uuid.UUID) error {
	var found bool
	err := ts.pool.QueryRow(ctx, `
		WITH target AS (SELECT id FROM api_tokens WHERE id = $1),
		     updated AS (UPDATE api_tokens SET revoked_at = now()
		                 WHERE id = $1 AND revoked_at IS NULL RETURNING id)
		SELECT EXISTS (SELECT 1 FROM target)`, id).Scan(&found)
	if err != nil {
		return fmt.Errorf("revoke token %s: %w", id, err)
	}
	if !found {
		return fmt.Errorf("revoke token %s: %w", id, ErrNotFound)
	}
	return nil
}

// scanToken reads a token row; extra receives the columns selected after the token's own.
func scanToken(row pgx.Row, extra ...any) (Token, error) {
	var (
		tok    Token
		scopes []string
	)
	dest := append([]any{&tok.ID, &tok.Name, &scopes, &tok.ProjectKey, &tok.CreatedAt, &tok.LastUsedAt, &tok.RevokedAt, &tok.ExpiresAt}, extra...)
	if err := row.Scan(dest...); err != nil {
		return Token{}, err
	}
	tok.Scopes = make([]Scope, len(scopes))
	for i, s := range scopes {
		tok.Scopes[i] = Scope(s)
	}
	return tok, nil
}

func scopeStrings(scopes []Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// nullable stores "" as NULL, which the schema uses for "any project".
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}
