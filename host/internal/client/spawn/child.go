package spawn

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// exitNotRun is the exit status when the CLI could not be started, as a shell reports a
// command it cannot find; exitInterrupted when memhost run was interrupted before starting it.
const (
	exitNotRun      = 127
	exitInterrupted = 128 + int(syscall.SIGINT)
)

// exitStatus is the CLI's exit status in the shell's convention: its exit code, or 128+N
// when signal N killed it.
func exitStatus(state *os.ProcessState) int {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return state.ExitCode()
}

// wait waits for the CLI to exit, forwarding every signal that arrives on sigs to it.
func wait(cmd *exec.Cmd, sigs <-chan os.Signal) int {
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-sigs:
				_ = cmd.Process.Signal(s)
			case <-done:
				return
			}
		}
	}()
	_ = cmd.Wait()
	close(done)
	return exitStatus(cmd.ProcessState)
}

// Signals subscribes memhost run to the signals a user or a supervisor sends it and returns
// those the CLI must get from it; stop ends the subscription. SIGTERM and SIGHUP are always
// passed on. SIGINT and SIGQUIT are passed on only when stdin is not a terminal: on a
// terminal, Ctrl-C and Ctrl-\ already reach the CLI, which shares memhost run's process group,
// and a second copy would look like a second keypress (Claude Code exits on a double Ctrl-C).
// Either way memhost run itself survives them, to clean up after the CLI.
func Signals(terminal bool) (forward <-chan os.Signal, stop func()) {
	in := make(chan os.Signal, 8)
	out := make(chan os.Signal, 8)
	signal.Notify(in, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT)
	quit := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-in:
				if terminal && (s == syscall.SIGINT || s == syscall.SIGQUIT) {
					continue
				}
				select {
				case out <- s:
				default: // the CLI is being told already
				}
			case <-quit:
				return
			}
		}
	}()
	return out, func() {
		signal.Stop(in)
		close(quit)
	}
}

// lookPath finds the executable file name in the directories of path (a PATH value), as a
// shell would for the user's environment rather than memhost's own.
func lookPath(name, path string) (string, error) {
	if strings.Contains(name, "/") {
		abs, err := filepath.Abs(name)
		if err != nil {
			return "", err
		}
		if !executable(abs) {
			return "", fmt.Errorf("%s is not an executable file", name)
		}
		return abs, nil
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" {
			continue // an empty entry means the working directory; a shell would, memhost does not
		}
		if p := filepath.Join(dir, name); executable(p) {
			if abs, err := filepath.Abs(p); err == nil {
				return abs, nil
			}
		}
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// envMap and envList convert between os.Environ's form and a map; envList sorts, so the CLI's
// environment does not depend on map order.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			m[k] = v
		}
	}
	return m
}

func envList(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

// notFound reports whether err says the executable does not exist.
func notFound(err error) bool {
	return errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist)
}
