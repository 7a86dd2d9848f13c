package hostclient_test

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/client/hostclient"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

const projectA = "github.com/acme/app"

// testHost is a real host, started in-process on a schema of its own: the routes, the front
// door and the MCP endpoint a client reaches in production.
type testHost struct {
	core *server.Core
	url  string
}

func startHost(t *testing.T) *testHost {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf("[database]\nurl = %q\n[plugins]\ndirs = [%q]\n[log]\nlevel = \"warn\"\n", testdb.Schema(t), testplugins.Dir(t))
	require.NoError(t, os.WriteFile(cfgPath, []byte(body), 0o600))
	cfg, err := config.Load(context.Background(), config.LoadOptions{ConfigPath: cfgPath})
	require.NoError(t, err)
	core, err := server.Open(context.Background(), cfg, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	handler, closeMCP := core.Handler()
	srv := httptest.NewServer(handler)
	t.Cleanup(func() {
		srv.Close()
		closeMCP()
		core.Close(context.Background())
	})
	return &testHost{core: core, url: srv.URL}
}

// client is a Client of the host.
func (h *testHost) client() *hostclient.Client { return &hostclient.Client{URL: h.url} }

// token mints a token with scopes, bound to project unless it is "".
func (h *testHost) token(t *testing.T, project string, scopes ...auth.Scope) string {
	t.Helper()
	tok, _, err := h.core.Tokens.Create(context.Background(), auth.CreateToken{Name: "test", Scopes: scopes, ProjectKey: project})
	require.NoError(t, err)
	return tok
}

// operator acts on project with the admin grant, as a host-side caller.
func operator(project string) memory.Access {
	return memory.Access{Project: project, Admin: true, Actor: "operator"}
}

// closedURL is the URL of a port nothing listens on.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}
