//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// TestClaudeCode runs `claude -p --output-format json` against the Anthropic stand-in.
func TestClaudeCode(t *testing.T) {
	t.Parallel()
	bin := cliPath(t, claudeCode)

	// The banner appended to the system prompt; memhost's MCP server from --mcp-config. Its
	// tools arrive deferred, so the stand-in loads memory_store through ToolSearch first.
	t.Run("append-system-prompt and MCP round trip", func(t *testing.T) {
		b := setup(t, standin.Anthropic)
		// The token stays out of argv: Claude Code expands ${VAR} in --mcp-config headers.
		mcp, err := json.Marshal(map[string]any{"mcpServers": map[string]any{"memhost": map[string]any{
			"type": "http", "url": b.host.mcpURL(), "headers": map[string]string{"Authorization": "Bearer ${MEMHOST_TOKEN}"},
		}}})
		require.NoError(t, err)
		run := runCLI(t, b.work, claudeEnv(t, b), bin, "-p", prompt, "--output-format", "json",
			"--append-system-prompt", b.banner(),
			"--mcp-config", string(mcp), "--strict-mcp-config",
			"--allowedTools", "mcp__memhost__memory_store")
		requireClaudeResult(t, run)
		b.prove(t, run, "mcp__memhost__memory_store")
		calls := b.model.Calls()
		require.True(t, calls[0].Loader, "memory_store was offered up front, not deferred")
		require.Equal(t, "ToolSearch", calls[0].Name)
	})

	// The banner from a SessionStart hook given with --settings (what `memhost connect` installs).
	t.Run("SessionStart hook", func(t *testing.T) {
		b := setup(t, standin.Anthropic, standin.Say(doneText))
		settings, err := json.Marshal(map[string]any{"hooks": map[string]any{"SessionStart": []any{
			map[string]any{"hooks": []any{map[string]any{"type": "command", "command": b.hookScript(t)}}},
		}}})
		require.NoError(t, err)
		run := runCLI(t, b.work, claudeEnv(t, b), bin, "-p", prompt, "--output-format", "json", "--settings", string(settings))
		requireClaudeResult(t, run)
		b.requireSentinel(t, run)
	})
}

// claudeEnv points Claude Code at the stand-in with a relocated config folder.
func claudeEnv(t *testing.T, b *bundle) []string {
	return b.env(t,
		"CLAUDE_CONFIG_DIR="+filepath.Join(b.home, ".claude"),
		"ANTHROPIC_BASE_URL="+b.model.URL(),
		"ANTHROPIC_API_KEY="+apiKey(),
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
	)
}

func requireClaudeResult(t *testing.T, run cliRun) {
	t.Helper()
	require.Zero(t, run.exitCode, "stdout:\n%s\nstderr:\n%s", run.stdout, run.stderr)
	var out struct {
		Type    string `json:"type"`
		IsError bool   `json:"is_error"`
		Result  string `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(run.stdout), &out), run.stdout)
	require.Equal(t, "result", out.Type)
	require.False(t, out.IsError, run.stdout)
	require.Equal(t, doneText, out.Result)
}
