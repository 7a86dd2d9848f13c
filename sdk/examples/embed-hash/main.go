// Command embed-hash is the smallest complete memhost embedder plugin: a
// deterministic bag-of-words hashing embedder. It shows the shape of a
// plugin (an Embedder implementation plus a main of a few lines); it is not
// meant for real use. Build it and point the host's plugin directory at it:
//
//	go build -o memhost-embedder-hash ./examples/embed-hash
package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"strings"

	"github.com/memhost/memhost/sdk/embedder"
)

func main() {
	if err := embedder.Serve(hashEmbedder{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

const dims = 64

// hashEmbedder hashes each lower-cased word into one of dims buckets.
type hashEmbedder struct{}

var _ embedder.Embedder = hashEmbedder{}

func (hashEmbedder) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{
		Name:                   "hash-example-v1-64",
		Version:                "0.1.0",
		Description:            "example word-hashing embedder",
		Dimensions:             dims,
		MaxBatch:               64,
		MaxInputBytes:          16 << 10,
		SuggestedFoldThreshold: 0.9,
	}, nil
}

func (hashEmbedder) Embed(ctx context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, text := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := make([]float32, dims)
		for _, w := range strings.Fields(strings.ToLower(text)) {
			h := fnv.New32a()
			h.Write([]byte(w))
			v[h.Sum32()%dims]++
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		if n > 0 {
			inv := float32(1 / math.Sqrt(n))
			for j := range v {
				v[j] *= inv
			}
		}
		out[i] = v
	}
	return out, nil
}

func (hashEmbedder) Health(context.Context) error { return nil }
