package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestConnectAsksTheCLIsProvider: memhost connect knows no CLI of its own (any name may have a
// provider); without the CLI's provider plugin in the plugin folders it says which plugin it
// looked for, and where.
func TestConnectAsksTheCLIsProvider(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := writeConfig(t, dir, "")
	out, err := run(t, "connect", "aider", "--config", cfg, "--yes")
	require.Error(t, err, out)
	require.Contains(t, err.Error(), "no provider plugin memhost-provider-aider in "+dir)
	require.Contains(t, err.Error(), "memhost connect asks the CLI's provider what to change")
}
