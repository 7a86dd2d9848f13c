package main

import (
	"testing"

	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	embeddertest.Exercise(t, hashEmbedder{})
	embeddertest.Exercise(t, embeddertest.Serve(t, hashEmbedder{}))
}
