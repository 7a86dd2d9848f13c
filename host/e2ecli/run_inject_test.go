//go:build e2ecli

package e2ecli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// TestRunClaudeCode: `memhost run claude -- -p ...` gives the real Claude Code the project's
// goal and facts (the banner) and memhost's MCP server: the scripted memory_store call reaches
// memhost through the session's own project-bound token, and its result comes back.
func TestRunClaudeCode(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Anthropic)
	w := newSpawnWorld(t, b)
	goal, fact := w.seed(t)
	run := w.run(t, claudeCode, claudeEnv(t, b), "-p", prompt, "--output-format", "json")
	requireClaudeResult(t, run)
	requireInModelRequest(t, b.model, goal, fact)
	b.sentinel = goal
	b.prove(t, run, "mcp__memhost__memory_store")
}

// TestRunCodex: `memhost run codex -- exec ...` in a scratch CODEX_HOME mirroring the user's
// (their model provider, their AGENTS.md): the banner and the user's instructions reach the
// model, and memory_search goes through memhost's MCP server and back.
func TestRunCodex(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Responses)
	w := newSpawnWorld(t, b)
	goal, fact := w.seed(t)
	b.model = newModel(t, standin.Responses, standin.CallTool("memory_search", map[string]any{"query": "When are releases cut?"}), standin.Say(doneText))
	home := codexUserHome(t, b, b.model.URL())
	before, err := os.ReadFile(filepath.Join(home, "config.toml"))
	require.NoError(t, err)

	run := w.run(t, codex, codexEnv(t, b, home), "exec", "--json", "--skip-git-repo-check", prompt)
	answer, mcpCall := codexEvents(t, run)
	require.Equal(t, doneText, answer, run.stdout)
	require.NotNil(t, mcpCall, run.stdout)
	require.Equal(t, "memhost", mcpCall["server"])
	requireInModelRequest(t, b.model, goal, fact, "The user's own instructions: be brief.")
	requireSearchRoundTrip(t, b.model, "mcp__memhost__memory_search", fact)
	require.Empty(t, b.egress.seen())

	after, err := os.ReadFile(filepath.Join(home, "config.toml"))
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "the user's config.toml is never modified")
	rollouts, err := filepath.Glob(filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, rollouts, 1, "the session's rollout is in the user's own CODEX_HOME")
}

// TestRunGeminiCLI: `memhost run gemini -- -p ...` in a scratch GEMINI_CLI_HOME mirroring the
// user's: the banner in the system instruction, memhost's server trusted so headless Gemini
// CLI offers its tools, memory_search through memhost and back.
func TestRunGeminiCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Gemini, standin.CallTool("memory_search", map[string]any{"query": "When are releases cut?"}), standin.Say(doneText))
	w := newSpawnWorld(t, b)
	goal, fact := w.seed(t)
	geminiSettings(t, b, nil)
	settings := filepath.Join(b.home, ".gemini", "settings.json")
	before, err := os.ReadFile(settings)
	require.NoError(t, err)

	run := w.run(t, geminiCLI, geminiRunEnv(t, b, b.model), "-p", prompt, "-o", "json")
	geminiResult(t, run)
	requireInModelRequest(t, b.model, goal, fact)
	requireSearchRoundTrip(t, b.model, "mcp_memhost_memory_search", fact)
	require.Empty(t, b.egress.seen())

	after, err := os.ReadFile(settings)
	require.NoError(t, err)
	require.Equal(t, string(before), string(after), "the user's settings.json is never modified")
}
