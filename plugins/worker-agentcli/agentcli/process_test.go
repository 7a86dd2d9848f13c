package agentcli_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/worker"
)

// started waits until the hanging fake has started its grandchild.
func (e env) started(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool {
		_, err := os.Stat(filepath.Join(e.record, "started"))
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
}

// requireNoSurvivor fails unless every process of the run is gone: the CLI
// ignoring SIGTERM and the grandchild it left behind.
func (e env) requireNoSurvivor(t *testing.T) {
	t.Helper()
	require.Eventually(t, func() bool { return len(e.survivors()) == 0 }, 2*time.Second, 20*time.Millisecond,
		"processes of the run are left behind: %v", e.survivors())
}

// TestTimeoutKillsTheWholeGroup: a CLI that hangs, ignores SIGTERM and
// spawned a grandchild is killed with all its processes at the worker's
// timeout, which is ErrTimeout.
func TestTimeoutKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	for _, cli := range clis {
		t.Run(string(cli), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			begin := time.Now()
			_, err := e.worker(cli, 500*time.Millisecond).Run(t.Context(), task("FAKE:hang", ""))
			require.ErrorIs(t, err, worker.ErrTimeout)
			require.ErrorContains(t, err, "gave no answer by the deadline, its processes were killed")
			require.Less(t, time.Since(begin), 5*time.Second)
			e.requireNoSurvivor(t)
		})
	}
}

// TestCancelKillsTheWholeGroup: cancelling the call kills every process.
func TestCancelKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := e.worker("claude", time.Minute).Run(ctx, task("FAKE:hang", ""))
		done <- err
	}()
	e.started(t)
	require.NotEmpty(t, e.survivors(), "the marker finds the run's processes")
	cancel()
	select {
	case err := <-done:
		require.ErrorIs(t, err, context.Canceled)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after its context was cancelled")
	}
	e.requireNoSurvivor(t)
}

// TestCloseKillsTheWholeGroup: the plugin's shutdown kills every CLI still
// running, with its descendants.
func TestCloseKillsTheWholeGroup(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	w := e.worker("codex", time.Minute)
	done := make(chan error, 1)
	go func() {
		_, err := w.Run(t.Context(), task("FAKE:hang", ""))
		done <- err
	}()
	e.started(t)
	w.Close()
	select {
	case err := <-done:
		require.ErrorIs(t, err, worker.ErrUnavailable)
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return after Close")
	}
	e.requireNoSurvivor(t)
}
