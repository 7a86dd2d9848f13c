package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// uninstallWorld runs scripts/uninstall.sh in a scratch home: its own state folder, caches,
// install record and a stand-in dpkg that knows the packages named in installed.
type uninstallWorld struct {
	home, state, record string
	env                 []string
}

func newUninstallWorld(t *testing.T, installed ...string) uninstallWorld {
	t.Helper()
	root := t.TempDir()
	w := uninstallWorld{home: filepath.Join(root, "home"), state: filepath.Join(root, "state"), record: filepath.Join(root, "installed")}
	bin := filepath.Join(root, "bin")
	for _, d := range []string{w.home, w.state, bin} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	dpkg := "#!/bin/sh\n[ \"$1\" = -s ] || exit 1\ncase \"$2\" in\n" + strings.Join(installed, "|") + ") exit 0 ;;\nesac\nexit 1\n"
	if len(installed) == 0 {
		dpkg = "#!/bin/sh\nexit 1\n"
	}
	testplugins.WriteScript(t, filepath.Join(bin, "dpkg"), dpkg)
	w.env = []string{"HOME=" + w.home, "PATH=" + bin + ":/usr/bin:/bin", "TMPDIR=" + root, "MEMHOST_STATE_DIR=" + w.state,
		"MEMHOST_INSTALL_RECORD=" + w.record, "LANG=C"}
	return w
}

func (w uninstallWorld) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "uninstall.sh"), args...)
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// repoRoot is the checkout this test runs in.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	require.NoError(t, err)
	return root
}

// TestUninstallOffersToRemoveOnlyWhatSetupInstalled: uninstall suggests removing only what
// setup recorded installing and is still there (a PostgreSQL that was there before is never
// offered), and says so when it recorded nothing.
func TestUninstallOffersToRemoveOnlyWhatSetupInstalled(t *testing.T) {
	t.Parallel()
	w := newUninstallWorld(t, "postgresql-15", "postgresql-15-pgvector", "nodejs")
	out, err := w.run(t)
	require.NoError(t, err, out)
	require.Contains(t, out, "nothing: setup recorded installing no PostgreSQL")
	require.NotContains(t, out, "apt-get purge", "PostgreSQL was here before memhost: not memhost's to remove")

	list := filepath.Join(t.TempDir(), "memhost-trixie-src.sources")
	require.NoError(t, os.WriteFile(list, nil, 0o644))
	require.NoError(t, os.WriteFile(w.record, []byte("apt postgresql-15-pgvector\napt build-essential\nfile "+list+"\napt postgresql-15-pgvector\n"), 0o644))
	out, err = w.run(t)
	require.NoError(t, err, out)
	require.Contains(t, out, "packages:   sudo apt-get purge postgresql-15-pgvector   (and sudo apt-get autoremove)",
		"only what setup installed and is still installed (build-essential was removed since)")
	require.NotContains(t, out, "purge postgresql-15 ")
	require.NotContains(t, out, "nodejs")
	require.Contains(t, out, list+": sudo rm "+list)
	require.Contains(t, out, "the record itself: rm "+w.record)
}

// TestUninstallAsksForConnectUndoFirst: with a CLI wired by memhost connect, uninstall's list
// starts by naming `memhost connect --undo CLI` and connect's folder, before what it would
// delete; --yes removes nothing while one is connected. Without one, connect's leftover folder
// is deleted with the rest.
func TestUninstallAsksForConnectUndoFirst(t *testing.T) {
	t.Parallel()
	w := newUninstallWorld(t)
	connect := filepath.Join(w.home, ".config", "memhost", "connect")
	require.NoError(t, os.MkdirAll(filepath.Join(connect, "claude"), 0o700))
	out, err := w.run(t)
	require.NoError(t, err, out)
	undo := strings.Index(out, "bin/memhost connect --undo claude")
	require.Positive(t, undo, out)
	require.Less(t, undo, strings.Index(out, "memhost uninstall would stop memhost"), "the undo comes first")
	require.Contains(t, out, "from its backups in "+connect+"/")
	require.NotContains(t, out, "\n  "+connect+"\n", "connect's backups are not deleted while a CLI is connected")

	out, err = w.run(t, "--yes")
	require.Error(t, err, out)
	require.Contains(t, out, "nothing removed; still connected: claude.")
	require.DirExists(t, w.state)

	require.NoError(t, os.Remove(filepath.Join(connect, "claude")))
	out, err = w.run(t)
	require.NoError(t, err, out)
	require.Contains(t, out, "No CLI is connected with memhost connect")
	require.Contains(t, out, "\n  "+connect+"\n", "the empty folder goes with the rest")
}
