//go:build e2ecli

package e2ecli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/testkit/testlog"
)

// cliTimeout bounds one headless CLI run; each finishes in a few seconds against a stand-in.
const cliTimeout = 2 * time.Minute

// cliRun is what one CLI run printed and how it ended.
type cliRun struct {
	stdout, stderr string
	exitCode       int
	took           time.Duration
}

// runMarkerVar is set in every CLI run's environment with a value unique to the run, so every
// process the run started can be found again, also one that left the process group.
const runMarkerVar = "MEMHOST_E2ECLI_RUN"

// runCLI runs bin headless in dir with exactly env (nothing inherited) and stdin from
// /dev/null, in its own process group, bounded by cliTimeout. It fails the test on a timeout
// and on any process of the run still alive after it exits (those are killed).
func runCLI(t *testing.T, dir string, env []string, bin string, args ...string) cliRun {
	t.Helper()
	marker := runMarkerVar + "=" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), cliTimeout)
	defer cancel()
	var stdout, stderr testlog.Buffer
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), env...), marker)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second // a grandchild holding stdout open must not hang the test
	start := time.Now()
	err := cmd.Run()
	run := cliRun{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	pgid := 0
	if cmd.Process != nil {
		pgid = cmd.Process.Pid
	}
	if left := reapRun(pgid, marker); len(left) > 0 {
		t.Errorf("%s left processes behind (killed now): %s", filepath.Base(bin), strings.Join(left, ", "))
	}
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %s\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), cliTimeout, run.stdout, run.stderr)
	}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		run.exitCode = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %s: %v", filepath.Base(bin), err)
	}
	return run
}

// reapRun waits up to three seconds for the run's processes (its process group, or the marker
// in their environment) to exit, then kills and names the ones still alive.
func reapRun(pgid int, marker string) []string {
	deadline := time.Now().Add(3 * time.Second)
	for {
		left := runProcesses(pgid, marker)
		if len(left) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			var names []string
			for pid, name := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
				names = append(names, fmt.Sprintf("%s (pid %d)", name, pid))
			}
			return names
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// runProcesses finds live processes in process group pgid (if not 0) or with marker (if
// not empty) in their environment.
func runProcesses(pgid int, marker string) map[int]string {
	found := map[int]string{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses.
		open, close := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || close < open {
			continue
		}
		fields := strings.Fields(string(stat[close+1:]))
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		group, _ := strconv.Atoi(fields[2])
		inGroup := pgid > 0 && group == pgid
		if !inGroup {
			if marker == "" {
				continue
			}
			environ, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
			if err != nil || !bytes.Contains(environ, []byte(marker+"\x00")) {
				continue
			}
		}
		found[pid] = string(stat[open+1 : close])
	}
	return found
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
