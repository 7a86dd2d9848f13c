package codex_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-codex/codex"
	"github.com/memhost/memhost/sdk/provider"
)

func connectRequest(home string) provider.ConnectRequest {
	return provider.ConnectRequest{Env: map[string]string{"HOME": home}, Memhost: "/opt/memhost", Config: "/srv/memhost.toml"}
}

// TestConnectAppendsAStdioServerTable: config.toml gets memhost's table, found again on undo up
// to the next table; no command runs (Codex has no `mcp add` memhost relies on).
func TestConnectAppendsAStdioServerTable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	c, err := codex.New().Connect(t.Context(), connectRequest(home))
	require.NoError(t, err)
	require.Equal(t, []provider.ConnectStep{{File: filepath.Join(home, ".codex", "config.toml"), TextAppend: &provider.TextAppend{
		Text:        "# Added by memhost connect (memhost connect --undo codex removes it).\n[mcp_servers.memhost]\ncommand = '/opt/memhost'\nargs = [\"mcp\"]\nenv = { MEMHOST_CONFIG = '/srv/memhost.toml' }\n",
		UntilPrefix: "[",
	}}}, c.Steps)
	require.Empty(t, c.RegisteredIn)
}

// TestConnectSeesAServerRegisteredOutsideIt and refuses a config.toml the table would break.
func TestConnectSeesAServerRegisteredOutsideIt(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	config := filepath.Join(home, ".codex", "config.toml")
	require.NoError(t, os.MkdirAll(filepath.Dir(config), 0o700))
	require.NoError(t, os.WriteFile(config, []byte("[mcp_servers.memhost]\nurl = \"http://x/mcp\"\n"), 0o600))
	c, err := codex.New().Connect(t.Context(), connectRequest(home))
	require.NoError(t, err)
	require.Equal(t, config, c.RegisteredIn)

	require.NoError(t, os.WriteFile(config, []byte("mcp_servers = { github = { command = \"gh\" } }\n"), 0o600))
	_, err = codex.New().Connect(t.Context(), connectRequest(home))
	require.ErrorContains(t, err, "would not parse with [mcp_servers.memhost] appended (is mcp_servers an inline table?)")
}

// TestConnectAddsThePromptHookToHooksJSON: with memhost's hook command, hooks.json in CODEX_HOME
// gets the prompt hook as a UserPromptSubmit hook (Codex runs it once the user trusts it).
func TestConnectAddsThePromptHookToHooksJSON(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	r := connectRequest(home)
	r.Hook = "/opt/memhost --config /srv/memhost.toml hook session-start --cli codex"
	c, err := codex.New().Connect(t.Context(), r)
	require.NoError(t, err)
	require.Len(t, c.Steps, 2)
	require.Equal(t, provider.ConnectStep{File: filepath.Join(home, ".codex", "hooks.json"), JSONAppend: &provider.JSONAppend{
		Path:  []string{"hooks", "UserPromptSubmit"},
		Value: `{"hooks":[{"command":"/opt/memhost --config /srv/memhost.toml hook prompt --cli codex","type":"command"}]}`,
	}}, c.Steps[1])
	require.NoError(t, c.Validate())
}
