//go:build e2ecli

package e2ecli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/memhost/memhost/host/internal/testkit/standin"
)

func cp(t *testing.T, pattern, to string) {
	m, _ := filepath.Glob(pattern)
	for i, p := range m {
		b, _ := os.ReadFile(p)
		_ = os.WriteFile(filepath.Join("/tmp/samples", to+"-"+string(rune('0'+i))+".jsonl"), b, 0o644)
	}
}

func TestZZSample(t *testing.T) {
	script := func(b string) []standin.Turn {
		return []standin.Turn{
			standin.CallTool("memory_store", map[string]any{"text": "Sample fact: the release train leaves on Tuesdays."}),
			standin.CallTool("memory_search", map[string]any{"query": "release train"}),
			standin.Say("Done. Memory used: [deadbeef]"),
		}
	}
	t.Run("claude", func(t *testing.T) {
		b := setup(t, standin.Anthropic, script("")...)
		w := newSpawnWorld(t, b)
		w.seed(t)
		w.run(t, claudeCode, claudeEnv(t, b), "-p", prompt, "--output-format", "json")
		cp(t, filepath.Join(b.home, ".claude", "projects", "*", "*.jsonl"), "claude")
	})
	t.Run("codex", func(t *testing.T) {
		b := setup(t, standin.Responses)
		w := newSpawnWorld(t, b)
		w.seed(t)
		b.model = newModel(t, standin.Responses, script("")...)
		home := codexUserHome(t, b, b.model.URL())
		w.run(t, codex, codexEnv(t, b, home), "exec", "--json", "--skip-git-repo-check", prompt)
		cp(t, filepath.Join(home, "sessions", "*", "*", "*", "rollout-*.jsonl"), "codex")
	})
	t.Run("gemini", func(t *testing.T) {
		b := setup(t, standin.Gemini, script("")...)
		w := newSpawnWorld(t, b)
		w.seed(t)
		geminiSettings(t, b, nil)
		w.run(t, geminiCLI, geminiRunEnv(t, b, b.model), "-p", prompt, "-o", "json")
		cp(t, filepath.Join(b.home, ".gemini", "tmp", "*", "chats", "*"), "gemini")
	})
}
