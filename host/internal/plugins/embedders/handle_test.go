package embedders_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
)

type bundle struct {
	dir string
	sup *plugins.Supervisor
}

// setup starts a Supervisor over a folder holding the given plugin binaries
// (file name -> built binary) and returns the handle of the one named first.
func setup(t *testing.T, cfg plugins.Config, files map[string]string) (*bundle, func(name string) *embedders.Handle) {
	t.Helper()
	b := &bundle{dir: t.TempDir()}
	for name, src := range files {
		testplugins.Install(t, b.dir, name, src)
	}
	cfg.Adapters = []plugins.Adapter{embedders.Adapter{}}
	cfg.Logger = hclog.New(&hclog.LoggerOptions{Output: os.Stderr, Level: hclog.Error})
	b.sup = plugins.New(cfg)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		require.NoError(t, b.sup.Shutdown(ctx))
	})
	cands, errs := plugins.Discover([]string{b.dir}, nil)
	require.Empty(t, errs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, b.sup.Start(ctx, cands))
	return b, func(name string) *embedders.Handle {
		t.Helper()
		h, err := embedders.Find(b.sup, name)
		require.NoError(t, err)
		return h
	}
}

// requireSafeForCallers checks that an error a caller may see is one short
// line that names no path.
func requireSafeForCallers(t *testing.T, err error, dir string) {
	t.Helper()
	msg := err.Error()
	require.NotContains(t, msg, "\n")
	require.NotContains(t, msg, dir)
	require.Less(t, len(msg), 200, "%q", msg)
}

// TestInvalidVectorsAreRefused: a plugin that answers with NaN, an infinity,
// a short vector, too few vectors or the zero vector for a text with words
// does not get them into the host. The
// call fails as unavailable (retry later), and the plugin is unhealthy with
// the reason until it answers Embed properly again; a passing health check
// does not hide it.
func TestInvalidVectorsAreRefused(t *testing.T) {
	t.Parallel()
	for mode, reason := range map[string]string{
		"nan":   "vector 1 component 3 is NaN",
		"inf":   "vector 1 component 3 is +Inf",
		"dims":  "vector 1 has 7 dimensions",
		"count": "1 vectors for 2 texts",
		"zero":  "vector 1 is all zeros",
	} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			file := "memhost-embedder-" + mode
			b, handle := setup(t, plugins.Config{HealthInterval: 10 * time.Millisecond}, map[string]string{file: misbehaveBinary})
			h := handle(mode)
			ctx, cancel := context.WithCancel(context.Background())
			ran := make(chan error, 1)
			go func() { ran <- b.sup.Run(ctx) }()
			defer func() { cancel(); require.NoError(t, <-ran) }()

			vecs, err := h.Embed(context.Background(), embedder.PurposeDocument, []string{"fine", "poison"})
			require.Nil(t, vecs)
			require.ErrorIs(t, err, embedder.ErrUnavailable)
			require.NotErrorIs(t, err, embedder.ErrInvalidInput)
			requireSafeForCallers(t, err, b.dir)
			require.Equal(t, "embedder plugin misbehave-"+mode+"-v1-8 Embed failed; the host log has the details", err.Error())

			st := h.Status()
			require.Equal(t, plugins.StateUnhealthy, st.State)
			require.Contains(t, st.LastError, "Embed: ")
			require.Contains(t, st.LastError, reason)

			time.Sleep(100 * time.Millisecond) // several health checks pass
			require.Equal(t, plugins.StateUnhealthy, h.State(), "health checks do not clear a bad answer")

			_, err = h.Embed(context.Background(), embedder.PurposeDocument, []string{"fine"})
			require.NoError(t, err)
			// Health checks alone never clear the bad answer (above), so ready shows the proper
			// answer cleared it.
			require.Eventually(t, func() bool { return h.State() == plugins.StateReady }, 5*time.Second, 10*time.Millisecond, "a proper answer clears it")
		})
	}
}

// TestLongTextsAreTruncated: texts over the plugin's MaxInputBytes are cut on
// a UTF-8 boundary by the host, as the protocol promises, instead of being
// rejected by the plugin.
func TestLongTextsAreTruncated(t *testing.T) {
	t.Parallel()
	_, handle := setup(t, plugins.Config{HealthInterval: -1}, map[string]string{
		"memhost-embedder-echo": misbehaveBinary,
		"memhost-embedder-bm25": bm25Binary,
	})
	ctx := context.Background()

	echo := handle("echo")
	require.Equal(t, 32, echo.Info().MaxInputBytes)
	texts := []string{"short", strings.Repeat("a", 40), "a" + strings.Repeat("é", 20)}
	vecs, err := echo.Embed(ctx, embedder.PurposeDocument, texts)
	require.NoError(t, err)
	for i, want := range []float32{5, 32, 31} { // 41 bytes with "é" at 31-32: cut before it
		require.Equal(t, want, vecs[i][0], "bytes received for text %d", i)
		require.Equal(t, float32(1), vecs[i][1], "text %d arrived as valid UTF-8", i)
	}
	require.Len(t, texts[2], 41, "the caller's slice is not modified")

	bm25 := handle("bm25")
	limit := bm25.Info().MaxInputBytes
	head := strings.Repeat("postgres is the source of truth ", limit/32+1)[:limit]
	got, err := bm25.Embed(ctx, embedder.PurposeDocument, []string{head + " and this tail is cut"})
	require.NoError(t, err, "a text over max_input_bytes is cut, not refused")
	want, err := bm25.Embed(ctx, embedder.PurposeDocument, []string{head})
	require.NoError(t, err)
	require.Equal(t, want, got)
}

// TestRejectedInputIsPermanent: a plugin's refusal of the input wraps
// embedder.ErrInvalidInput, not ErrUnavailable (which invites retries), on
// one line, and leaves the plugin ready.
func TestRejectedInputIsPermanent(t *testing.T) {
	t.Parallel()
	b, handle := setup(t, plugins.Config{HealthInterval: -1}, map[string]string{"memhost-embedder-ok": misbehaveBinary})
	h := handle("memhost-embedder-ok")
	_, err := h.Embed(context.Background(), embedder.PurposeDocument, []string{"please reject this"})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.NotErrorIs(t, err, embedder.ErrUnavailable)
	requireSafeForCallers(t, err, b.dir)
	require.Contains(t, err.Error(), "embedder plugin misbehave-ok-v1-8 rejected the request: ")
	require.Contains(t, err.Error(), "this text mentions reject and the reason spans lines")
	require.Equal(t, plugins.StateReady, h.State())
}

func TestListAndFind(t *testing.T) {
	t.Parallel()
	_, handle := setup(t, plugins.Config{HealthInterval: -1}, map[string]string{"memhost-embedder-bm25": bm25Binary})
	h := handle("bm25-v1-384")
	for _, name := range []string{"bm25", "memhost-embedder-bm25"} {
		require.Equal(t, h.Info(), handle(name).Info(), name)
	}
	require.Equal(t, "memhost-embedder-bm25", h.Binary())
	require.Equal(t, 384, h.Info().Dimensions)
}
