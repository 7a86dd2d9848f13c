package embedder_test

import (
	"context"
	"errors"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
	"github.com/memhost/memhost/sdk/plugin"
)

func TestConformanceOverGRPC(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, embeddertest.Serve(t, lengthEmbedder{}))
}

func TestConformanceInProcess(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, lengthEmbedder{})
}

// fake is an embedder whose behaviour each test sets.
type fake struct {
	lengthEmbedder
	info   *embedder.Info
	embed  func(ctx context.Context, texts []string) ([][]float32, error)
	health error
}

var _ embedder.Embedder = (*fake)(nil)

func (f *fake) Describe(ctx context.Context) (embedder.Info, error) {
	if f.info != nil {
		return *f.info, nil
	}
	return f.lengthEmbedder.Describe(ctx)
}

func (f *fake) Embed(ctx context.Context, p embedder.Purpose, texts []string) ([][]float32, error) {
	if f.embed != nil {
		return f.embed(ctx, texts)
	}
	return f.lengthEmbedder.Embed(ctx, p, texts)
}

func (f *fake) Health(context.Context) error { return f.health }

func TestBatchOverMaxBatchIsInvalidInput(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{})
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, make([]string, 9))
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, "max batch 8")
	require.ErrorContains(t, err, "Embed")
}

func TestTextOverMaxInputBytesIsInvalidInput(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{})
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{string(make([]byte, 1025))})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, "max input bytes 1024")
}

func TestPanicBecomesInternalErrorAndServerSurvives(t *testing.T) {
	t.Parallel()
	calls := 0
	e := embeddertest.Serve(t, &fake{embed: func(_ context.Context, texts []string) ([][]float32, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return lengthEmbedder{}.Embed(context.Background(), embedder.PurposeDocument, texts)
	}})
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a"})
	require.ErrorContains(t, err, "Internal")
	require.ErrorContains(t, err, "panicked: boom")

	vecs, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a"})
	require.NoError(t, err)
	require.Len(t, vecs, 1)
}

func TestClientValidatesResponses(t *testing.T) {
	t.Parallel()
	t.Run("vector count", func(t *testing.T) {
		t.Parallel()
		e := embeddertest.Serve(t, &fake{embed: func(context.Context, []string) ([][]float32, error) {
			return [][]float32{{1, 2}}, nil
		}})
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a", "b"})
		require.ErrorContains(t, err, "returned 1 vectors for 2 texts")
	})
	t.Run("vector length", func(t *testing.T) {
		t.Parallel()
		e := embeddertest.Serve(t, &fake{embed: func(context.Context, []string) ([][]float32, error) {
			return [][]float32{{1, 2}, {1, 2, 3}}, nil
		}})
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a", "b"})
		require.ErrorContains(t, err, "vector 1 has 3 dimensions, Describe promised 2")
	})
	t.Run("describe", func(t *testing.T) {
		t.Parallel()
		bad := embedder.Info{Name: "x", Dimensions: 2, MaxBatch: 1, SuggestedFoldThreshold: 1.5}
		e := embeddertest.Serve(t, &fake{info: &bad})
		_, err := e.Describe(t.Context())
		require.ErrorContains(t, err, "suggested fold threshold 1.5 must be in (0, 1]")
	})
}

func TestImplementationErrorsMapToSentinels(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{embed: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.Join(embedder.ErrInvalidInput, errors.New("text is binary"))
	}})
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"a"})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, "text is binary")

	e = embeddertest.Serve(t, &fake{embed: func(context.Context, []string) ([][]float32, error) {
		return nil, errors.New("model not loaded")
	}})
	_, err = e.Embed(t.Context(), embedder.PurposeDocument, []string{"a"})
	require.ErrorContains(t, err, "embedder Embed: Unknown: model not loaded")
}

func TestDeadlineIsForwarded(t *testing.T) {
	t.Parallel()
	sawDone := make(chan error, 1)
	e := embeddertest.Serve(t, &fake{embed: func(ctx context.Context, _ []string) ([][]float32, error) {
		<-ctx.Done()
		sawDone <- ctx.Err()
		return nil, ctx.Err()
	}})
	_, err := e.Describe(t.Context()) // warm the dimensions cache
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = e.Embed(ctx, embedder.PurposeDocument, []string{"a"})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	select {
	case serverErr := <-sawDone:
		// The client's cancellation may reach the plugin before the
		// propagated deadline fires there; either way the plugin stopped.
		require.Error(t, serverErr)
	case <-time.After(5 * time.Second):
		t.Fatal("plugin side never saw the deadline")
	}
}

func TestHealth(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{health: errors.New("model file missing")})
	err := e.Health(t.Context())
	require.ErrorIs(t, err, embedder.ErrUnhealthy)
	require.ErrorContains(t, err, "model file missing")
}

func TestInvalidPurpose(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{})
	_, err := e.Embed(t.Context(), embedder.Purpose(7), []string{"a"})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.Equal(t, "Purpose(7)", embedder.Purpose(7).String())
}

// emptyServer serves no gRPC service at all, like a plugin built before the
// embedder kind existed, while the host side is the real embedder client.
type emptyServer struct {
	embedder.GRPCPlugin
}

func (emptyServer) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error { return nil }

func TestMissingServiceIsUnimplemented(t *testing.T) {
	t.Parallel()
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		plugin.KindEmbedder: &emptyServer{},
	})
	t.Cleanup(func() {
		// Close asks the server to stop through go-plugin's controller
		// service; calling server.Stop as well would race with that.
		_ = client.Close()
		<-server.DoneCh
	})
	raw, err := client.Dispense(plugin.KindEmbedder)
	require.NoError(t, err)
	e := raw.(embedder.Embedder)
	_, err = e.Describe(t.Context())
	require.ErrorIs(t, err, embedder.ErrUnimplemented)
	require.ErrorContains(t, err, "embedder Describe")
	require.ErrorIs(t, e.Health(t.Context()), embedder.ErrUnimplemented)
}

func TestVersionedPluginsIncludesEmbedder(t *testing.T) {
	t.Parallel()
	sets := plugin.VersionedPlugins()
	require.Contains(t, sets, plugin.ProtocolVersion)
	require.IsType(t, &embedder.GRPCPlugin{}, sets[plugin.ProtocolVersion][plugin.KindEmbedder])
}

// blockingEmbedder holds every Embed call until the call's context ends.
type blockingEmbedder struct {
	lengthEmbedder
	started chan struct{}
}

func (b blockingEmbedder) Embed(ctx context.Context, _ embedder.Purpose, _ []string) ([][]float32, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestConnectionClosingMidCallIsUnavailable: when the connection to a plugin closes under a call
// (the process is going away) while the caller still waits, the caller gets ErrUnavailable, a
// retryable condition, not a context error that would look like its own cancellation.
func TestConnectionClosingMidCallIsUnavailable(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		plugin.KindEmbedder: &embedder.GRPCPlugin{Impl: blockingEmbedder{started: started}},
	})
	t.Cleanup(func() {
		server.Stop()
		<-server.DoneCh
	})
	raw, err := client.Dispense(plugin.KindEmbedder)
	require.NoError(t, err)
	e := raw.(embedder.Embedder)
	errc := make(chan error, 1)
	go func() {
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
		errc <- err
	}()
	<-started // the call is in flight: the implementation has it
	// Closing the connection under the call is what a host sees when it tears down a dying
	// process's client: gRPC reports codes.Canceled although the caller cancelled nothing.
	require.NoError(t, client.Conn.Close())
	err = <-errc
	require.ErrorIs(t, err, embedder.ErrUnavailable)
	require.NotErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "connection is closing")
}
