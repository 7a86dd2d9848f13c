package claude_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-claude/claude"
	"github.com/memhost/memhost/sdk/provider"
)

// TestConnectAddsAUserScopeServerAndAHook: `claude mcp add --scope user` (undone by `mcp
// remove`) in CLAUDE_CONFIG_DIR's .claude.json, and the SessionStart, SessionEnd and
// UserPromptSubmit hooks (timeout in seconds) in its settings.json; a server already there is
// reported.
func TestConnectAddsAUserScopeServerAndAHook(t *testing.T) {
	t.Parallel()
	home, dir := t.TempDir(), t.TempDir()
	r := provider.ConnectRequest{
		Env: map[string]string{"HOME": home, "CLAUDE_CONFIG_DIR": dir}, Memhost: "/opt/memhost", Config: "/srv/m.toml", Hook: "/opt/memhost hook session-start --cli claude",
	}
	c, err := claude.New().Connect(t.Context(), r)
	require.NoError(t, err)
	require.Equal(t, []provider.ConnectStep{
		{File: filepath.Join(dir, ".claude.json"), Run: &provider.Command{
			Args:     []string{"mcp", "add", "--scope", "user", "memhost", "-e", "MEMHOST_CONFIG=/srv/m.toml", "--", "/opt/memhost", "mcp"},
			UndoArgs: []string{"mcp", "remove", "--scope", "user", "memhost"},
		}},
		{File: filepath.Join(dir, "settings.json"), JSONAppend: &provider.JSONAppend{
			Path:  []string{"hooks", "SessionStart"},
			Value: `{"hooks":[{"type":"command","command":"/opt/memhost hook session-start --cli claude","timeout":10}]}`,
		}},
		{File: filepath.Join(dir, "settings.json"), JSONAppend: &provider.JSONAppend{
			Path:  []string{"hooks", "SessionEnd"},
			Value: `{"hooks":[{"type":"command","command":"/opt/memhost hook session-end --cli claude","timeout":15}]}`,
		}},
		{File: filepath.Join(dir, "settings.json"), JSONAppend: &provider.JSONAppend{
			Path:  []string{"hooks", "UserPromptSubmit"},
			Value: `{"hooks":[{"type":"command","command":"/opt/memhost hook prompt --cli claude","timeout":10}]}`,
		}},
	}, c.Steps)
	require.Empty(t, c.RegisteredIn)

	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude.json"), []byte(`{"mcpServers": {"memhost": {}}}`), 0o600))
	c, err = claude.New().Connect(t.Context(), r)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, ".claude.json"), c.RegisteredIn)
}
