package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/client/spawn"
)

// TestRunKeepsTheProvidersTaskRulesInTheUsersCache: the command wires the task rules' cache.
// `memhost run` keeps what a provider binary declared about its CLI's arguments in the user's
// cache folder (~/.cache/memhost/task-rules, one 0600 file a binary), so the next run reads the
// task in its own process while the plugin starts: the first run's timeline has the task read
// after the plugin's start, the second's before it.
func TestRunKeepsTheProvidersTaskRulesInTheUsersCache(t *testing.T) {
	t.Parallel()
	w := newRunWorld(t)
	w.h.start()
	timeline := filepath.Join(t.TempDir(), "timeline.json")
	run := func() map[string]time.Time {
		t.Helper()
		cmd, out := w.memhostRun(t, []string{spawn.TimelineEnv + "=" + timeline}, "claude", "--", "-p", "what do we use?")
		require.Equal(t, 0, exitStatus(t, cmd), out.String())
		data, err := os.ReadFile(timeline)
		require.NoError(t, err)
		var tl spawn.Timeline
		require.NoError(t, json.Unmarshal(data, &tl))
		at := map[string]time.Time{}
		for _, s := range tl.Steps {
			at[s.Step] = s.At
		}
		require.Contains(t, at, spawn.StepTask, string(data))
		require.Contains(t, at, spawn.StepPlugin, string(data))
		return at
	}

	first := run()
	require.False(t, first[spawn.StepTask].Before(first[spawn.StepPlugin]), "nothing kept yet: the started plugin reads the task")
	dir := filepath.Join(w.home, ".cache", "memhost", "task-rules")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err, "the rules are kept in the user's cache folder")
	require.Len(t, entries, 1, "one file for the one provider binary")
	kept := filepath.Join(dir, entries[0].Name())
	fi, err := os.Stat(kept)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	data, err := os.ReadFile(kept)
	require.NoError(t, err)
	require.Contains(t, string(data), "memhost-provider-claude", "keyed by the provider binary")

	second := run()
	require.True(t, second[spawn.StepTask].Before(second[spawn.StepPlugin]), "the kept rules read the task while the plugin starts")
}
