//go:build e2ecli

package e2ecli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestValueABOnClaudeCode: make bench's value A/B round, on the real Claude Code: run without
// memory, each task opens the project's files until it finds the fact it needs; run with memory
// (memhost run), a task whose fact the banner brought answers without opening a file, citing
// it, and sends the model fewer tokens; over all tasks, memory costs fewer tokens.
func TestValueABOnClaudeCode(t *testing.T) {
	t.Parallel()
	plugins := t.TempDir()
	for _, from := range []string{testplugins.Dir(t), testplugins.Providers(t)} {
		entries, err := os.ReadDir(from)
		require.NoError(t, err)
		for _, e := range entries {
			require.NoError(t, os.Symlink(filepath.Join(from, e.Name()), filepath.Join(plugins, e.Name())))
		}
	}
	var progress testlog.Buffer
	v, err := bench.RunValueAB(t.Context(), bench.ABOptions{DatabaseURL: testdb.URL(t), HostPath: testplugins.Memhost(t),
		PluginDir: plugins, Claude: cliPath(t, claudeCode), QualityPath: "../bench/testdata/quality.json", Seed: 28, Progress: &progress})
	require.NoError(t, err, progress.String())
	require.NotEmpty(t, v.Tasks)
	helped, with, without := 0, 0, 0
	for _, task := range v.Tasks {
		require.Positive(t, task.Without.ToolCalls, "%s: without memory the agent explores", task.Name)
		require.LessOrEqual(t, task.With.ToolCalls, task.Without.ToolCalls, task.Name)
		require.Positive(t, task.Given, "%s: the session was given memories", task.Name)
		if task.With.ToolCalls == 0 {
			// The fact was in the banner: the agent answered at once and cited it.
			helped++
			require.Less(t, task.With.InputTokens, task.Without.InputTokens, task.Name)
			require.Equal(t, 1, task.Cited, "%s: the answer's citation is in the record", task.Name)
		}
		with, without = with+task.With.InputTokens, without+task.Without.InputTokens
	}
	t.Logf("%d of %d tasks answered from the banner; input tokens with memory %d, without %d", helped, len(v.Tasks), with, without)
	require.GreaterOrEqual(t, helped, len(v.Tasks)-1, "at most one task's wording is too far from its fact for the floor")
	require.Less(t, with, without)
	t.Log(progress.String())
}
