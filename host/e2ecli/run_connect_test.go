//go:build e2ecli

package e2ecli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"

	"github.com/memhost/memhost/host/internal/testkit/standin"
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

// place is one project on the machine: its folder (a git repository with its own remote), its
// key, the fact seeded into it and the fact the CLI stores there.
type place struct {
	dir, key, seeded, stored string
}

// twoProjects seeds the world's project and a second one (another folder, another remote) for
// a CLI connected once to work in both.
func (w *spawnWorld) twoProjects(t *testing.T) (first, second place) {
	t.Helper()
	first = place{dir: w.b.work, key: w.b.project, stored: "STORED-ONE-" + w.b.sentinel + ": lint with eslint before every commit."}
	_, first.seeded = w.seed(t)
	second = place{dir: t.TempDir(), key: w.b.project + "-two", stored: "STORED-TWO-" + w.b.sentinel + ": lint with biome before every commit."}
	project(t, second.dir, second.key)
	_, second.seeded = w.seedProject(t, second.key, "TWO-"+w.b.sentinel)
	return first, second
}

// storeAndFind is the model's script for a run in each place: store the place's fact, search,
// answer. No call names a project: memhost mcp knows it from the folder the CLI starts it in.
func storeAndFind(first, second place) []standin.Turn {
	query := map[string]any{"query": "releases branch lint commit"}
	return []standin.Turn{
		standin.CallTool("memory_store", map[string]any{"text": first.stored}), standin.CallTool("memory_search", query), standin.Say(doneText),
		standin.CallTool("memory_store", map[string]any{"text": second.stored}), standin.CallTool("memory_search", query), standin.Say(doneText),
	}
}

// requireOwnProjectOnly requires that each run stored its fact and that its search found the
// facts of its own project (seeded and just stored) and none of the other's.
func requireOwnProjectOnly(t *testing.T, model *standin.Server, first, second place) {
	t.Helper()
	var calls []standin.IssuedCall
	for _, c := range model.Calls() {
		if !c.Loader {
			calls = append(calls, c)
		}
	}
	require.Len(t, calls, 4, "two runs, each a store and a search; tools offered: %v", lastTools(model.Requests()))
	for i, pair := range [][2]place{{first, second}, {second, first}} {
		own, other := pair[0], pair[1]
		store, search := calls[2*i], calls[2*i+1]
		require.True(t, strings.HasSuffix(store.Name, "memory_store") && strings.HasSuffix(search.Name, "memory_search"), "%s, %s", store.Name, search.Name)
		res, ok := model.ResultOf(store.ID)
		require.True(t, ok, "no result of the store in %s", own.key)
		require.False(t, res.IsError, res.Content)
		res, ok = model.ResultOf(search.ID)
		require.True(t, ok, "no result of the search in %s", own.key)
		require.False(t, res.IsError, res.Content)
		require.Contains(t, res.Content, own.seeded, "the search in %s finds its project's facts", own.key)
		require.Contains(t, res.Content, own.stored, "the search in %s finds the fact just stored there", own.key)
		require.NotContains(t, res.Content, other.seeded, "the search in %s finds nothing of %s", own.key, other.key)
		require.NotContains(t, res.Content, other.stored, "the search in %s finds nothing of %s", own.key, other.key)
	}
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
// server at user scope: `memhost mcp` over stdio, no token in any file. Connected once, it
// works in two projects: in each it stores a fact and finds its own project's facts only, and
// its SessionEnd hook journals the session there with its transcript for the summary. After
// --undo, Claude Code's settings are byte for byte as before and no memhost server is left in
// its user configuration.
func TestConnectClaudeCode(t *testing.T) {
	t.Parallel()
	b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession}), standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	first, second := w.twoProjects(t)
	goal := "GOAL-" + b.sentinel
	b.model = newModel(t, standin.Anthropic, storeAndFind(first, second)...)
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

	// The user allows memhost's tools, as headless Claude Code refuses a tool nobody allowed.
	for _, p := range []place{first, second} {
		run := runCLI(t, p.dir, env, cliPath(t, claudeCode), "-p", prompt, "--output-format", "json", "--allowedTools", "mcp__memhost")
		requireClaudeResult(t, run)
	}
	requireInModelRequest(t, b.model, goal, first.seeded, "GOAL-TWO-"+b.sentinel)
	requireOwnProjectOnly(t, b.model, first, second)
	// The SessionEnd hook journalled each session in its own project, transcript and all.
	for _, p := range []place{first, second} {
		requireHookJournalled(t, w, p.key, "claude")
	}
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
// `memhost mcp` started in the project and finds its facts). Connected once, it works in two
// projects: in each it stores a fact and finds its own project's facts only. After --undo the
// user's settings.json is byte for byte as before.
func TestConnectGeminiCLI(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Gemini, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	first, second := w.twoProjects(t)
	goal := "GOAL-" + b.sentinel
	b.model = newModel(t, standin.Gemini, storeAndFind(first, second)...)
	geminiSettings(t, b, nil)
	settings := filepath.Join(b.home, ".gemini", "settings.json")
	before := snapshotFile(t, settings)
	env := append(geminiRunEnv(t, b, b.model), "GEMINI_CLI_TRUST_WORKSPACE=true")

	w.connectCLI(t, geminiCLI, env, false)
	require.NotContains(t, string(snapshotFile(t, settings)), "mh_", "no token in Gemini CLI's settings")
	for _, p := range []place{first, second} {
		geminiResult(t, runCLI(t, p.dir, env, cliPath(t, geminiCLI), "-p", prompt, "-o", "json"))
	}
	requireInModelRequest(t, b.model, goal, first.seeded, "GOAL-TWO-"+b.sentinel)
	requireOwnProjectOnly(t, b.model, first, second)
	require.Empty(t, b.egress.seen())

	w.connectCLI(t, geminiCLI, env, true)
	require.Equal(t, string(before), string(snapshotFile(t, settings)), "settings.json byte for byte as before")
}

// TestConnectCodex: memhost connect codex registers `memhost mcp` in config.toml (Codex has no
// hooks; no token); plain `codex exec` then reaches memhost's tools with no project named and
// its model is told to load the project's context. Connected once, it works in two projects: in
// each it stores a fact and finds its own project's facts only. --undo restores config.toml.
func TestConnectCodex(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Responses)
	w := newSpawnWorld(t, b)
	first, second := w.twoProjects(t)
	b.model = newModel(t, standin.Responses, storeAndFind(first, second)...)
	home := codexUserHome(t, b, b.model.URL())
	config := filepath.Join(home, "config.toml")
	before := snapshotFile(t, config)
	env := codexEnv(t, b, home)

	w.connectCLI(t, codex, env, false)
	require.NotContains(t, string(snapshotFile(t, config)), "mh_", "no token in config.toml")
	for _, p := range []place{first, second} {
		run := runCLI(t, p.dir, env, cliPath(t, codex), "exec", "--json", "--skip-git-repo-check", prompt)
		answer, mcpCall := codexEvents(t, run)
		require.Equal(t, doneText, answer, run.stdout)
		require.NotNil(t, mcpCall, run.stdout)
	}
	requireOwnProjectOnly(t, b.model, first, second)
	requireInModelRequest(t, b.model, "memory_load_context")

	w.connectCLI(t, codex, env, true)
	require.Equal(t, string(before), string(snapshotFile(t, config)), "config.toml byte for byte as before")
}
