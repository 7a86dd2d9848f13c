package spawn

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/provider"
)

// before reports whether the timeline reached step a before step b (the last mark of each).
func before(t *testing.T, tl *Timeline, a, b string) bool {
	t.Helper()
	at := map[string]time.Time{}
	for _, s := range tl.Steps {
		at[s.Step] = s.At
	}
	require.Contains(t, at, a)
	require.Contains(t, at, b)
	return at[a].Before(at[b])
}

// keptFile is the one file of kept task rules in dir.
func keptFile(t *testing.T, dir string) (string, keptRules) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	path := filepath.Join(dir, entries[0].Name())
	fi, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "readable by the user only")
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var k keptRules
	require.NoError(t, json.Unmarshal(data, &k))
	return path, k
}

// spoil replaces the kept rules with ones that read every argument list otherwise (no option
// takes a value, no command carries none), keeping their key.
func spoil(t *testing.T, dir string) {
	t.Helper()
	path, k := keptFile(t, dir)
	k.Rules = provider.TaskRules{}
	data, err := json.Marshal(k)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, data, 0o600))
}

// TestKeptTaskRulesReadTheTaskBesideThePluginsStart: the first run of each CLI reads the task
// through its started plugin and keeps the rules the plugin's binary declared (0600, in the
// cache); the next run reads the same task with them before the plugin has started, and the
// CLI gets the same task-led banner.
func TestKeptTaskRulesReadTheTaskBesideThePluginsStart(t *testing.T) {
	t.Parallel()
	for cli, tc := range map[string]struct {
		args []string
		task string
	}{
		"claude": {[]string{"--model", "opus", "-p", "fix the flaky login test"}, "fix the flaky login test"},
		"codex":  {[]string{"exec", "--json", "fix the flaky login test"}, "fix the flaky login test"},
		"gemini": {[]string{"fix", "the", "test", "-o", "json"}, "fix the test"},
	} {
		t.Run(cli, func(t *testing.T) {
			t.Parallel()
			b := setup(t, cli, tc.args...)
			b.host.byTask = true
			b.opts.TaskRulesDir = filepath.Join(t.TempDir(), "task-rules")

			b.opts.Timeline = &Timeline{}
			res, _ := b.run(t)
			require.True(t, res.Injected)
			require.True(t, before(t, b.opts.Timeline, StepPlugin, StepTask), "no rules kept yet: the plugin reads the task")
			_, k := keptFile(t, b.opts.TaskRulesDir)
			require.Equal(t, filepath.Join(testplugins.Providers(t), "memhost-provider-"+cli), k.Path)
			require.NotEmpty(t, k.Rules.Options)
			dir, err := os.Stat(b.opts.TaskRulesDir)
			require.NoError(t, err)
			require.Equal(t, os.FileMode(0o700), dir.Mode().Perm())

			b.opts.Timeline = &Timeline{}
			res, _ = b.run(t)
			require.True(t, res.Injected)
			require.True(t, before(t, b.opts.Timeline, StepTask, StepPlugin), "the kept rules read the task while the plugin starts")
			banners, _ := b.host.sessions()
			require.Len(t, banners, 2, "one banner a run")
			require.Equal(t, tc.task, banners[0].Task, "the plugin's reading")
			require.Equal(t, tc.task, banners[1].Task, "the kept rules' reading is the plugin's")
		})
	}
}

// TestTheCLIGetsTheBannerOfThePluginsTask: rules kept for the binary that its plugin no longer
// declares (the cache edited) are read first, but the started plugin's declaration counts:
// the banner of its task is fetched again and is the one the CLI gets, and its rules replace
// the kept ones.
func TestTheCLIGetsTheBannerOfThePluginsTask(t *testing.T) {
	t.Parallel()
	// --add-dir takes every argument up to the next option: Claude Code has no prompt here.
	b := setup(t, "claude", "--add-dir", "../lib", "fix it")
	b.host.byTask = true
	b.opts.TaskRulesDir = filepath.Join(t.TempDir(), "task-rules")
	b.run(t)
	_, declared := keptFile(t, b.opts.TaskRulesDir)
	spoil(t, b.opts.TaskRulesDir)

	_, rec := b.run(t)
	banners, _ := b.host.sessions()
	tasks := []string{}
	for _, r := range banners {
		tasks = append(tasks, r.Task)
	}
	require.Equal(t, []string{"", "../lib", ""}, tasks, "the spoilt rules' task, then the plugin's")
	require.Equal(t, b.host.banner+"task: \n", rec.read("file-banner.md"), "the CLI gets the banner of the plugin's task")
	_, now := keptFile(t, b.opts.TaskRulesDir)
	require.True(t, declared.Rules.Equal(now.Rules), "the plugin's rules are kept again")
}

// TestAChangedProviderBinaryIsReadAfresh: rules kept for a provider binary are never read for
// the binary after it changed (another size or modification time): its plugin reads the task,
// and its rules are kept under its new key.
func TestAChangedProviderBinaryIsReadAfresh(t *testing.T) {
	t.Parallel()
	plugins := t.TempDir()
	bin := filepath.Join(plugins, "memhost-provider-claude")
	data, err := os.ReadFile(filepath.Join(testplugins.Providers(t), "memhost-provider-claude"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bin, data, 0o755))

	b := setup(t, "claude", "--add-dir", "../lib", "fix it")
	b.opts.PluginDirs = []string{plugins}
	b.opts.TaskRulesDir = filepath.Join(t.TempDir(), "task-rules")
	b.run(t)
	spoil(t, b.opts.TaskRulesDir)
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(bin, later, later))

	b.opts.Timeline = &Timeline{}
	b.run(t)
	require.True(t, before(t, b.opts.Timeline, StepPlugin, StepTask), "the changed binary's plugin reads the task")
	banners, _ := b.host.sessions()
	require.Len(t, banners, 2, "the spoilt rules were not read: one banner a run")
	require.Equal(t, "", banners[1].Task)
	_, k := keptFile(t, b.opts.TaskRulesDir)
	fi, err := os.Stat(bin)
	require.NoError(t, err)
	require.Equal(t, fi.ModTime().UnixNano(), k.ModTime, "kept under the binary's new key")
	require.NotEmpty(t, k.Rules.NoTaskCommands, "the plugin's rules, not the spoilt ones")
}
