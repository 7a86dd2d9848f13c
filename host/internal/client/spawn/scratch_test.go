package spawn

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider"
)

// deadPID returns the pid of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	return cmd.Process.Pid
}

// leftover writes a scratch directory with a manifest as a run that never cleaned up would.
func leftover(t *testing.T, root, name string, m manifest) string {
	t.Helper()
	dir := filepath.Join(root, name)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "home"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "home", "config.toml"), []byte("token"), 0o600))
	data, err := json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dir+manifestSuffix, data, 0o600))
	return dir
}

// TestSweepRemovesWhatKilledRunsLeft: a scratch directory whose memhost run and CLI are gone
// is removed with its cleanup paths; one whose process lives (or whose CLI lives), and a fresh
// directory whose manifest is not written yet, are kept.
func TestSweepRemovesWhatKilledRunsLeft(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "run")
	require.NoError(t, openRoot(root))
	cleanup := filepath.Join(t.TempDir(), "created-by-the-session")
	require.NoError(t, os.WriteFile(cleanup, nil, 0o600))

	dead := deadPID(t)
	stale := leftover(t, root, "claude-1", manifest{PID: dead, CLIPID: deadPID(t), Cleanup: []string{cleanup}})
	require.NoError(t, os.Mkdir(stale+socketSuffix, 0o700))
	live := leftover(t, root, "claude-2", manifest{PID: os.Getpid(), PIDStart: processStart(os.Getpid())})
	require.NoError(t, os.Mkdir(live+socketSuffix, 0o700))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(live+socketSuffix, old, old))
	cliLive := leftover(t, root, "claude-3", manifest{PID: dead, CLIPID: os.Getpid()})
	reused := leftover(t, root, "claude-4", manifest{PID: os.Getpid(), PIDStart: processStart(os.Getpid()) + 1})
	fresh := filepath.Join(root, "codex-5")
	require.NoError(t, os.Mkdir(fresh, 0o700))
	orphan := filepath.Join(root, "codex-6")
	require.NoError(t, os.Mkdir(orphan, 0o700))
	require.NoError(t, os.Chtimes(orphan, old, old))

	require.Equal(t, 3, sweep(root))
	for _, gone := range []string{stale, stale + manifestSuffix, stale + socketSuffix, cleanup, reused, orphan} {
		require.NoFileExists(t, gone)
		require.NoDirExists(t, gone)
	}
	for _, kept := range []string{live, live + socketSuffix, cliLive, fresh} {
		require.DirExists(t, kept)
	}
}

func TestTheScratchRootMustBePrivate(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.Mkdir(root, 0o755))
	require.ErrorContains(t, openRoot(root), "is not a private directory of this user (mode 0700")

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(t.TempDir(), link))
	require.ErrorContains(t, openRoot(link), "is not a private directory")
}

// TestApplyCreatesThePlan: files with their modes whatever the umask, links, link targets
// created on demand, cleanup paths recorded and removed with the directory; a cleanup path
// that exists already is refused, since memhost never removes what was there before.
func TestApplyCreatesThePlan(t *testing.T) {
	t.Parallel()
	root := filepath.Join(t.TempDir(), "run")
	require.NoError(t, openRoot(root))
	s, err := newScratch(root, "toy")
	require.NoError(t, err)
	user := t.TempDir()
	cleanup := filepath.Join(user, "lock")
	plan := provider.Plan{
		Files: []provider.File{
			{Path: "home/config.json", Mode: 0o600, Content: []byte("{}")},
			{Path: "home/README", Mode: 0o664, Content: []byte("hi")},
			{Path: "home/sessions", LinkTarget: filepath.Join(user, "toy", "sessions"), CreateTargetDir: true},
			{Path: "home/auth.json", LinkTarget: filepath.Join(user, "auth.json")},
		},
		Cleanup: []string{cleanup},
	}
	require.NoError(t, s.apply(plan))
	for path, mode := range map[string]os.FileMode{"home/config.json": 0o600, "home/README": 0o664} {
		fi, err := os.Stat(filepath.Join(s.dir, path))
		require.NoError(t, err)
		require.Equal(t, mode, fi.Mode().Perm(), path)
	}
	require.DirExists(t, filepath.Join(user, "toy", "sessions"))
	target, err := os.Readlink(filepath.Join(s.dir, "home", "auth.json"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(user, "auth.json"), target)

	data, err := os.ReadFile(s.dir + manifestSuffix)
	require.NoError(t, err)
	require.Contains(t, string(data), cleanup)
	require.NoError(t, os.WriteFile(cleanup, nil, 0o600)) // the session creates it
	require.NoError(t, s.remove())
	require.NoFileExists(t, cleanup)
	require.DirExists(t, filepath.Join(user, "toy", "sessions"), "what the links point to stays")
	requireEmpty(t, root)

	s, err = newScratch(root, "toy")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cleanup, []byte("the user's"), 0o600))
	err = s.apply(provider.Plan{Cleanup: []string{cleanup}})
	require.ErrorContains(t, err, "exists already: memhost never removes what was there before")
	require.NoError(t, s.remove())
	require.FileExists(t, cleanup)
}
