//go:build e2ecli

package e2ecli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestSessionSummaryAndExtractedFactReachCodex: a real Claude Code session under `memhost run`
// ends; the host's summarize job (River, on the host) reads the transcript excerpt memhost run
// sent, asks the session_summary and extract chains — the agentcli worker running the real
// Claude Code headless against a second stand-in model — writes the summary into the session's
// journal entry and stores the fact it extracted; then a real Codex session under `memhost run`
// finds that fact through memory_search.
func TestSessionSummaryAndExtractedFactReachCodex(t *testing.T) {
	t.Parallel()
	id := randomHex(6)
	summary := "Claude stored the pnpm rule for the project (" + id + ")."
	extracted := "e2ecli " + id + ": the release checklist lives in docs/RELEASING.md."

	// The worker's model: each task's instructions pick its answer, in whatever order the job
	// asks, through the StructuredOutput tool Claude Code offers for --json-schema.
	workerModel, err := standin.New(standin.Anthropic)
	require.NoError(t, err)
	workerModel.When("You summarise one coding-agent session", standin.CallTool("StructuredOutput", map[string]any{"summary": summary}))
	workerModel.When("You pick the durable facts", standin.CallTool("StructuredOutput", map[string]any{"facts": []string{extracted}}))
	workerModel.When("You keep a project's plan true", standin.CallTool("StructuredOutput", map[string]any{"update": false}))
	require.NoError(t, workerModel.Start())
	t.Cleanup(func() { require.NoError(t, workerModel.Close()) })

	// A headless session lasts seconds: brain.quiet_session 0s journals it (memhost run reads
	// the host's config file; see newSpawnWorld).
	extra := journalEverySession + fmt.Sprintf("[workers.claude]\nplugin = \"agentcli\"\ncli = \"claude\"\ncli_path = %q\n"+
		"[workers.chains]\nsession_summary = [\"claude\"]\nextract = [\"claude\"]\nplan_drift = [\"claude\"]\n", cliPath(t, claudeCode))
	h := startHostWith(t, hostOptions{extra: extra, dirs: []string{testplugins.Workers(t)}, env: []string{
		"ANTHROPIC_BASE_URL=" + workerModel.URL(), "ANTHROPIC_API_KEY=" + apiKey(),
		"CLAUDE_CONFIG_DIR=" + filepath.Join(t.TempDir(), "worker-claude"),
	}})

	// The user's session: the transcript states the fact the worker is scripted to extract.
	b := setupOn(t, h, standin.Anthropic, standin.CallTool("memory_store", map[string]any{"text": "We install packages with pnpm."}), standin.Say(doneText))
	w := newSpawnWorld(t, b)
	w.seed(t)
	ask := "Remember: we install packages with pnpm, and the release checklist lives in docs/RELEASING.md."
	run := w.run(t, claudeCode, claudeEnv(t, b), "-p", ask, "--output-format", "json")
	requireClaudeResult(t, run)

	var entry string
	require.Eventually(t, func() bool {
		for _, e := range w.journal(t, b.project) {
			if text, _ := e["text"].(string); strings.Contains(text, summary) {
				entry = text
				return true
			}
		}
		return false
	}, 4*time.Minute, time.Second, "the session's journal entry is summarised\n%s", b.host.logs)
	require.True(t, strings.HasPrefix(entry, "claude session ended after "), "the entry keeps the session's metadata line: %q", entry)
	// The summary task carried the session's own transcript.
	requireInModelRequest(t, workerModel, "docs/RELEASING.md")
	// The job asks for the facts after it has written the summary.
	require.Eventually(t, func() bool {
		for _, m := range b.host.memories(b.token) {
			if m.Text == extracted {
				require.Equal(t, "extracted", m.Source)
				return true
			}
		}
		return false
	}, 3*time.Minute, 2*time.Second, "the extracted fact is stored in the project\n%s", b.host.logs)

	// The next agent, in Codex, searches and finds it.
	b.model = newModel(t, standin.Responses, standin.CallTool("memory_search", map[string]any{"query": "Where is the release checklist?"}), standin.Say(doneText))
	home := codexUserHome(t, b, b.model.URL())
	codexRun := w.run(t, codex, codexEnv(t, b, home), "exec", "--json", "--skip-git-repo-check", "Where is the release checklist?")
	answer, _ := codexEvents(t, codexRun)
	require.Equal(t, doneText, answer, codexRun.stdout)
	requireSearchRoundTrip(t, b.model, "mcp__memhost__memory_search", extracted)
	require.Empty(t, b.egress.seen())
}
