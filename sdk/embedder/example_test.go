package embedder_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// lengthEmbedder is a toy embedder: a 2-d vector of the text's length and 1.
type lengthEmbedder struct{}

var _ embedder.Embedder = lengthEmbedder{}

func (lengthEmbedder) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{
		Name: "length-v1-2", Version: "1.0.0", Description: "toy",
		Dimensions: 2, MaxBatch: 8, MaxInputBytes: 1 << 10, SuggestedFoldThreshold: 0.99,
	}, nil
}

func (lengthEmbedder) Embed(_ context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = []float32{float32(len(t)), 1}
	}
	return out, nil
}

func (lengthEmbedder) Health(context.Context) error { return nil }

// A plugin's main is a few lines; Serve returns only when the host shuts the
// plugin down (nil) or when it cannot serve (run by hand, for instance), so
// this example is compiled but not run.
func ExampleServe() {
	if err := embedder.Serve(lengthEmbedder{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// Plugin authors test through the real gRPC wire with the harness and run
// the conformance kit in their own _test.go files.
func Example_conformance() {
	conformance := func(t *testing.T) {
		embeddertest.Exercise(t, embeddertest.Serve(t, lengthEmbedder{}))
	}
	_ = conformance
}
