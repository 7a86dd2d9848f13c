package access

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
)

func TestParseBearer(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"Bearer mh_abc":     "mh_abc",
		"bearer mh_abc":     "mh_abc",
		"BEARER   mh_abc  ": "mh_abc",
	} {
		got, err := ParseBearer(header)
		require.NoError(t, err, header)
		require.Equal(t, want, got, header)
	}
	for _, header := range []string{"", "Bearer", "Bearer ", "Basic dXNlcjpwYXNz", "Bearer Bearer mh_abc", "Bearer a b", "mh_abc"} {
		_, err := ParseBearer(header)
		require.ErrorIs(t, err, auth.ErrUnauthenticated, header)
	}
}

// fakeTokens answers like auth.Tokens: unknown and revoked are different internally.
type fakeTokens struct{ err error }

func (f fakeTokens) Authenticate(_ context.Context, token string) (auth.Principal, error) {
	switch {
	case f.err != nil:
		return auth.Principal{}, f.err
	case token == "mh_good":
		return auth.Principal{Name: "good", Scopes: []auth.Scope{auth.ScopeRead}}, nil
	case token == "mh_revoked":
		return auth.Principal{}, fmt.Errorf("%w: token revoked", auth.ErrUnauthenticated)
	}
	return auth.Principal{}, fmt.Errorf("%w: unknown token", auth.ErrUnauthenticated)
}

func TestDoorTellsNothingAboutRefusedTokens(t *testing.T) {
	t.Parallel()
	d := NewDoor(fakeTokens{})
	p, err := d.Authenticate(context.Background(), "bearer mh_good")
	require.NoError(t, err)
	require.Equal(t, "good", p.Name)
	_, revoked := d.Authenticate(context.Background(), "Bearer mh_revoked")
	_, unknown := d.Authenticate(context.Background(), "Bearer mh_unknown")
	require.ErrorIs(t, revoked, auth.ErrUnauthenticated)
	require.Equal(t, unknown.Error(), revoked.Error(), "a revoked token is told the same as an unknown one")

	down := NewDoor(fakeTokens{err: &pgconn.ConnectError{}})
	_, err = down.Authenticate(context.Background(), "Bearer mh_good")
	p2 := Classify(err)
	require.Equal(t, http.StatusServiceUnavailable, p2.Status)
	require.Positive(t, p2.RetryAfter)
}

func TestResolveProject(t *testing.T) {
	t.Parallel()
	dev := auth.Principal{Name: "dev", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}}
	bound := auth.Principal{Name: "ci", Scopes: []auth.Scope{auth.ScopeWrite}, ProjectKey: "sec-B"}

	a, err := Resolve(dev, Target{Project: " sec-B "})
	require.NoError(t, err)
	require.Equal(t, "sec-B", a.Project, "keys are trimmed on every surface")
	a, err = Resolve(bound, Target{Project: " sec-B "})
	require.NoError(t, err)
	require.Equal(t, "sec-B", a.Project)
	_, err = Resolve(bound, Target{Project: "sec-A"})
	require.ErrorIs(t, err, auth.ErrForbidden)

	for name, key := range map[string]string{
		"nul": "a\x00b", "invalid utf-8": "a\xffb", "escape": "a\x1b[31mb", "newline": "a\nb",
		"oversized": strings.Repeat("k", 100_000), "blank": "   ",
	} {
		_, err := Resolve(dev, Target{Project: key})
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, name)
		require.Equal(t, "project", fe.Field, name)
		require.Equal(t, http.StatusBadRequest, Classify(err).Status, name)
	}
	_, err = Resolve(dev, Target{})
	require.ErrorContains(t, err, "project: is required")
}

func TestResolveCwdNeverRevealsHostPaths(t *testing.T) {
	t.Parallel()
	dev := auth.Principal{Name: "dev", Scopes: []auth.Scope{auth.ScopeRead}}
	dir := t.TempDir()
	a, err := Resolve(dev, Target{Cwd: dir})
	require.NoError(t, err)
	require.NotEmpty(t, a.Project)

	home, _ := os.UserHomeDir()
	for _, cwd := range []string{"~/app", ".", "relative/dir", filepath.Join(home, ".ssh-memhost-absent", "x"), "/" + strings.Repeat("d", 5000)} {
		_, err := Resolve(dev, Target{Cwd: cwd})
		var fe *rules.FieldError
		require.ErrorAs(t, err, &fe, cwd)
		require.Equal(t, "cwd", fe.Field)
		require.NotContains(t, err.Error(), "lstat", cwd)
		require.NotContains(t, err.Error(), "no such file", cwd)
		if wd, _ := os.Getwd(); wd != "" {
			require.NotContains(t, err.Error(), wd, "the host's own directory never shows")
		}
	}
	// A bound token ignores a cwd that only exists on the client's machine.
	bound := auth.Principal{Name: "ci", Scopes: []auth.Scope{auth.ScopeRead}, ProjectKey: "p"}
	a, err = Resolve(bound, Target{Cwd: "/client/only/path"})
	require.NoError(t, err)
	require.Equal(t, "p", a.Project)
}

func TestClassify(t *testing.T) {
	t.Parallel()
	cases := []struct {
		err    error
		status int
		code   string
		retry  bool
	}{
		{&rules.FieldError{Field: "text", Message: "must not be empty"}, 400, "invalid_argument", false},
		{&RateLimited{After: 1500 * time.Millisecond, Token: "t"}, 429, "rate_limited", true},
		{fmt.Errorf("x: %w", auth.ErrUnauthenticated), 401, "unauthenticated", false},
		{fmt.Errorf("x: %w", rules.ErrForbidden), 403, "forbidden", false},
		{fmt.Errorf("memory %s: %w", uuid.New(), rules.ErrNotFound), 404, "not_found", false},
		{fmt.Errorf("x: %w", rules.ErrConflict), 409, "conflict", false},
		{fmt.Errorf("x: %w", rules.ErrRejected), 422, "rejected", false},
		{fmt.Errorf("x: %w", rules.ErrUnavailable), 503, "unavailable", true},
		{fmt.Errorf("write memory: %w", &pgconn.ConnectError{}), 503, "unavailable", true},
		{fmt.Errorf("write memory: %w", syscall.ECONNREFUSED), 503, "unavailable", true},
		{fmt.Errorf("write memory: %w", &pgconn.PgError{Code: "57P01"}), 503, "unavailable", true},
		{fmt.Errorf("q: %w", &pgconn.PgError{Code: "23505", Message: "duplicate key"}), 500, "internal", false},
		{errors.New("encode history detail: json: unsupported value: NaN"), 500, "internal", false},
	}
	for _, tc := range cases {
		p := Classify(tc.err)
		require.Equal(t, tc.status, p.Status, tc.err.Error())
		require.Equal(t, tc.code, p.Code, tc.err.Error())
		require.Equal(t, tc.retry, p.RetryAfter > 0, tc.err.Error())
		if p.Internal {
			require.NotContains(t, p.Message, "NaN")
			require.NotContains(t, p.Message, "duplicate")
		}
	}
	require.Equal(t, 2, RetrySeconds(1500*time.Millisecond))
}

// TestDirOfProjectNeverWalksRootOrHome: a token that is not bound to a project acts for any
// key, "/" included, so the root, the home directory and what lies above it are never walked
// to build a map, even when the key matches; a project's own directory is.
func TestDirOfProjectNeverWalksRootOrHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	proj := filepath.Join(home, "src", "app")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	link := filepath.Join(t.TempDir(), "root-link")
	require.NoError(t, os.Symlink("/", link))
	for _, dir := range []string{"/", home, filepath.Dir(home), link} {
		key, err := keyOfCwd(dir)
		require.NoError(t, err, dir)
		require.False(t, DirOfProject(dir, key), "%s must not be walked", dir)
	}
	key, err := keyOfCwd(proj)
	require.NoError(t, err)
	require.True(t, DirOfProject(proj, key), "a project's directory under home is walked")
	require.False(t, DirOfProject(proj, "github.com/acme/other"), "a directory of another project is not")
}
