package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/plugins/worker-openaicompat/internal/fakeopenai"
	"github.com/memhost/memhost/plugins/worker-openaicompat/openaicompat"
	"github.com/memhost/memhost/sdk/worker"
	"github.com/memhost/memhost/sdk/worker/workertest"
)

func TestMain(m *testing.M) {
	// Launch's process and the fake runtime end with each test.
	goleak.VerifyTestMain(m)
}

// binary builds the plugin once per test into a temporary directory.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memhost-worker-openaicompat")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// launcher writes a script that runs bin with env, the way the host will
// start the plugin with one worker's settings, so that tests running in
// parallel can each configure their own.
func launcher(t *testing.T, bin string, env map[string]string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("#!/bin/sh\nexec env")
	for k, v := range env {
		fmt.Fprintf(&b, " %s='%s'", k, v)
	}
	fmt.Fprintf(&b, " '%s'\n", bin)
	path := filepath.Join(t.TempDir(), "launch.sh")
	require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o700))
	return path
}

// TestConformanceAsABinary runs the kit against the built plugin, launched
// as the host launches it, configured from its environment and answering
// from a stand-in runtime that demands the key.
func TestConformanceAsABinary(t *testing.T) {
	t.Parallel()
	const key = "sk-binary-test-key"
	srv := fakeopenai.Start(t, fakeopenai.Options{Mode: fakeopenai.NoJSONSchema, Key: key})
	w := workertest.Launch(t, launcher(t, binary(t), map[string]string{
		openaicompat.EnvBaseURL:   srv.URL,
		openaicompat.EnvModel:     "fake-model",
		openaicompat.EnvName:      "openaicompat-fake",
		openaicompat.EnvAPIKeyEnv: "FAKE_RUNTIME_KEY",
		"FAKE_RUNTIME_KEY":        key,
	}))
	workertest.Exercise(t, w)

	info, err := w.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "openaicompat-fake", info.Name)
	require.Equal(t, worker.LocalityLocal, info.Locality)
	for _, r := range srv.Requests() {
		require.Equal(t, "Bearer "+key, r.Authorization)
	}
}

// TestBinaryWithoutBaseURLReportsIt: a plugin started without its required
// variable still starts, and tells the host which variable is missing.
func TestBinaryWithoutBaseURLReportsIt(t *testing.T) {
	t.Parallel()
	w := workertest.Launch(t, launcher(t, binary(t), map[string]string{openaicompat.EnvModel: "m"}))
	_, err := w.Describe(t.Context())
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	require.ErrorContains(t, err, openaicompat.EnvBaseURL)
	require.ErrorContains(t, w.Health(t.Context()), openaicompat.EnvBaseURL)
}
