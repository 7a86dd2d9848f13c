//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testplugins"

	"github.com/memhost/memhost/host/internal/standin"
)

// connectCLI runs `memhost connect [--undo] CLI --yes` with env, from the user's home.
func (w *spawnWorld) connectCLI(t *testing.T, p npmPackage, env []string, undo bool) cliRun {
	t.Helper()
	args := []string{"connect", "--config", w.config, "--bin", cliPath(t, p), "--yes", p.bin}
	if undo {
		args = append(args, "--undo")
	}
	run := runCLI(t, w.b.home, env, testplugins.Memhost(t), args...)
	require.Zero(t, run.exitCode, "memhost %v\nstdout:\n%s\nstderr:\n%s", args, run.stdout, run.stderr)
	return run
}

// snapshotFile returns path's content, or nil when it does not exist.
func snapshotFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	return b
}

// TestConnectClaudeCode: after memhost connect claude, plain `claude -p` (no memhost run)
// starts with the project's goal and facts from the SessionStart hook and has memhost's MCP
// server at user scope: `memhost mcp` over stdio, no token in any file; after --undo, Claude Code's settings are byte for byte as before and
// no memhost server is left in its user configuration.
func TestConnectClaudeCode(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	goal, fact := w.seed(t)
	env := claudeEnv(t, b)
	configDir := filepath.Join(b.home, ".claude")
	settings, userFile := filepath.Join(configDir, "settings.json"), filepath.Join(configDir, ".claude.json")
	write(t, settings, "{\n  \"model\": \"claude-opus-5-5\"\n}\n")
	settingsBefore := snapshotFile(t, settings)

	w.connectCLI(t, claudeCode, env, false)
	var registered struct {
		MCPServers map[string]struct {
			Type, Command string
			Args          []string
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(snapshotFile(t, userFile), &registered))
	require.Equal(t, "stdio", registered.MCPServers["memhost"].Type)
	require.Equal(t, []string{"mcp"}, registered.MCPServers["memhost"].Args)
	require.NotContains(t, string(snapshotFile(t, userFile)), "mh_", "no token in Claude Code's configuration")

	run := runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", prompt, "--output-format", "json")
	requireClaudeResult(t, run)
	requireInModelRequest(t, b.model, goal, fact)
	require.Empty(t, b.egress.seen())

	w.connectCLI(t, claudeCode, env, true)
	require.Equal(t, string(settingsBefore), string(snapshotFile(t, settings)), "settings.json byte for byte as before")
	registered.MCPServers = nil
	require.NoError(t, json.Unmarshal(snapshotFile(t, userFile), &registered))
	require.NotContains(t, registered.MCPServers, "memhost")
	require.NoDirExists(t, filepath.Join(b.home, ".config", "memhost", "connect", "claude"), "nothing of memhost's left")
}

// TestConnectGeminiCLI: after memhost connect gemini, plain `gemini -p` in a trusted folder
// starts with the project's banner and offers memhost's tools (trusted, so headless Gemini
// CLI can call them: the scripted memory_search, which names no project, goes through
// `memhost mcp` started in the project and finds its fact); after --undo the user's
// settings.json is byte for byte as before.
func TestConnectGeminiCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Gemini, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	goal, fact := w.seed(t)
	// The model names no project: memhost mcp knows it from the directory Gemini CLI starts it in.
	b.model = newModel(t, standin.Gemini, standin.CallTool("memory_search", map[string]any{"query": "When are releases cut?"}), standin.Say(doneText))
	geminiSettings(t, b, nil)
	settings := filepath.Join(b.home, ".gemini", "settings.json")
	before := snapshotFile(t, settings)
	env := append(geminiRunEnv(t, b, b.model), "GEMINI_CLI_TRUST_WORKSPACE=true")

	w.connectCLI(t, geminiCLI, env, false)
	require.NotContains(t, string(snapshotFile(t, settings)), "mh_", "no token in Gemini CLI's settings")
	run := runCLI(t, b.work, env, cliPath(t, geminiCLI), "-p", prompt, "-o", "json")
	geminiResult(t, run)
	requireInModelRequest(t, b.model, goal, fact)
	requireSearchRoundTrip(t, b.model, "mcp_memhost_memory_search", fact)
	require.Empty(t, b.egress.seen())

	w.connectCLI(t, geminiCLI, env, true)
	require.Equal(t, string(before), string(snapshotFile(t, settings)), "settings.json byte for byte as before")
}

// TestConnectCodex: memhost connect codex registers `memhost mcp` in config.toml (Codex has no
// hooks; no token); plain `codex exec` then reaches memhost's tools with no project named, its
// model is told to load the project's context, and --undo restores config.toml.
func TestConnectCodex(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Responses)
	w := newSpawnWorld(t, b)
	_, fact := w.seed(t)
	b.model = newModel(t, standin.Responses, standin.CallTool("memory_search", map[string]any{"query": "When are releases cut?"}), standin.Say(doneText))
	home := codexUserHome(t, b, b.model.URL())
	config := filepath.Join(home, "config.toml")
	before := snapshotFile(t, config)
	env := codexEnv(t, b, home)

	w.connectCLI(t, codex, env, false)
	require.NotContains(t, string(snapshotFile(t, config)), "mh_", "no token in config.toml")
	run := runCLI(t, b.work, env, cliPath(t, codex), "exec", "--json", "--skip-git-repo-check", prompt)
	answer, mcpCall := codexEvents(t, run)
	require.Equal(t, doneText, answer, run.stdout)
	require.NotNil(t, mcpCall, run.stdout)
	requireSearchRoundTrip(t, b.model, "mcp__memhost__memory_search", fact)
	requireInModelRequest(t, b.model, "memory_load_context")

	w.connectCLI(t, codex, env, true)
	require.Equal(t, string(before), string(snapshotFile(t, config)), "config.toml byte for byte as before")
}
