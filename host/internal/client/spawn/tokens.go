package spawn

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"
)

// Tokens gives a spawn the right to use memhost for one project: a bearer token, and a
// release function called when the session is over.
type Tokens interface {
	Grant(ctx context.Context, project, cli string) (token string, release func(context.Context) error, err error)
}

// Forgetter is a Tokens that can be told a token it granted was refused, so that the next
// Grant mints a fresh one.
type Forgetter interface {
	Forget(project string)
}

// DefaultTokenTTL is how long a token minted for a project lives: long enough for a working
// day's sessions.
const DefaultTokenTTL = 24 * time.Hour

// Minter mints and revokes session tokens: each bound to one project, allowed to read and
// write its memory, expiring after ttl. The token store (package auth) is one; the command
// that builds a MintTokens wires it, so the client side never imports the server's packages.
type Minter interface {
	MintSession(ctx context.Context, project, name string, ttl time.Duration) (token string, id uuid.UUID, expiresAt time.Time, err error)
	Revoke(ctx context.Context, id uuid.UUID) error
}

// MintTokens mints tokens through the token store (direct database access from the operator's
// configuration, as `memhost token create` does): bound to the project, allowed to read and
// write its memory, expiring after TTL. It holds a database connection rather than asking the
// host because minting is what gives a CLI the right to ask the host at all: the operator's
// configuration (its database URL) is the credential, and the CLI has no admin token to present.
//
// Without CacheDir each session gets its own token, revoked when the session ends. With it, a
// project's token is kept in CacheDir (a file per project, 0600) and handed to every session
// of the project while it has at least half its TTL to live, and left to expire: most spawns
// then neither connect to the database nor write to it, which is most of what minting costs a
// CLI's start.
type MintTokens struct {
	// Store returns the token store. It is called only when a token must be minted (or
	// revoked), so that connecting to the database overlaps the provider plugin's start, or is
	// not needed at all.
	Store func(ctx context.Context) (Minter, error)
	// TTL is a token's lifetime; 0 means DefaultTokenTTL.
	TTL time.Duration
	// CacheDir keeps the tokens for reuse; "" mints one per session.
	CacheDir string
}

var (
	_ Tokens    = MintTokens{}
	_ Forgetter = MintTokens{}
)

// cached is a token kept in CacheDir.
type cached struct {
	Token     string    `json:"token"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Grant returns the project's kept token, or mints one.
func (m MintTokens) Grant(ctx context.Context, project, cli string) (string, func(context.Context) error, error) {
	ttl := m.TTL
	if ttl == 0 {
		ttl = DefaultTokenTTL
	}
	keep := func(context.Context) error { return nil }
	if m.CacheDir != "" {
		if c, ok := m.load(project); ok && time.Until(c.ExpiresAt) >= ttl/2 {
			return c.Token, keep, nil
		}
	}
	store, err := m.Store(ctx)
	if err != nil {
		return "", nil, fmt.Errorf("mint a session token: %w", err)
	}
	plain, id, expires, err := store.MintSession(ctx, project, "memhost run "+cli, ttl)
	if err != nil {
		return "", nil, fmt.Errorf("mint a session token: %w", err)
	}
	if m.CacheDir == "" || m.save(project, cached{Token: plain, ExpiresAt: expires}) != nil {
		// Not kept (or it could not be): the session's own, revoked when it ends.
		return plain, func(ctx context.Context) error { return store.Revoke(ctx, id) }, nil
	}
	return plain, keep, nil
}

// Forget drops the project's kept token.
func (m MintTokens) Forget(project string) {
	if m.CacheDir != "" {
		_ = os.Remove(m.path(project))
	}
}

// path is the project's file: named by a hash, since keys hold slashes and may be long.
func (m MintTokens) path(project string) string {
	return filepath.Join(m.CacheDir, cacheName(project))
}

func (m MintTokens) load(project string) (cached, bool) {
	data, err := os.ReadFile(m.path(project))
	var c cached
	if err != nil || json.Unmarshal(data, &c) != nil || c.Token == "" {
		return cached{}, false
	}
	return c, true
}

// save writes the token atomically, readable by this user only.
func (m MintTokens) save(project string, c cached) error {
	data, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return writePrivate(m.CacheDir, cacheName(project), data)
}

// StaticToken is a token the operator gave (MEMHOST_TOKEN), used as it is and never revoked.
// It should be bound to the project: the CLI holds it for the whole session.
type StaticToken string

var _ Tokens = StaticToken("")

// Grant returns the token.
func (s StaticToken) Grant(context.Context, string, string) (string, func(context.Context) error, error) {
	return string(s), func(context.Context) error { return nil }, nil
}
