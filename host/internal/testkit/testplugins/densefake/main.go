// Command densefake is a benchmark and test embedder plugin with dense vectors: the model of
// the fake OpenAI-compatible runtime (sdk/embedder/embeddertest/openaifake.Vector), computed in
// this process instead of over HTTP, at the width MEMHOST_PLUGIN_DENSEFAKE_DIMENSIONS says
// (default 768; the host passes MEMHOST_PLUGIN_* variables through to its plugins). Its name
// carries the width, densefake-v1-<dims>, because vectors of another width are another space.
// Its quality is the fake's, not a real model's: it shows what dense vectors cost the store,
// not how well a model ranks. Its fold threshold, 0.50, is the calibration of `make bench`'s
// dense rounds (docs/plugins.md, "Fold thresholds"): the fake's cosine cannot tell near misses
// apart, so the write path's statement check does the work.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// DimensionsEnv sets the width.
const DimensionsEnv = "MEMHOST_PLUGIN_DENSEFAKE_DIMENSIONS"

func main() {
	dims := 768
	if s := os.Getenv(DimensionsEnv); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 8 || n > 2000 {
			fmt.Fprintf(os.Stderr, "densefake: %s=%q must be a width from 8 to 2000\n", DimensionsEnv, s)
			os.Exit(1)
		}
		dims = n
	}
	if err := embedder.Serve(dense{dims: dims}); err != nil {
		fmt.Fprintln(os.Stderr, "densefake:", err)
		os.Exit(1)
	}
}

type dense struct{ dims int }

func (d dense) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{Name: fmt.Sprintf("densefake-v1-%d", d.dims), Version: "1", Description: "the fake runtime's model, in-process",
		Dimensions: d.dims, MaxBatch: 256, MaxInputBytes: 32 << 10, SuggestedFoldThreshold: 0.50}, nil
}

func (d dense) Embed(ctx context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = openaifake.Vector(t, d.dims)
	}
	return out, nil
}

func (dense) Health(context.Context) error { return nil }
