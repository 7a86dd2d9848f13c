package plugins_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// TestASlowProbeIsNotAnOutage: a health probe is given a call's time, however short the
// interval, so a plugin that answers its probes slowly (a busy process on a loaded machine,
// here 300 ms against a 50 ms interval) is never shown unhealthy, nor restarted.
func TestASlowProbeIsNotAnOutage(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: 50 * time.Millisecond})
	testplugins.Install(t, b.dir, "memhost-embedder-slowhealth", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	run(t, s)
	name := "misbehave-slowhealth-v1-8"
	file := filepath.Join(b.dir, "slow.memhost-embedder-slowhealth")
	require.NoError(t, os.WriteFile(file, []byte("4"), 0o600))
	require.Eventually(t, func() bool {
		got, err := os.ReadFile(file)
		return err == nil && string(got) == "0"
	}, 20*time.Second, 5*time.Millisecond, "four slow probes were made")
	// Probes never overlap: the next that answers comes after the last slow one.
	answered := calls(t, b, name, "Health", "ok")
	require.Eventually(t, func() bool { return calls(t, b, name, "Health", "ok") > answered }, 20*time.Second, 5*time.Millisecond)
	st := status(t, s, name)
	require.Equal(t, plugins.StateReady, st.State)
	require.Zero(t, st.Restarts)
	require.NotContains(t, b.log.String(), "plugin unhealthy", "a slow probe is not an outage")
}
