package embedders

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// Adapter teaches the plugin supervisor the embedder kind.
type Adapter struct{}

var _ plugins.Adapter = Adapter{}

// Kind is plugin.KindEmbedder.
func (Adapter) Kind() string { return embedder.Kind.Name() }

// SDKKind is embedder.Kind.
func (Adapter) SDKKind() plugin.Kind { return embedder.Kind }

// Identify asks the embedder to describe itself. Its Name and Dimensions
// define the vector space of stored memories, so they are its identity.
func (Adapter) Identify(ctx context.Context, raw any) (plugins.Identity, error) {
	e, err := asEmbedder(raw)
	if err != nil {
		return plugins.Identity{}, err
	}
	info, err := e.Describe(ctx)
	if err != nil {
		return plugins.Identity{}, err
	}
	if err := info.Validate(); err != nil {
		return plugins.Identity{}, fmt.Errorf("invalid description: %w", err)
	}
	return plugins.Identity{
		Name:        info.Name,
		Version:     info.Version,
		Description: info.Description,
		Shape:       fmt.Sprintf("%d dimensions", info.Dimensions),
		Detail:      info,
	}, nil
}

// Health calls the embedder's Health.
func (Adapter) Health(ctx context.Context, raw any) error {
	e, err := asEmbedder(raw)
	if err != nil {
		return err
	}
	return e.Health(ctx)
}

// Classify maps the SDK's embedder errors to outcomes. A plugin whose own
// deadline passed (its model did not answer in time) is unavailable for now,
// like one whose model cannot be reached: the health loop, not the next
// write, tells when it answers again. Anything else (a plugin's own error,
// an answer the SDK client refused) is a failure of the plugin.
func (Adapter) Classify(err error) plugins.Outcome {
	switch {
	case errors.Is(err, embedder.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return plugins.Unavailable
	case errors.Is(err, embedder.ErrInvalidInput):
		return plugins.Rejected
	case errors.Is(err, embedder.ErrUnimplemented):
		return plugins.Unimplemented
	default:
		return plugins.Failed
	}
}

// Sentinel answers the embedder errors the memory service and the surfaces
// know: unavailable (retry later) for a plugin that cannot serve or failed,
// invalid input (do not retry) for a rejection.
func (Adapter) Sentinel(o plugins.Outcome) error {
	switch o {
	case plugins.Rejected:
		return embedder.ErrInvalidInput
	case plugins.Unimplemented:
		return embedder.ErrUnimplemented
	default:
		return embedder.ErrUnavailable
	}
}

func asEmbedder(raw any) (embedder.Embedder, error) {
	e, ok := raw.(embedder.Embedder)
	if !ok {
		return nil, fmt.Errorf("the plugin dispensed %T, not an embedder", raw)
	}
	return e, nil
}
