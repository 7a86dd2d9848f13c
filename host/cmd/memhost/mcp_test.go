package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMCPRefusesTheRootAndHome: `memhost mcp` started in / or in the home directory (or
// above it) refuses with the fix instead of binding project "/" that every such session
// would share; --project names the project instead. Not parallel: it changes directory.
func TestMCPRefusesTheRootAndHome(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("MEMHOST_TOKEN", "")
	cfg := writeConfig(t, t.TempDir(), "")
	for _, dir := range []string{"/", home, filepath.Dir(home)} {
		t.Chdir(dir)
		_, err := run(t, "mcp", "--config", cfg)
		require.Error(t, err, dir)
		require.Contains(t, err.Error(), dir+" is the root or the home directory (or above it), which holds many projects, not one", dir)
		require.Contains(t, err.Error(), "run memhost in the project's directory, or pass --project KEY", dir)
	}

	// With --project, or in a project's directory, it serves until its stdin ends.
	t.Chdir("/")
	require.NoError(t, serveMCP(t, "--config", cfg, "--project", "github.com/acme/app"))
	proj := filepath.Join(home, "src", "app")
	require.NoError(t, os.MkdirAll(proj, 0o755))
	t.Chdir(proj)
	require.NoError(t, serveMCP(t, "--config", cfg))
}

// serveMCP runs `memhost mcp` with args on an empty stdin.
func serveMCP(t *testing.T, args ...string) error {
	t.Helper()
	var out bytes.Buffer
	root := rootCmd()
	root.SetArgs(append([]string{"mcp"}, args...))
	root.SetIn(strings.NewReader(""))
	root.SetOut(&out)
	root.SetErr(&out)
	return root.ExecuteContext(t.Context())
}
