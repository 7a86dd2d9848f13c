//go:build e2ecli

package e2ecli

import (
	"errors"
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

	"github.com/memhost/memhost/host/internal/testkit/standin"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
)

// childOf returns the pid of a live child of parent whose executable's name does not start
// with skip, or 0. It looks at /proc/PID/exe, not the command name: a child forked to become a
// plugin carries memhost's own command name until its exec, and must not pass for the CLI.
func childOf(parent int, skip string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		close := strings.LastIndexByte(s, ')')
		if close < 0 {
			continue
		}
		fields := strings.Fields(s[close+1:])
		if len(fields) < 2 || fields[0] == "Z" {
			continue
		}
		if ppid, _ := strconv.Atoi(fields[1]); ppid != parent {
			continue
		}
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || strings.HasPrefix(filepath.Base(exe), skip) {
			continue
		}
		return pid
	}
	return 0
}

// TestRunCleansUpAfterTheCLIIsKilled: the real Claude Code killed with SIGKILL in the middle
// of a `memhost run` session: memhost run exits 137 like a shell, and leaves no scratch file
// and no process (the provider plugin included) behind, and no token but the project's.
func TestRunCleansUpAfterTheCLIIsKilled(t *testing.T) {
	t.Parallel()
	b := setup(t, standin.Anthropic, standin.Say(doneText))
	w := newSpawnWorld(t, b)
	marker := runMarkerVar + "=" + randomHex(8)
	cmd := exec.Command(testplugins.Memhost(t), "run", "--config", w.config, "--bin", cliPath(t, claudeCode), "claude", "--",
		"-p", prompt, "--output-format", "json")
	cmd.Dir = b.work
	cmd.Env = append(claudeEnv(t, b), "TMPDIR="+w.tmp, marker)
	out := &testlog.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

	var cli int
	require.Eventually(t, func() bool {
		cli = childOf(cmd.Process.Pid, "memhost")
		return cli != 0
	}, 30*time.Second, 5*time.Millisecond, "the CLI never started: %s", out)
	require.NoError(t, syscall.Kill(cli, syscall.SIGKILL))
	err := cmd.Wait()
	var exit *exec.ExitError
	require.True(t, errors.As(err, &exit), "memhost run: %v\n%s", err, out)
	require.Equal(t, 137, exit.ExitCode(), out.String())

	if left := reapRun(cmd.Process.Pid, marker); len(left) > 0 {
		t.Fatalf("left behind after the CLI was killed: %s", strings.Join(left, ", "))
	}
	w.requireNoScratch(t)
	list, err := exec.Command(testplugins.Memhost(t), "token", "list", "--config", w.config).Output()
	require.NoError(t, err)
	var tokens []string
	for _, line := range strings.Split(string(list), "\n") {
		if strings.Contains(line, "memhost run claude") {
			tokens = append(tokens, line)
		}
	}
	// The project's token, kept for its next sessions, expiring in a day.
	require.Len(t, tokens, 1, "%s", list)
	require.NotEqual(t, "-", strings.Fields(tokens[0])[len(strings.Fields(tokens[0]))-1], "it expires: %s", tokens[0])
}
