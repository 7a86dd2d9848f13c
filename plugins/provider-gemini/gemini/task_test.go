package gemini_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-gemini/gemini"
	"github.com/memhost/memhost/sdk/provider"
)

// TestTaskIsThePrompt: -p/--prompt, -i/--prompt-interactive, else the positional query's words;
// a management command carries none.
func TestTaskIsThePrompt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		task string
	}{
		{[]string{"-p", "fix the flaky login test", "-o", "json"}, "fix the flaky login test"},
		{[]string{"--prompt=fix it"}, "fix it"},
		{[]string{"-i", "fix it"}, "fix it"},
		{[]string{"fix", "the", "flaky", "test"}, "fix the flaky test"},
		{[]string{"-m", "gemini-3", "fix it"}, "fix it"},
		{[]string{"--include-directories", "../lib", "fix it"}, ""},
		{[]string{"mcp", "list"}, ""},
		{[]string{"-y"}, ""},
	} {
		got, err := gemini.New().Task(t.Context(), tc.args)
		require.NoError(t, err)
		require.Equal(t, tc.task, got, "%q", tc.args)
	}
}

// TestPromptHookAndSessionHeader: the session header beside the token in the scratch
// settings.json, and memhost's prompt hook after the user's own BeforeAgent hooks; the user's
// file is left as it was.
func TestPromptHookAndSessionHeader(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "fix it")
	own := `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": "my-linter"}]}]}}`
	require.NoError(t, os.WriteFile(filepath.Join(b.user, "settings.json"), []byte(own), 0o600))
	s.MCP.Headers = map[string]string{provider.SessionHeader: "run-9"}
	s.PromptHook = "/opt/memhost hook prompt --cli gemini --session run-9"
	plan := prepare(t, s)
	require.True(t, plan.DeliversPromptHook)
	var settings struct {
		MCPServers map[string]struct{ Headers map[string]string }
		Hooks      map[string][]struct {
			Hooks []struct {
				Command string
				Timeout int
			}
		}
	}
	require.NoError(t, json.Unmarshal(files(plan)["gemini-home/.gemini/settings.json"].Content, &settings))
	require.Equal(t, map[string]string{"Authorization": "Bearer " + b.token, provider.SessionHeader: "run-9"}, settings.MCPServers["memhost"].Headers)
	before := settings.Hooks["BeforeAgent"]
	require.Len(t, before, 2)
	require.Equal(t, "my-linter", before[0].Hooks[0].Command)
	require.Equal(t, s.PromptHook, before[1].Hooks[0].Command)
	require.Equal(t, 10000, before[1].Hooks[0].Timeout)
	user, err := os.ReadFile(filepath.Join(b.user, "settings.json"))
	require.NoError(t, err)
	require.Equal(t, own, string(user))
}
