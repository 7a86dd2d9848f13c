package embedders

import (
	"context"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/embedder"
)

// Handle is how the host uses an embedder plugin: an embedder.Embedder whose
// calls go through the supervisor (deadline, restarts, generic errors) and
// whose texts and answers are held to the protocol. Info, Describe, Health,
// Status and the rest are plugins.Handle's.
type Handle struct {
	plugins.Handle[embedder.Embedder, embedder.Info]
}

var _ embedder.Embedder = (*Handle)(nil)

// List returns a Handle for every embedder that started at least once,
// whatever its current state, in start order.
func List(s *plugins.Supervisor) []*Handle {
	hs := Adapter{}.List(s)
	out := make([]*Handle, len(hs))
	for i, h := range hs {
		out[i] = &Handle{h}
	}
	return out
}

// Find returns the embedder that answers to name: its Describe name
// ("bm25-v1-384"), else its binary's file name ("memhost-embedder-bm25") or
// the name part of that ("bm25"). See plugins.Supervisor.Find.
func Find(s *plugins.Supervisor, name string) (*Handle, error) {
	h, err := Adapter{}.Find(s, name)
	if err != nil {
		return nil, err
	}
	return &Handle{h}, nil
}

// Embed embeds texts, cutting each to the plugin's MaxInputBytes first, and
// checks the answer (see the package documentation).
func (h *Handle) Embed(ctx context.Context, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	info := h.Info()
	texts = truncate(texts, info.MaxInputBytes)
	var vecs [][]float32
	err := h.Call(ctx, "Embed", func(ctx context.Context, e embedder.Embedder) (err error) {
		if vecs, err = e.Embed(ctx, purpose, texts); err != nil {
			return err
		}
		if err := checkVectors(vecs, len(texts), info.Dimensions); err != nil {
			return err
		}
		return checkDirections(vecs, texts, info.Name)
	})
	if err != nil {
		return nil, err
	}
	return vecs, nil
}
