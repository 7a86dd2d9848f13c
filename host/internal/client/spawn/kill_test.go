package spawn

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// processesUnder returns the pids of the processes whose command line mentions dir.
func processesUnder(t *testing.T, dir string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), dir) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// TestAKilledRunIsCleanedUpByTheNext: memhost run killed with SIGKILL runs no cleanup. The CLI
// and the provider plugin die with it (parent-death signals), and the next run sweeps the
// scratch directory it left.
func TestAKilledRunIsCleanedUpByTheNext(t *testing.T) {
	t.Parallel()
	b := setup(t, "codex")
	// A private copy of the plugins, to find this test's plugin process by its path.
	plugins := t.TempDir()
	for _, cli := range testplugins.ProviderCLIs {
		testplugins.Install(t, plugins, "memhost-provider-"+cli, filepath.Join(testplugins.Providers(t), "memhost-provider-"+cli))
	}
	b.opts.PluginDirs = []string{plugins}
	b.opts.Env = append(b.opts.Env, "FAKE_MODE=wait")
	token, _, err := b.tokens.Grant(t.Context(), b.project, "codex")
	require.NoError(t, err)
	o := b.opts
	raw, err := json.Marshal(helperOptions{
		CLI: o.CLI, Args: o.Args, Dir: o.Dir, Env: o.Env, PluginDirs: o.PluginDirs, ScratchRoot: o.ScratchRoot,
		HostURL: b.host.srv.URL, Token: token,
	})
	require.NoError(t, err)

	helper := exec.Command(os.Args[0], "-test.run=^$")
	helper.Env = append(os.Environ(), helperEnv+"="+string(raw))
	helper.Stdin = strings.NewReader("")
	require.NoError(t, helper.Start())
	waitFor(t, filepath.Join(b.out, "ready"))
	cli, err := strconv.Atoi(strings.TrimSpace(record{t: t, dir: b.out}.read("pid")))
	require.NoError(t, err)
	cliStart := processStart(cli)
	t.Cleanup(func() {
		if alive(cli, cliStart) { // only when this test fails: leave no process behind
			_ = syscall.Kill(cli, syscall.SIGKILL)
		}
	})
	require.NotEmpty(t, processesUnder(t, plugins), "the provider plugin runs during the session")
	entries, err := os.ReadDir(b.scratchRoot)
	require.NoError(t, err)
	require.Len(t, entries, 3, "the session's scratch directory, its manifest and its socket folder")
	sockets, err := filepath.Glob(filepath.Join(b.scratchRoot, "codex-*"+socketSuffix, "plugin*"))
	require.NoError(t, err)
	require.Len(t, sockets, 1, "the provider plugin listens in the private socket folder")

	require.NoError(t, helper.Process.Kill())
	_ = helper.Wait()
	require.Eventually(t, func() bool { return syscall.Kill(cli, 0) != nil }, 10*time.Second, 10*time.Millisecond, "the CLI dies with memhost run")
	require.Equal(t, "TERM\n", record{t: t, dir: b.out}.read("signal"), "told to terminate, not killed")
	require.Eventually(t, func() bool { return len(processesUnder(t, plugins)) == 0 }, 10*time.Second, 10*time.Millisecond, "no plugin left")
	entries, err = os.ReadDir(b.scratchRoot)
	require.NoError(t, err)
	require.Len(t, entries, 3, "left behind by the killed run")

	next := setup(t, "claude", "-p", "hi")
	next.opts.ScratchRoot = b.scratchRoot
	res, _ := next.run(t) // requires an empty scratch root afterwards
	require.Equal(t, 0, res.ExitCode)
}
