//go:build e2ecli

package e2ecli

import (
	"testing"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// TestRunCrossAgentLoop is the product's promise on the real CLIs: Claude Code, started with
// memhost run and scripted by its stand-in, stores a fact through memhost's MCP server; then
// Codex and Gemini CLI, started with memhost run in the same project, carry that fact into
// their model requests. A second project on the same host keeps its own sentinel: no CLI of
// either project sees the other's.
func TestRunCrossAgentLoop(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Anthropic)
	w := newSpawnWorld(t, b)
	goal, _ := w.seed(t)

	other := "github.com/memhost-e2ecli/other-" + randomHex(6)
	otherDir := t.TempDir()
	project(t, otherDir, other)
	otherSentinel := "MEMHOST-OTHER-" + randomHex(6)
	otherGoal, otherFact := w.seedProject(t, other, otherSentinel)

	// Claude Code stores the fact.
	run := w.run(t, claudeCode, claudeEnv(t, b), "-p", prompt, "--output-format", "json")
	requireClaudeResult(t, run)
	b.sentinel = goal
	b.prove(t, run, "mcp__memhost__memory_store")
	requireNotInModelRequests(t, b.model, otherSentinel)

	// Codex, next, knows it from the banner.
	codexModel := newModel(t, standin.Responses, standin.Say(doneText))
	home := codexUserHome(t, b, codexModel.URL())
	run = w.run(t, codex, b.env(t, "CODEX_HOME="+home, "STANDIN_API_KEY="+apiKey()), "exec", "--json", "--skip-git-repo-check", "What do we install packages with?")
	answer, _ := codexEvents(t, run)
	if answer != doneText {
		t.Fatalf("codex answered %q\n%s", answer, run.stderr)
	}
	requireInModelRequest(t, codexModel, b.fact, goal)
	requireNotInModelRequests(t, codexModel, otherSentinel)

	// So does Gemini CLI.
	geminiModel := newModel(t, standin.Gemini, standin.Say(doneText))
	geminiSettings(t, b, nil)
	run = w.run(t, geminiCLI, geminiRunEnv(t, b, geminiModel), "-p", "What do we install packages with?", "-o", "json")
	geminiResult(t, run)
	requireInModelRequest(t, geminiModel, b.fact, goal)
	requireNotInModelRequests(t, geminiModel, otherSentinel)

	// The other project's session sees its own memory only.
	otherModel := newModel(t, standin.Gemini, standin.Say(doneText))
	run = w.runIn(t, otherDir, geminiCLI, geminiRunEnv(t, b, otherModel), "-p", "What is the goal?", "-o", "json")
	geminiResult(t, run)
	requireInModelRequest(t, otherModel, otherGoal, otherFact)
	requireNotInModelRequests(t, otherModel, b.fact)
	requireNotInModelRequests(t, otherModel, goal)
	if seen := b.egress.seen(); len(seen) > 0 {
		t.Fatalf("a CLI tried to reach the network: %v", seen)
	}
}
