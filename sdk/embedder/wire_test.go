package embedder_test

import (
	"context"
	"errors"
	"testing"
	"time"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"

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

func TestVersionedPluginsIncludesEmbedder(t *testing.T) {
	t.Parallel()
	sets := plugin.VersionedPlugins(embedder.Kind)
	require.Contains(t, sets, plugin.ProtocolVersion)
	require.Implements(t, (*goplugin.GRPCPlugin)(nil), sets[plugin.ProtocolVersion][plugin.KindEmbedder])
}

func TestSentinelsAreTheKindNeutralOnes(t *testing.T) {
	t.Parallel()
	e := embeddertest.Serve(t, &fake{})
	_, err := e.Embed(t.Context(), embedder.PurposeDocument, make([]string, 9))
	require.ErrorIs(t, err, plugin.ErrInvalidInput, "a host checks one sentinel for every kind")
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
}
