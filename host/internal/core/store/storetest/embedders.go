package storetest

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

// exerciseEmbedders runs embedders: each has one width.
func exerciseEmbedders(t *testing.T, k *kit) {
	ctx := k.ctx
	k.run(t, "EachEmbedderHasOneWidth", func(t *testing.T, s store.Store) {
		dims, err := s.VectorDimensions(ctx)
		require.NoError(t, err)
		require.Equal(t, map[string]int{Embedder: Dims}, dims, "the embedder's index registers its width")
		narrow := importRecords("p", 1, 0)
		narrow[0].Vector = store.Vector{Embedder: Embedder, Dimensions: 3, Values: []float32{1, 0, 0}}
		_, err = s.Import(ctx, narrow)
		require.Error(t, err, "a vector of another width is refused")
		c, err := s.Counts(ctx)
		require.NoError(t, err)
		require.Zero(t, c.Live+c.Archived)
	})
}
