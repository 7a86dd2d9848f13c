package codex_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-codex/codex"
	"github.com/memhost/memhost/sdk/provider"
)

// TestTaskIsThePrompt: the prompt of `codex exec` or of an interactive start, read as clap
// reads Codex's options; stdin ("-"), management and session commands carry none.
func TestTaskIsThePrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		task string
	}{
		{[]string{"exec", "--json", "--skip-git-repo-check", "fix the flaky login test"}, "fix the flaky login test"},
		{[]string{"-m", "o3", "exec", "fix it"}, "fix it"},
		{[]string{"e", "-c", `model="o3"`, "fix it"}, "fix it"},
		{[]string{"fix it"}, "fix it"},
		{[]string{"exec", "-"}, ""},
		{[]string{"exec", "resume", "--last"}, ""},
		{[]string{"exec", "-i", "a.png", "b.png", "fix it"}, ""},
		{[]string{"exec", "-i", "a.png", "--json", "fix it"}, "fix it"},
		{[]string{"login"}, ""},
		{[]string{"resume"}, ""},
		{nil, ""},
	} {
		got, err := codex.New().Task(t.Context(), tc.args)
		require.NoError(t, err)
		require.Equal(t, tc.task, got, "%q", tc.args)
	}
}

// TestTheSessionHeaderReachesTheMCPEntry: X-Memhost-Session beside the token in
// [mcp_servers.memhost.http_headers].
func TestTheSessionHeaderReachesTheMCPEntry(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	home := filepath.Join(root, "home")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".codex"), 0o700))
	s := provider.Spawn{CLI: "codex", Executable: "/usr/bin/codex", Args: []string{"exec", "hi"}, Dir: root, ScratchDir: root,
		Env: map[string]string{"HOME": home}, Banner: "b",
		MCP: &provider.MCPServer{Name: "memhost", URL: "http://127.0.0.1:7420/mcp", Token: "tok", Headers: map[string]string{provider.SessionHeader: "run-3"}}}
	plan, err := codex.New().Prepare(t.Context(), s)
	require.NoError(t, err)
	var cfg string
	for _, f := range plan.Files {
		if f.Path == "codex-home/config.toml" {
			cfg = string(f.Content)
		}
	}
	require.Contains(t, cfg, `X-Memhost-Session = 'run-3'`)
	require.Contains(t, cfg, `Authorization = 'Bearer tok'`)
}
