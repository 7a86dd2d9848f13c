package main

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestHealthSaysWhenNothingChecksForConflicts: with no worker able to serve the conflicts chain
// (its only worker's plugin is not installed), `memhost project health` through the running
// host says conflict checking is off and why, instead of showing "0 open" as if the project
// had no contradictions; with a worker that serves it, checking is on. Without a token the
// command asks the host all the same (with the operator's own token); with no host answering,
// its own core runs no workers and says it cannot tell.
func TestHealthSaysWhenNothingChecksForConflicts(t *testing.T) {
	t.Parallel()
	api := testplugins.NewOpenAI(t, "", `{"conflicts":[]}`)
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"no worker", []string{testplugins.Dir(t)}, "conflicts:  conflict checking is off: no worker for `conflicts` (local: "},
		{"a worker", []string{testplugins.Dir(t), testplugins.Workers(t)}, "conflicts:  0 open\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ln := httptest.NewUnstartedServer(nil)
			cfg := filepath.Join(t.TempDir(), "memhost.toml")
			dirs := fmt.Sprintf("%q", c.dirs[0])
			for _, d := range c.dirs[1:] {
				dirs += fmt.Sprintf(", %q", d)
			}
			body := fmt.Sprintf("[server]\nlisten = %q\n[database]\nurl = %q\n[plugins]\ndirs = [%s]\n[log]\nlevel = \"warn\"\n"+
				"[workers.local]\nplugin = \"openaicompat\"\nbase_url = \"%s/v1\"\nmodel = \"good\"\n[workers.chains]\nconflicts = [\"local\"]\n",
				ln.Listener.Addr().String(), testdb.Schema(t), dirs, api.URL)
			require.NoError(t, os.WriteFile(cfg, []byte(body), 0o600))
			core := serveCore(t, ln, cfg, true)
			token, _, err := core.Tokens.Create(context.Background(), auth.CreateToken{Name: "reader", Scopes: []auth.Scope{auth.ScopeRead}})
			require.NoError(t, err)

			out, err := run(t, "project", "health", "--config", cfg, "--project", cliProject, "--token", token)
			require.NoError(t, err, out)
			require.Contains(t, out, c.want)

			out, err = run(t, "project", "health", "--config", cfg, "--project", cliProject, "--token", "")
			require.NoError(t, err, out)
			require.Contains(t, out, c.want)

			ln.Close()
			out, err = run(t, "project", "health", "--config", cfg, "--project", cliProject, "--token", "")
			require.NoError(t, err, out)
			require.Contains(t, out, "conflicts:  0 open (conflict checking unknown: no host answered, and this process runs no workers)")
		})
	}
}
