package bm25

import (
	"context"
	"fmt"
	"math"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/tokenize"
)

const (
	// Name identifies the vector space. Bump the version part whenever any
	// constant or rule below (or in sdk/tokenize) changes the vectors.
	Name = "bm25-v1-384"
	// Dimensions is the vector length.
	Dimensions = 384
	// MaxBatch is the largest batch accepted per Embed call.
	MaxBatch = 256
	// MaxInputBytes is the largest text accepted, 64 KiB: far above any
	// fact, small enough to bound the work of one call.
	MaxInputBytes = 64 << 10
	// FoldThreshold is the cosine at or above which two texts are the same
	// fact, calibrated on testdata/pairs.jsonl (see README.md).
	FoldThreshold = 0.65

	version = "1.0.0"

	// k1 and b are the usual BM25 parameters.
	k1 = 1.2
	b  = 0.75
	// avgLen is the reference document length in terms. Project-memory
	// facts are one or two sentences; about ten terms survive tokenisation.
	avgLen = 10.0
	// commonWeight is the static weight of the words in commonTerms.
	commonWeight = 0.35
)

// Embedder is the BM25 embedder. It is stateless and safe for concurrent use.
type Embedder struct{}

var _ embedder.Embedder = (*Embedder)(nil)

// New returns the BM25 embedder.
func New() *Embedder { return &Embedder{} }

// Describe implements embedder.Embedder.
func (*Embedder) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{
		Name:                   Name,
		Version:                version,
		Description:            "corpus-free BM25 term weights, signed feature hashing into 384 dimensions",
		Dimensions:             Dimensions,
		MaxBatch:               MaxBatch,
		MaxInputBytes:          MaxInputBytes,
		SuggestedFoldThreshold: FoldThreshold,
	}, nil
}

// Embed implements embedder.Embedder. Purpose is ignored.
func (e *Embedder) Embed(ctx context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	if len(texts) > MaxBatch {
		return nil, fmt.Errorf("%w: batch of %d texts exceeds max batch %d", embedder.ErrInvalidInput, len(texts), MaxBatch)
	}
	out := make([][]float32, len(texts))
	var terms []string
	for i, text := range texts {
		// Checking between texts bounds the work done after cancellation
		// to one text of at most MaxInputBytes.
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("bm25 embed: %w", err)
		}
		if len(text) > MaxInputBytes {
			return nil, fmt.Errorf("%w: text %d is %d bytes, exceeds max input bytes %d", embedder.ErrInvalidInput, i, len(text), MaxInputBytes)
		}
		terms = tokenize.AppendTerms(terms[:0], text)
		out[i] = vectorize(terms)
	}
	return out, nil
}

// Health implements embedder.Embedder; there is nothing to be unhealthy about.
func (*Embedder) Health(context.Context) error { return nil }

// vectorize turns terms into an L2-normalised hashed BM25 vector.
func vectorize(terms []string) []float32 {
	v := make([]float32, Dimensions)
	if len(terms) == 0 {
		return v
	}
	tf := make(map[string]int, len(terms))
	for _, t := range terms {
		tf[t]++
	}
	norm := k1 * (1 - b + b*float64(len(terms))/avgLen)
	for t, f := range tf {
		w := float64(f) * (k1 + 1) / (float64(f) + norm) * termWeight(t)
		h := fnv1a(t)
		sign := 1.0
		if h>>63 == 1 {
			sign = -1
		}
		v[h%Dimensions] += float32(sign * w)
	}
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return v
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// termWeight is the corpus-free IDF proxy.
func termWeight(t string) float64 {
	if _, ok := commonTerms[t]; ok {
		return commonWeight
	}
	return 1
}

// fnv1a is 64-bit FNV-1a, inlined to avoid allocating a hash.Hash per term.
func fnv1a(s string) uint64 {
	const (
		offset = 14695981039346656037
		prime  = 1099511628211
	)
	h := uint64(offset)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime
	}
	return h
}
