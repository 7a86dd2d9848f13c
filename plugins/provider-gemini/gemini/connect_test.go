package gemini_test

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-gemini/gemini"
	"github.com/memhost/memhost/sdk/provider"
)

// TestConnectAddsATrustedServerAndAHook: `gemini mcp add ... --trust` with -e after the
// positionals, and the SessionStart and BeforeAgent (prompt) hooks (timeout in milliseconds),
// all in GEMINI_CLI_HOME's settings.json.
func TestConnectAddsATrustedServerAndAHook(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := gemini.New().Connect(t.Context(), provider.ConnectRequest{
		Env: map[string]string{"HOME": "/nowhere", "GEMINI_CLI_HOME": home}, Memhost: "/opt/memhost", Config: "/srv/m.toml", Hook: "/opt/memhost hook session-start --cli gemini",
	})
	require.NoError(t, err)
	settings := filepath.Join(home, ".gemini", "settings.json")
	require.Equal(t, []provider.ConnectStep{
		{File: settings, Run: &provider.Command{
			Args:     []string{"mcp", "add", "memhost", "/opt/memhost", "mcp", "--scope", "user", "--trust", "-e", "MEMHOST_CONFIG=/srv/m.toml"},
			UndoArgs: []string{"mcp", "remove", "--scope", "user", "memhost"},
		}},
		{File: settings, JSONAppend: &provider.JSONAppend{
			Path:  []string{"hooks", "SessionStart"},
			Value: `{"hooks":[{"type":"command","command":"/opt/memhost hook session-start --cli gemini","timeout":10000}]}`,
		}},
		{File: settings, JSONAppend: &provider.JSONAppend{
			Path:  []string{"hooks", "BeforeAgent"},
			Value: `{"hooks":[{"type":"command","command":"/opt/memhost hook prompt --cli gemini","timeout":10000}]}`,
		}},
	}, c.Steps)
}
