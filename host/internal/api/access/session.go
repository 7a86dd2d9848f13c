package access

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// SessionAuthenticator checks an operator console session (the browser's cookie): the
// session acts as the token it was opened for. *auth.Tokens implements it.
type SessionAuthenticator interface {
	AuthenticateSession(ctx context.Context, session string) (auth.Principal, error)
}

var _ SessionAuthenticator = (*auth.Tokens)(nil)

// errSessionEnded is what every refused console session is told.
var errSessionEnded = fmt.Errorf("%w: your console session has ended (signed out, expired, or its token was revoked); sign in again with `memhost console`", auth.ErrUnauthenticated)

// AuthenticateSession is the console's way through the front door: the session id from its
// cookie becomes the principal of the token the session was opened for, with that token's
// scopes and project binding, so the console reaches exactly what the token reaches over
// REST. Errors are mapped as AuthenticateToken maps them.
func (d *Door) AuthenticateSession(ctx context.Context, session string) (auth.Principal, error) {
	sa, ok := d.auth.(SessionAuthenticator)
	if !ok {
		return auth.Principal{}, errSessionEnded
	}
	p, err := sa.AuthenticateSession(ctx, session)
	switch {
	case err == nil:
		return p, nil
	case errors.Is(err, auth.ErrUnauthenticated):
		return auth.Principal{}, errSessionEnded
	case ctx.Err() != nil:
		return auth.Principal{}, err
	}
	return auth.Principal{}, fmt.Errorf("%w: check console session: %w", ErrUnavailable, err)
}
