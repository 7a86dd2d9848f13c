package claude_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/provider-claude/claude"
	"github.com/memhost/memhost/sdk/provider"
)

// TestTaskIsThePromptArgument: the prompt is Claude Code's first positional argument, read as
// its parser reads options (a variadic option takes what follows it); a subcommand or no
// prompt is no task.
func TestTaskIsThePromptArgument(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		task string
	}{
		{[]string{"-p", "fix the flaky login test"}, "fix the flaky login test"},
		{[]string{"fix the flaky login test"}, "fix the flaky login test"},
		{[]string{"--model", "opus", "-p", "fix it", "--output-format", "json"}, "fix it"},
		{[]string{"--output-format=json", "--print", "fix it"}, "fix it"},
		{[]string{"--allowedTools", "Bash", "Edit", "-p", "fix it"}, "fix it"},
		{[]string{"--add-dir", "../lib", "fix it"}, ""},
		{[]string{"--resume", "fix it"}, ""},
		{[]string{"-c", "fix it"}, "fix it"},
		{[]string{"-p", "--", "--weird prompt"}, "--weird prompt"},
		{[]string{"mcp", "list"}, ""},
		{[]string{"-p"}, ""},
		{nil, ""},
	} {
		got, err := claude.New().Task(t.Context(), tc.args)
		require.NoError(t, err)
		require.Equal(t, tc.task, got, "%q", tc.args)
	}
}

// TestPromptHookAndSessionHeader: the session header reaches the MCP entry beside the token,
// and memhost's prompt hook is a UserPromptSubmit hook in the run's --settings file; with the
// user's own --settings the hook is left out and the plan says so.
func TestPromptHookAndSessionHeader(t *testing.T) {
	t.Parallel()
	s, b := setup(t, "-p", "fix it")
	s.MCP.Headers = map[string]string{provider.SessionHeader: "run-1"}
	s.PromptHook = "/opt/memhost hook prompt --cli claude --session run-1"
	plan := prepare(t, s)
	require.True(t, plan.DeliversPromptHook)
	require.True(t, plan.DeliversBanner)
	require.JSONEq(t, `{"mcpServers":{"memhost":{"type":"http","url":"http://127.0.0.1:7420/mcp","headers":{"Authorization":"Bearer `+b.token+`","X-Memhost-Session":"run-1"}}}}`,
		string(file(t, plan, "mcp.json").Content))
	require.Contains(t, plan.Args, "--settings="+filepath.Join(b.scratch, "settings.json"))
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Command string
				Timeout       int
			}
		}
	}
	require.NoError(t, json.Unmarshal(file(t, plan, "settings.json").Content, &settings))
	require.Len(t, settings.Hooks, 1, "the banner went by its flag")
	h := settings.Hooks["UserPromptSubmit"][0].Hooks[0]
	require.Equal(t, s.PromptHook, h.Command)
	require.Equal(t, 10, h.Timeout)

	// Banner through a hook too: both hooks in the one settings file.
	s.Args = []string{"--append-system-prompt", "be terse", "-p", "fix it"}
	plan = prepare(t, s)
	require.NoError(t, json.Unmarshal(file(t, plan, "settings.json").Content, &settings))
	require.Len(t, settings.Hooks, 2)

	s.Args = []string{"--settings", "/etc/mine.json", "-p", "fix it"}
	plan = prepare(t, s)
	require.False(t, plan.DeliversPromptHook, "the user's --settings leaves no room")
	for _, a := range plan.Args[:len(plan.Args)-4] {
		require.NotContains(t, a, "--settings")
	}
}
