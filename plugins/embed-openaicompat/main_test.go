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

	"github.com/memhost/memhost/plugins/embed-openaicompat/openaicompat"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

func TestMain(m *testing.M) {
	// Launch's process and the fake runtime end with each test.
	goleak.VerifyTestMain(m)
}

// binary builds the plugin once per test into a temporary directory.
func binary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memhost-embedder-openaicompat")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())
	return bin
}

// launcher writes a script that runs bin with env, the way the host starts
// the plugin with one embedder's settings, so that tests running in
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
// as the host launches it, configured from its environment and embedding
// through a stand-in runtime that demands the key.
func TestConformanceAsABinary(t *testing.T) {
	t.Parallel()
	const key = "sk-binary-test-key"
	srv := openaifake.Start(t, openaifake.Options{Dimensions: 1024, Key: key, Model: "nomic-embed-text"})
	e := embeddertest.Launch(t, launcher(t, binary(t), map[string]string{
		openaicompat.EnvBaseURL:   srv.URL(),
		openaicompat.EnvModel:     "nomic-embed-text",
		openaicompat.EnvName:      "local",
		openaicompat.EnvAPIKeyEnv: "FAKE_RUNTIME_KEY",
		"FAKE_RUNTIME_KEY":        key,
	}))
	embeddertest.Exercise(t, e)

	info, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "nomic-embed-text-1024", info.Name)
	require.Equal(t, 1024, info.Dimensions)
	for _, r := range srv.Requests() {
		require.Equal(t, "Bearer "+key, r.Authorization)
		require.Equal(t, "float", r.EncodingFormat)
	}
}

// TestBinaryWithoutBaseURLReportsIt: a plugin started without its required
// variable still starts, and tells the host which variable is missing.
func TestBinaryWithoutBaseURLReportsIt(t *testing.T) {
	t.Parallel()
	e := embeddertest.Launch(t, launcher(t, binary(t), map[string]string{openaicompat.EnvModel: "m"}))
	_, err := e.Describe(t.Context())
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, openaicompat.EnvBaseURL)
	require.ErrorContains(t, e.Health(t.Context()), openaicompat.EnvBaseURL)
}
