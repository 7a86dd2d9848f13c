package plugins_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
)

// TestPluginOutputReachesTheLog: whatever a plugin writes to stderr reaches
// the host log at the host's usual level: plain text, JSON that is not
// hclog, hclog JSON whose timestamp go-plugin cannot parse, and what a Go
// plugin writes to os.Stderr after Serve (which go-plugin carries over gRPC).
func TestPluginOutputReachesTheLog(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: -1})
	testplugins.Install(t, b.dir, "memhost-embedder-chatty", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	h, err := embedders.Find(s, "chatty")
	require.NoError(t, err)
	_, err = h.Embed(context.Background(), embedder.PurposeDocument, []string{"hello"})
	require.NoError(t, err)

	for _, line := range []string{
		"chatty: plain text at startup",
		`{"level":"info","msg":"chatty: json that is not hclog"}`,
		"chatty: hclog with a millisecond timestamp: model=tiny",
		"chatty: plain text through os.Stderr",
		"chatty: plain text on the stderr descriptor",
	} {
		require.Eventually(t, func() bool { return strings.Contains(b.log.String(), line) }, 5*time.Second, 10*time.Millisecond,
			"the host log lacks %q:\n%s", line, b.log)
	}
	require.Contains(t, b.log.String(), "[WARN]  test.plugins.embedder-chatty: chatty: hclog with a millisecond timestamp",
		"an hclog line keeps its level and is logged under the plugin's name")
}

// TestCrashLastWords: a plugin that writes plain text and then panics has
// both in the host log, its last words in Status, and the caller gets a
// short error.
func TestCrashLastWords(t *testing.T) {
	t.Parallel()
	s, b := setup(t, plugins.Config{HealthInterval: -1, RestartBackoffInitial: 10 * time.Millisecond})
	testplugins.Install(t, b.dir, "memhost-embedder-crash", misbehaveBinary)
	require.NoError(t, startAll(t, s, b.dir))
	h, err := embedders.Find(s, "crash")
	require.NoError(t, err)

	_, err = h.Embed(context.Background(), embedder.PurposeDocument, []string{"hello"})
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	requireSafeForCallers(t, err, b.dir)

	require.Eventually(t, func() bool {
		st := h.Status()
		return st.Restarts == 1 && st.State == plugins.StateReady
	}, 10*time.Second, 10*time.Millisecond)
	st := h.Status()
	require.Contains(t, st.LastError, "last output: panic: misbehave: crashing on purpose", "Status: %+v", st)
	log := b.log.String()
	require.Contains(t, log, "[INFO]  test.plugins.embedder-crash: crash: the model file is corrupt, giving up")
	require.Contains(t, log, "[ERROR] test.plugins.embedder-crash: panic: misbehave: crashing on purpose")
	require.Contains(t, log, "[ERROR] test.plugins.embedder-crash: goroutine ", "the trace follows the panic at its level")
}
