package testplugins

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Install puts the binary at src into dir under name and returns its path.
//
// It hard-links rather than copies. A file this process has just written can still be open for
// writing in a child that a parallel test forked (between its fork and its exec), and exec'ing
// the file then fails with "text file busy" (golang/go#22315). The built binary was closed long
// ago, so a link to it is safe; a copy is made only across file systems, by a child process.
func Install(tb testing.TB, dir, name, src string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.Link(src, path); err == nil {
		return path
	}
	out, err := exec.Command("install", "-m", "0755", src, path).CombinedOutput()
	require.NoError(tb, err, "%s", out)
	return path
}

// WriteScript creates an executable script at path that this process never held open for
// writing (see Install): the content goes to a plain file and install(1) writes the executable.
func WriteScript(tb testing.TB, path, content string) {
	tb.Helper()
	src := filepath.Join(tb.TempDir(), "script")
	require.NoError(tb, os.WriteFile(src, []byte(content), 0o644))
	out, err := exec.Command("install", "-m", "0755", src, path).CombinedOutput()
	require.NoError(tb, err, "%s", out)
}
