package access

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

// fakeSessions is fakeTokens with console sessions.
type fakeSessions struct{ fakeTokens }

func (f fakeSessions) AuthenticateSession(_ context.Context, session string) (auth.Principal, error) {
	switch {
	case f.err != nil:
		return auth.Principal{}, f.err
	case session == "mhs_good":
		return auth.Principal{Name: "good", Scopes: []auth.Scope{auth.ScopeRead}, ProjectKey: "github.com/o/r"}, nil
	case session == "mhs_signed_out":
		return auth.Principal{}, fmt.Errorf("%w: signed out", auth.ErrUnauthenticated)
	}
	return auth.Principal{}, fmt.Errorf("%w: unknown session", auth.ErrUnauthenticated)
}

// TestDoorAuthenticatesConsoleSessions: a session is its token's principal; an ended and an
// unknown session are told the same, with how to sign in again; a database outage is a
// retryable unavailable, not a sign-out; a door whose authenticator has no sessions refuses
// every session.
func TestDoorAuthenticatesConsoleSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d := NewDoor(fakeSessions{})
	p, err := d.AuthenticateSession(ctx, "mhs_good")
	require.NoError(t, err)
	require.Equal(t, "github.com/o/r", p.ProjectKey)
	_, ended := d.AuthenticateSession(ctx, "mhs_signed_out")
	_, unknown := d.AuthenticateSession(ctx, "mhs_nope")
	require.ErrorIs(t, ended, auth.ErrUnauthenticated)
	require.Equal(t, unknown.Error(), ended.Error())
	require.Contains(t, ended.Error(), "memhost console")
	require.Equal(t, http.StatusUnauthorized, Classify(ended).Status)

	_, err = NewDoor(fakeSessions{fakeTokens{err: &pgconn.ConnectError{}}}).AuthenticateSession(ctx, "mhs_good")
	require.Equal(t, http.StatusServiceUnavailable, Classify(err).Status)

	_, err = NewDoor(fakeTokens{}).AuthenticateSession(ctx, "mhs_good")
	require.ErrorIs(t, err, auth.ErrUnauthenticated)
}
