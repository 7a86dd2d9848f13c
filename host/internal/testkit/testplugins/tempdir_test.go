package testplugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEndedProcessesFoldersAreSwept: a build folder outlives its test process (no exit hook);
// the next process's folder removes it, and never a live process's or one named otherwise.
func TestEndedProcessesFoldersAreSwept(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ended := exec.Command("true")
	require.NoError(t, ended.Run())
	endedPid := strconv.Itoa(ended.Process.Pid)
	const prefix = "memhost-test-x-"
	mk := func(name string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Join(p, "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(p, "sub", "memhost"), []byte("binary"), 0o755))
		return p
	}
	gone := mk(prefix + endedPid + "-123")
	live := mk(prefix + strconv.Itoa(os.Getpid()) + "-456")
	oldStyle := mk(prefix + "987654321")
	other := mk("memhost-test-y-" + endedPid + "-789")

	sweepEnded(dir, prefix)

	require.NoDirExists(t, gone, "an ended process's folder is removed")
	require.DirExists(t, live, "a running process's folder stays")
	require.DirExists(t, oldStyle, "a folder named without a pid is not ours to judge")
	require.DirExists(t, other, "another prefix is left alone")
}
