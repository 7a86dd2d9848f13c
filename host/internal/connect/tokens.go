package connect

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/memhost/memhost/host/internal/auth"
)

// MintTokens mints the connection's token through the token store (the database the
// configuration names, as `memhost token create` does): read and write, any project, no
// expiry; Revoke revokes it.
type MintTokens struct {
	Store *auth.Tokens
}

var _ Tokens = MintTokens{}

// Mint creates the token.
func (m MintTokens) Mint(ctx context.Context, name string) (string, string, error) {
	plain, tok, err := m.Store.Create(ctx, auth.CreateToken{Name: name, Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	if err != nil {
		return "", "", fmt.Errorf("mint the connection's token: %w", err)
	}
	return plain, tok.ID.String(), nil
}

// Revoke revokes the token.
func (m MintTokens) Revoke(ctx context.Context, id string) error {
	tid, err := uuid.Parse(id)
	if err != nil {
		return fmt.Errorf("token id %q: %w", id, err)
	}
	return m.Store.Revoke(ctx, tid)
}

// StaticToken registers a token the operator gave (MEMHOST_TOKEN) as it is; it is theirs, so
// undo leaves it alone.
type StaticToken string

var _ Tokens = StaticToken("")

// Mint returns the token, with no id to revoke.
func (s StaticToken) Mint(context.Context, string) (string, string, error) {
	if s == "" {
		return "", "", fmt.Errorf("no token: configure database.url to mint one, or pass --token")
	}
	return string(s), "", nil
}

// Revoke does nothing: the token is the operator's.
func (StaticToken) Revoke(context.Context, string) error { return nil }
