package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/sdk/worker/workertest"
)

func TestMain(m *testing.M) {
	// Launch's process and the in-process connection end with each test.
	goleak.VerifyTestMain(m)
}

func TestConformance(t *testing.T) {
	t.Parallel()
	workertest.Exercise(t, echo{})
	workertest.Exercise(t, workertest.Serve(t, echo{}))
}

// TestConformanceAsABinary runs the kit against the built plugin, launched
// as the host launches it: its own process, go-plugin's handshake, AutoMTLS.
func TestConformanceAsABinary(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-worker-echo")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	workertest.Exercise(t, workertest.Launch(t, bin))
}
