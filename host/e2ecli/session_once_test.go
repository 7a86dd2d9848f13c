//go:build e2ecli

package e2ecli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

// journalEverySession has the host (and the hooks, which read the same configuration) journal
// every session however short: a headless stand-in session lasts seconds.
const journalEverySession = "[brain]\nquiet_session = \"0s\"\n"

// requireBannerOnce requires that every model request of the agent's own turns carried the
// project's banner (found by its goal) exactly once.
func requireBannerOnce(t *testing.T, model *standin.Server, goal string) {
	t.Helper()
	turns := 0
	for _, r := range model.Requests() {
		if r.Auxiliary {
			continue
		}
		turns++
		require.Equal(t, 1, strings.Count(r.Text(), goal), "times the banner's goal is in %s %s", r.Method, r.Path)
	}
	require.Positive(t, turns, "the CLI made no model request")
}

// TestConnectedAndRunGetsTheBannerOnce: a CLI both connected (memhost connect: a SessionStart
// hook in its own settings) and started with memhost run reads the project's banner once, not
// from both (about 2,000 tokens a session): memhost run gives it through its channel (Claude
// Code's system prompt, Gemini CLI's scratch GEMINI.md) and the hook stands down. When the
// user's own flags take memhost run's channels (Claude Code with --append-system-prompt and
// --settings), the hook gives it: never none. memhost run journals the session once.
func TestConnectedAndRunGetsTheBannerOnce(t *testing.T) {
	t.Parallel()
	claude := func(t *testing.T, args ...string) {
		t.Parallel()
		b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession}), standin.Anthropic, standin.Say(doneText))
		w := newSpawnWorld(t, b)
		goal, _ := w.seed(t)
		env := claudeEnv(t, b)
		w.connectCLI(t, claudeCode, env, false)
		requireClaudeResult(t, w.run(t, claudeCode, env, append(args, "-p", prompt, "--output-format", "json")...))
		requireBannerOnce(t, b.model, goal)
		require.Len(t, w.journal(t, b.project), 1, "memhost run journals the session; the connected session-end hook stands down")
		require.Empty(t, b.egress.seen())
	}
	t.Run("claude", func(t *testing.T) { claude(t) })
	t.Run("claude with its own system prompt and settings", func(t *testing.T) {
		claude(t, "--append-system-prompt", "Answer briefly.", "--settings", `{"model":"claude-opus-5-5"}`)
	})
	t.Run("gemini", func(t *testing.T) {
		t.Parallel()
		b := setupOn(t, startHostWith(t, hostOptions{extra: journalEverySession}), standin.Gemini, standin.Say(doneText))
		w := newSpawnWorld(t, b)
		goal, _ := w.seed(t)
		geminiSettings(t, b, nil)
		env := geminiRunEnv(t, b, b.model)
		w.connectCLI(t, geminiCLI, env, false)
		geminiResult(t, w.run(t, geminiCLI, env, "-p", prompt, "-o", "json"))
		requireBannerOnce(t, b.model, goal)
		require.Len(t, w.journal(t, b.project), 1)
		require.Empty(t, b.egress.seen())
	})
}

// TestAQuickConnectedSessionIsNotJournalled: brain.quiet_session (30 s by default) holds for a
// session a connected CLI's SessionEnd hook reports as for one memhost run ran: plain Claude
// Code answering one prompt in seconds leaves no journal entry, so no summary is asked of a
// worker. It still got the banner from its SessionStart hook.
func TestAQuickConnectedSessionIsNotJournalled(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	goal, _ := w.seed(t)
	env := claudeEnv(t, b)
	w.connectCLI(t, claudeCode, env, false)
	run := runCLI(t, b.work, env, cliPath(t, claudeCode), "-p", prompt, "--output-format", "json")
	requireClaudeResult(t, run)
	requireBannerOnce(t, b.model, goal)
	// The SessionEnd hook takes the start marker its SessionStart hook left, then decides.
	markers := filepath.Join(b.home, ".cache", "memhost", "sessions")
	require.Eventually(t, func() bool {
		entries, err := os.ReadDir(markers)
		return err == nil && len(entries) == 0
	}, 15*time.Second, 100*time.Millisecond, "the session-end hook ran")
	require.Never(t, func() bool { return len(w.journal(t, b.project)) > 0 }, 2*time.Second, 200*time.Millisecond,
		"a quick session is not journalled; stderr:\n%s", run.stderr)
	require.Empty(t, b.egress.seen())
}
