package agentcli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/worker/workertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, cli := range clis {
		t.Run(string(cli), func(t *testing.T) {
			t.Parallel()
			w := newEnv(t).worker(cli, time.Minute)
			workertest.Exercise(t, w)
			workertest.Exercise(t, workertest.Serve(t, w))
		})
	}
}

// TestConformanceAsABinary runs the kit against the built plugin, launched
// as the host launches it, configured by its environment only, with the
// fake CLI found on PATH.
func TestConformanceAsABinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := filepath.Join(dir, "memhost-worker-agentcli")
	build := exec.Command("go", "build", "-o", bin, "..")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	for _, cli := range clis {
		t.Run(string(cli), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			// The host passes the worker's settings in the plugin's
			// environment; a wrapper does so here without touching the
			// test process's own.
			wrapper := filepath.Join(t.TempDir(), "memhost-worker-agentcli")
			script := "#!/bin/sh\nexport PATH=" + fakeBin + ":/usr/bin:/bin HOME=" + e.home +
				" MEMHOST_WORKER_CLI=" + string(cli) + " MEMHOST_WORKER_NAME=agentcli-" + string(cli) + "\nexec " + bin + "\n"
			require.NoError(t, os.WriteFile(wrapper, []byte(script), 0o700))
			workertest.Exercise(t, workertest.Launch(t, wrapper))
		})
	}
}
