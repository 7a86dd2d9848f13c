package embedder_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/plugin"
)

func TestServeRejectsNilImpl(t *testing.T) {
	t.Parallel()
	require.EqualError(t, embedder.Serve(nil), "embedder.Serve: impl is nil")
}

func TestServeRunByHandReturnsAnError(t *testing.T) {
	t.Parallel()
	err := embedder.Serve(lengthEmbedder{})
	require.ErrorContains(t, err, "this program is a memhost embedder plugin: the memhost host starts it, it is not meant to be run by hand")
}

// serveDebug runs Serve in debug mode on its own goroutine with opts and
// returns the attached Embedder. When the test ends, it requires that Serve
// returned nil once the attached client shut the plugin down.
func serveDebug(t *testing.T, impl embedder.Embedder, opts ...embedder.ServeOption) embedder.Embedder {
	t.Helper()
	ready := make(chan plugin.ReattachConfig, 1)
	served := make(chan error, 1)
	go func() {
		opts = append(opts, embedder.WithDebug(context.Background(), func(rc plugin.ReattachConfig) { ready <- rc }))
		served <- embedder.Serve(impl, opts...)
	}()
	// Registered before Attach's cleanup, so it runs after it.
	t.Cleanup(func() {
		select {
		case err := <-served:
			require.NoError(t, err)
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the attached client shut the plugin down")
		}
	})
	select {
	case rc := <-ready:
		return embeddertest.Attach(t, rc)
	case err := <-served:
		t.Fatalf("Serve returned before listening: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve in debug mode never reported where to attach")
	}
	return nil
}

func TestServeWithDebugPassesTheKitThroughAttach(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, serveDebug(t, lengthEmbedder{}))
}

// syncBuffer is a bytes.Buffer safe for the logger's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestWithLoggerReceivesRecoveredPanics(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	logger := hclog.New(&hclog.LoggerOptions{Output: &log, Level: hclog.Debug, JSONFormat: true})
	e := serveDebug(t, &fake{embed: func(context.Context, []string) ([][]float32, error) { panic("boom") }}, embedder.WithLogger(logger))
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a"})
	require.ErrorContains(t, err, "embedder Embed panicked: boom")
	require.Contains(t, log.String(), `"@message":"implementation panicked"`)
	require.Contains(t, log.String(), `"stack":"goroutine`, "the stack goes to the plugin's log, not to the caller")
	require.NotContains(t, err.Error(), "goroutine")
}

// TestPublicAPIHasNoGlue pins the layering: the author-facing package converts
// to and from the wire, but its API shows only its own types.
func TestPublicAPIHasNoGlue(t *testing.T) {
	t.Parallel()
	plugintest.RequireNoGlueInAPI(t, ".")
}
