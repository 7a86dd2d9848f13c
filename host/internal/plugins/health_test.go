package plugins_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
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

// TestAProbeBehindABusyModelIsNotAnOutage: a model that answers one request at a time (a local
// CPU model) keeps a probe waiting behind a long batch, past the probe's timeout, again and
// again. The plugin is busy, not sick: it stays ready, is never restarted (a restart would
// kill the batch), and the batch is answered.
func TestAProbeBehindABusyModelIsNotAnOutage(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: 50 * time.Millisecond, CallTimeout: 20 * time.Second})
	testplugins.Install(t, b.dir, "memhost-embedder-onelane", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	run(t, s)
	name := "misbehave-onelane-v1-8"
	h, err := embedders.Find(s, name)
	require.NoError(t, err)
	// Four probe timeouts (1 s each) fit in the batch: more than the restart threshold.
	_, err = h.Embed(context.Background(), embedder.PurposeDocument, []string{"hold:4500"})
	require.NoError(t, err, "the batch is answered")
	require.GreaterOrEqual(t, calls(t, b, name, "Health", "timeout")+calls(t, b, name, "Health", "unavailable"), 3.0,
		"probes did time out behind the batch")
	st := status(t, s, name)
	require.Equal(t, plugins.StateReady, st.State)
	require.Zero(t, st.Restarts)
	require.NotContains(t, b.log.String(), "plugin unhealthy", "a busy model is not an outage")
}

// TestAWedgedModelIsRestartedUnderTraffic: probes defer to calls in flight, so a process that
// answers nothing while calls keep arriving is caught by the calls' own timeouts: three in a
// row restart it, and the new process answers.
func TestAWedgedModelIsRestartedUnderTraffic(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: 50 * time.Millisecond, CallTimeout: 1500 * time.Millisecond,
		RestartBackoffInitial: 100 * time.Millisecond})
	testplugins.Install(t, b.dir, "memhost-embedder-onelane", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	run(t, s)
	name := "misbehave-onelane-v1-8"
	h, err := embedders.Find(s, name)
	require.NoError(t, err)
	ctx, stop := context.WithCancel(context.Background())
	var traffic sync.WaitGroup
	for range 2 {
		traffic.Add(1)
		go func() {
			defer traffic.Done()
			for ctx.Err() == nil {
				_, _ = h.Embed(ctx, embedder.PurposeDocument, []string{"wedge"})
			}
		}()
	}
	require.Eventually(t, func() bool { return status(t, s, name).Restarts >= 1 }, 30*time.Second, 20*time.Millisecond,
		"a wedged process under traffic is restarted")
	stop()
	traffic.Wait()
	require.Contains(t, b.log.String(), "is wedged")
	require.Eventually(t, func() bool {
		_, err := h.Embed(context.Background(), embedder.PurposeDocument, []string{"we use pnpm"})
		return err == nil
	}, 15*time.Second, 50*time.Millisecond, "the new process answers")
}
