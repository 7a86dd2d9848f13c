package workertest_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/worker"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

// recorder is a testing.TB whose failures and cleanups the test inspects and runs itself.
type recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Cleanup(f func()) { r.cleanups = append(r.cleanups, f) }

func (r *recorder) runCleanups() {
	for _, f := range slices.Backward(r.cleanups) {
		f()
	}
}

// TestLaunchFailsAWorkerThatWritesToStdout: a line on stdout, where go-plugin's handshake
// travels, fails the test that launched the worker.
func TestLaunchFailsAWorkerThatWritesToStdout(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-worker-stdout")
	build := exec.Command("go", "build", "-o", bin, "../../internal/testworker")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	r := &recorder{TB: t}
	w := workertest.Launch(r, bin)
	_, err := w.Run(t.Context(), worker.Task{
		Kind: worker.TaskMerge, Input: "a", Deadline: time.Now().Add(time.Minute), TokenBudget: 100,
	})
	require.NoError(t, err)
	require.Empty(t, r.errs, "nothing is reported before the test ends")
	// go-plugin carries the line on a stream of its own, which the answer may overtake; a test
	// that launches a worker runs for longer than this before it ends.
	time.Sleep(200 * time.Millisecond)
	r.runCleanups()
	require.Len(t, r.errs, 1)
	require.Contains(t, r.errs[0], "wrote to stdout, which carries the handshake")
	require.Contains(t, r.errs[0], "testworker: a line on stdout")
}
