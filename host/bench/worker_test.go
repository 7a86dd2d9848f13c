package bench

import (
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestMeasureWorkers runs the worker round on the real plugins, built from this tree, and
// renders its section.
func TestMeasureWorkers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, testplugins.Build(filepath.Join(dir, "memhost-worker-echo"), "sdk/examples/worker-echo"))
	require.NoError(t, testplugins.Build(filepath.Join(dir, "memhost-worker-agentcli"), "plugins/worker-agentcli"))
	wb, err := measureWorkers(t.Context(), dir, 10, io.Discard)
	require.NoError(t, err)
	for _, l := range []Latency{wb.Echo, wb.AgentCLI, wb.CLIAlone} {
		require.Equal(t, 10, l.N)
		require.Positive(t, l.P50)
		require.GreaterOrEqual(t, l.Max, l.P99)
	}
	var b strings.Builder
	renderWorkers(&b, wb)
	require.Contains(t, b.String(), "## Worker calls, without the model (10 calls each)")
	require.Contains(t, b.String(), "| merge task on worker-agentcli, fake claude answering at once |")
}
