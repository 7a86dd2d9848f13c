package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHelpShowsTheConfiguredAddress: --help describes the configuration in effect, not the
// built-in one: with server.listen on another port, memhost run --help shows that address as
// --server.listen's default and the URL --host defaults to, never 7420.
func TestHelpShowsTheConfiguredAddress(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "memhost.toml")
	require.NoError(t, os.WriteFile(cfg, []byte("[server]\nlisten = \"0.0.0.0:7499\"\n[log]\nlevel = \"warn\"\n"), 0o600))
	out, err := run(t, "run", "--help", "--config", cfg)
	require.NoError(t, err)
	require.Contains(t, out, `--server.listen string     HTTP listen address (host:port) (default "0.0.0.0:7499")`)
	require.Contains(t, out, "(default http://127.0.0.1:7499, from server.listen)")
	require.Contains(t, out, `(default "warn")`)
	require.NotContains(t, out, "7420")

	out, err = run(t, "run", "--help", "--config", filepath.Join(t.TempDir(), "missing.toml"))
	require.NoError(t, err, "a configuration that does not load still gets help")
	require.Contains(t, out, `(default "127.0.0.1:7420")`)
}
