package embedders

import (
	"context"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// Handle is how the host uses an embedder plugin: an embedder.Embedder whose
// calls go through the supervisor (deadline, restarts, generic errors) and
// whose texts and answers are held to the protocol.
type Handle struct {
	p *plugins.Plugin
}

var _ embedder.Embedder = (*Handle)(nil)

// List returns a Handle for every embedder that started at least once,
// whatever its current state, in start order.
func List(s *plugins.Supervisor) []*Handle {
	ps := s.Plugins(plugin.KindEmbedder)
	out := make([]*Handle, len(ps))
	for i, p := range ps {
		out[i] = &Handle{p: p}
	}
	return out
}

// Find returns the embedder that answers to name: its Describe name
// ("bm25-v1-384"), else its binary's file name ("memhost-embedder-bm25") or
// the name part of that ("bm25"). See plugins.Supervisor.Find.
func Find(s *plugins.Supervisor, name string) (*Handle, error) {
	p, err := s.Find(plugin.KindEmbedder, name)
	if err != nil {
		return nil, err
	}
	return &Handle{p: p}, nil
}

// Info is what the plugin's Describe reported at its latest start. Name and
// Dimensions never change while the host runs: a restart that reports others
// is refused.
func (h *Handle) Info() embedder.Info {
	info, _ := h.p.Identity().Detail.(embedder.Info)
	return info
}

// Binary is the plugin's file name, e.g. memhost-embedder-bm25.
func (h *Handle) Binary() string { return h.p.Status().Binary }

// Path is the plugin binary.
func (h *Handle) Path() string { return h.p.Path() }

// State is the plugin's current life-cycle state.
func (h *Handle) State() plugins.State { return h.p.State() }

// Status is a full snapshot of the plugin.
func (h *Handle) Status() plugins.Status { return h.p.Status() }

// Describe asks the running process to describe itself.
func (h *Handle) Describe(ctx context.Context) (embedder.Info, error) {
	var info embedder.Info
	err := h.p.Call(ctx, "Describe", func(ctx context.Context, raw any) error {
		e, err := asEmbedder(raw)
		if err != nil {
			return err
		}
		info, err = e.Describe(ctx)
		return err
	})
	return info, err
}

// Embed embeds texts, cutting each to the plugin's MaxInputBytes first, and
// checks the answer (see the package documentation).
func (h *Handle) Embed(ctx context.Context, purpose embedder.Purpose, texts []string) ([][]float32, error) {
	info := h.Info()
	texts = truncate(texts, info.MaxInputBytes)
	var vecs [][]float32
	err := h.p.Call(ctx, "Embed", func(ctx context.Context, raw any) error {
		e, err := asEmbedder(raw)
		if err != nil {
			return err
		}
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

// Health calls the plugin's Health.
func (h *Handle) Health(ctx context.Context) error {
	return h.p.Call(ctx, "Health", func(ctx context.Context, raw any) error {
		return Adapter{}.Health(ctx, raw)
	})
}

// Instance is the [embedders.NAME] table the plugin runs, "" for a plugin started as found.
func (h *Handle) Instance() string { return h.p.Instance() }
