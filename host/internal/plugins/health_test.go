package plugins_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestASlowProbeIsNotAnOutage: one health probe that overruns its deadline (a loaded machine,
// a busy plugin) changes nothing an operator sees; two in a row show the plugin unhealthy
// until a probe answers again; three in a row restart the wedged process.
func TestASlowProbeIsNotAnOutage(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: 50 * time.Millisecond, RestartBackoffInitial: 10 * time.Millisecond})
	testplugins.Install(t, b.dir, "memhost-embedder-stallhealth", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	run(t, s)
	name := "misbehave-stallhealth-v1-8"
	require.Equal(t, plugins.StateReady, status(t, s, name).State)
	stall := func(n string) string {
		file := filepath.Join(b.dir, "stall.memhost-embedder-stallhealth")
		require.NoError(t, os.WriteFile(file, []byte(n), 0o600))
		return file
	}
	stalled := func(file string) bool {
		got, err := os.ReadFile(file)
		return err == nil && string(got) == "0"
	}

	// One stalled probe: ready throughout, through the probe's whole second and the next round.
	file := stall("1")
	deadline := time.Now().Add(20 * time.Second)
	for !stalled(file) {
		require.True(t, time.Now().Before(deadline), "the plugin was never probed")
		require.Equal(t, plugins.StateReady, status(t, s, name).State)
		time.Sleep(5 * time.Millisecond)
	}
	// Probes never overlap, so the next one that answers comes after the stalled one's deadline.
	answered := calls(t, b, name, "Health", "ok")
	require.Eventually(t, func() bool { return calls(t, b, name, "Health", "ok") > answered }, 20*time.Second, 5*time.Millisecond)
	require.Equal(t, plugins.StateReady, status(t, s, name).State)
	require.NotContains(t, b.log.String(), "plugin unhealthy", "one slow probe is not an outage")

	// Two in a row: unhealthy, then ready again without a restart.
	file = stall("2")
	require.Eventually(t, func() bool { return strings.Contains(b.log.String(), "plugin unhealthy") }, 20*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return stalled(file) && status(t, s, name).State == plugins.StateReady }, 20*time.Second, 5*time.Millisecond)
	require.Zero(t, status(t, s, name).Restarts)

	// Three in a row: the process is restarted.
	before := status(t, s, name).PID
	stall("3")
	require.Eventually(t, func() bool {
		st := status(t, s, name)
		return st.Restarts == 1 && st.State == plugins.StateReady
	}, 30*time.Second, 10*time.Millisecond)
	st := status(t, s, name)
	require.NotEqual(t, before, st.PID)
	require.Contains(t, st.LastError, "3 health checks in a row timed out")
}
