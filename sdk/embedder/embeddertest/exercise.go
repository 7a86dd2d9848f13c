package embeddertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
)

// callTimeout bounds every call Exercise makes, so a hanging embedder fails
// the test instead of stalling it until the go test deadline.
const callTimeout = 30 * time.Second

// Exercise runs the conformance subtests against e, which may be an
// implementation, the result of Serve, or the result of Launch. Subtests run
// in parallel; e must be safe for concurrent use, as the host requires.
func Exercise(t *testing.T, e embedder.Embedder) {
	t.Helper()

	info := describe(t, e)

	t.Run("DescribeIsSane", func(t *testing.T) {
		t.Parallel()
		require.NoError(t, info.Validate())
		require.NotEmpty(t, info.Version, "version")
		again := describe(t, e)
		require.Equal(t, info, again, "Describe must be stable")
	})

	t.Run("OneVectorPerText", func(t *testing.T) {
		t.Parallel()
		texts := []string{"we use pnpm, not npm, in this repo", "the API listens on port 8080", "tests need TEST_DATABASE_URL"}
		for _, p := range []embedder.Purpose{embedder.PurposeDocument, embedder.PurposeQuery} {
			vecs := embed(t, e, p, texts)
			requireShape(t, info, texts, vecs)
			for i, v := range vecs {
				require.NotZero(t, norm(v), "vector %d (%s) is all zeros", i, p)
			}
		}
	})

	t.Run("Deterministic", func(t *testing.T) {
		t.Parallel()
		texts := []string{"deploys go through the staging cluster first", "deploys go through the staging cluster first"}
		a := embed(t, e, embedder.PurposeDocument, texts)
		b := embed(t, e, embedder.PurposeDocument, texts[:1])
		require.Equal(t, a[0], a[1], "identical texts in one batch")
		require.Equal(t, a[0], b[0], "identical text in different batches")
	})

	t.Run("EmptyBatch", func(t *testing.T) {
		t.Parallel()
		vecs := embed(t, e, embedder.PurposeDocument, nil)
		require.Empty(t, vecs)
	})

	t.Run("EmptyText", func(t *testing.T) {
		t.Parallel()
		texts := []string{""}
		requireShape(t, info, texts, embed(t, e, embedder.PurposeDocument, texts))
	})

	t.Run("MaxBatch", func(t *testing.T) {
		t.Parallel()
		texts := make([]string, info.MaxBatch)
		for i := range texts {
			texts[i] = fmt.Sprintf("fact number %d about service%d", i, i%7)
		}
		requireShape(t, info, texts, embed(t, e, embedder.PurposeDocument, texts))
	})

	t.Run("MaxInputBytes", func(t *testing.T) {
		t.Parallel()
		if info.MaxInputBytes == 0 {
			t.Skip("no input limit declared")
		}
		word := "memory "
		text := strings.Repeat(word, info.MaxInputBytes/len(word))
		texts := []string{text}
		requireShape(t, info, texts, embed(t, e, embedder.PurposeDocument, texts))
	})

	t.Run("Unicode", func(t *testing.T) {
		t.Parallel()
		texts := []string{"naïve café ünïcödé", "東京タワーの設定", "emoji 🚀 deploys", "invalid \xff\xfe utf8"}
		requireShape(t, info, texts, embed(t, e, embedder.PurposeDocument, texts))
	})

	t.Run("CancelledContext", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		var (
			vecs [][]float32
			err  error
		)
		done := make(chan struct{})
		go func() {
			defer close(done)
			vecs, err = e.Embed(ctx, embedder.PurposeDocument, []string{"cancelled before it started"})
		}()
		select {
		case <-done:
		case <-time.After(callTimeout):
			t.Fatal("Embed with a cancelled context did not return")
		}
		// An embedder fast enough to finish anyway may succeed; what it
		// must not do is hang or return a malformed result.
		if err == nil {
			requireShape(t, info, []string{"x"}, vecs)
		}
	})

	t.Run("Health", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		require.NoError(t, e.Health(ctx))
	})
}

func describe(t *testing.T, e embedder.Embedder) embedder.Info {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	info, err := e.Describe(ctx)
	require.NoError(t, err, "Describe")
	return info
}

func embed(t *testing.T, e embedder.Embedder, p embedder.Purpose, texts []string) [][]float32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	vecs, err := e.Embed(ctx, p, texts)
	require.NoError(t, err, "Embed %d texts (%s)", len(texts), p)
	return vecs
}

func requireShape(t *testing.T, info embedder.Info, texts []string, vecs [][]float32) {
	t.Helper()
	require.Len(t, vecs, len(texts), "one vector per text")
	for i, v := range vecs {
		require.Len(t, v, info.Dimensions, "vector %d length", i)
	}
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}
