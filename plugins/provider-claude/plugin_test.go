package main

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/provider/providertest"
)

// TestBinarySpeaksProtocol builds the plugin and runs the conformance kit
// against it as a real plugin process (handshake, AutoMTLS, gRPC).
func TestBinarySpeaksProtocol(t *testing.T) {
	t.Parallel()
	bin := filepath.Join(t.TempDir(), "memhost-provider-claude")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	p := providertest.Launch(t, bin)
	info, err := p.Describe(t.Context())
	require.NoError(t, err)
	require.Equal(t, "claude", info.Name)
	require.Equal(t, "claude", info.Executable)
	providertest.Exercise(t, p)
}
