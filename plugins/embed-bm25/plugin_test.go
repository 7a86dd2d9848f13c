package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/plugins/embed-bm25/bm25"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// TestBinarySpeaksProtocol builds the plugin and runs it as a real plugin
// process (handshake, AutoMTLS, gRPC), proving the binary, not just the
// package, works with the host's client configuration.
func TestBinarySpeaksProtocol(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-embedder-bm25")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	e := embeddertest.Launch(t, bin)
	info, err := e.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, bm25.Name, info.Name)
	require.Equal(t, bm25.Dimensions, info.Dimensions)

	vecs, err := e.Embed(t.Context(), embedder.PurposeQuery, []string{"pnpm not npm", "port 8080"})
	require.NoError(t, err)
	require.Len(t, vecs, 2)

	embeddertest.Exercise(t, e)
}

// TestRunByHandExplainsItself: run without a host, the binary says what it
// is on stderr and exits 1, instead of go-plugin's generic message.
func TestRunByHandExplainsItself(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-embedder-bm25")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	cmd := exec.Command(bin)
	cmd.Env = os.Environ() // the test process is no host: no magic cookie
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	require.Equal(t, 1, exit.ExitCode())
	require.Empty(t, stdout.String(), "stdout carries only the handshake")
	require.Equal(t, "this program is a memhost embedder plugin: the memhost host starts it, it is not meant to be run by hand (to debug it, serve it in debug mode)\n", stderr.String())
}
