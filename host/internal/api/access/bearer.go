package access

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// Authenticator checks one token (without its scheme). *auth.Tokens implements it.
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (auth.Principal, error)
}

var _ Authenticator = (*auth.Tokens)(nil)

// ParseBearer returns the token of an Authorization header value. The scheme is matched
// case-insensitively (RFC 9110 §11.1) and must be followed by exactly one token: "Bearer",
// "Basic x" and "Bearer a b" (which includes "Bearer Bearer x") are refused.
func ParseBearer(header string) (string, error) {
	fields := strings.Fields(header)
	switch {
	case len(fields) == 0:
		return "", fmt.Errorf("%w: missing bearer token: send Authorization: Bearer <memhost token> (create one with `memhost token create`)", auth.ErrUnauthenticated)
	case !strings.EqualFold(fields[0], "bearer"):
		return "", fmt.Errorf("%w: the Authorization scheme must be Bearer", auth.ErrUnauthenticated)
	case len(fields) != 2:
		return "", fmt.Errorf("%w: Authorization must be exactly \"Bearer <token>\"", auth.ErrUnauthenticated)
	}
	return fields[1], nil
}

// Door authenticates callers for every surface.
type Door struct {
	auth Authenticator
}

// NewDoor returns the front door over an authenticator.
func NewDoor(a Authenticator) *Door { return &Door{auth: a} }

// errBadToken is what every refused token is told: an unknown token, a revoked one and a
// malformed one look the same from outside.
var errBadToken = fmt.Errorf("%w: invalid, expired or revoked token", auth.ErrUnauthenticated)

// Authenticate turns an Authorization header value into the principal it authenticates.
// Errors wrap auth.ErrUnauthenticated (the caller's fault; the message never says which
// check failed) or are unavailable errors (the token store could not be asked).
func (d *Door) Authenticate(ctx context.Context, header string) (auth.Principal, error) {
	token, err := ParseBearer(header)
	if err != nil {
		return auth.Principal{}, err
	}
	return d.AuthenticateToken(ctx, token)
}

// AuthenticateRequest authenticates an HTTP request by its Authorization header, which must
// be sent once: with two, a proxy that checks the first and a host that used another would
// disagree about who is calling, so the request is refused rather than one of them picked.
func (d *Door) AuthenticateRequest(r *http.Request) (auth.Principal, error) {
	if n := len(r.Header.Values("Authorization")); n > 1 {
		return auth.Principal{}, fmt.Errorf("%w: send exactly one Authorization header (this request has %d)", auth.ErrUnauthenticated, n)
	}
	return d.Authenticate(r.Context(), r.Header.Get("Authorization"))
}

// AuthenticateToken authenticates a bare token (stdio reads it from MEMHOST_TOKEN).
func (d *Door) AuthenticateToken(ctx context.Context, token string) (auth.Principal, error) {
	p, err := d.auth.Authenticate(ctx, strings.TrimSpace(token))
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, auth.ErrUnauthenticated):
		return auth.Principal{}, errBadToken
	case ctx.Err() != nil:
		return auth.Principal{}, err
	}
	return auth.Principal{}, fmt.Errorf("%w: check token: %w", ErrUnavailable, err)
}
