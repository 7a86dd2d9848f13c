package testplugins

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// processDir makes a temporary folder for this test process's builds, named for its pid:
// prefix<pid>-<random>. The binaries are built once per test process and shared by its tests,
// and a test binary has no exit hook to remove them (a TestMain is per package, and a killed
// run runs none), so each new folder first removes the folders of test processes that have
// ended. Without it every `make test` left 0.5-1 GB in /tmp, and a few hundred runs filled the
// disk mid-run.
func processDir(prefix string) (string, error) {
	sweepEnded(os.TempDir(), prefix)
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// sweepEnded removes the folders in dir named prefix<pid>-... whose process has ended. A
// folder of another user's run, or one named otherwise, is left alone.
func sweepEnded(dir, prefix string) {
	matches, _ := filepath.Glob(filepath.Join(dir, prefix+"*"))
	for _, m := range matches {
		pidText, _, ok := strings.Cut(strings.TrimPrefix(filepath.Base(m), prefix), "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || alive(pid) {
			continue
		}
		_ = os.RemoveAll(m) // best effort: another user's folder stays
	}
}

// alive reports whether a process with this pid exists (EPERM: it does, as another user's).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
