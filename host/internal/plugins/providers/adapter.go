package providers

import (
	"context"
	"errors"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
)

// Adapter teaches the plugin supervisor the provider kind.
type Adapter struct{}

var _ plugins.Adapter = Adapter{}

// Kind is plugin.KindProvider.
func (Adapter) Kind() string { return provider.Kind.Name() }

// SDKKind is provider.Kind.
func (Adapter) SDKKind() plugin.Kind { return provider.Kind }

// Identify asks the provider to describe itself. The CLI it serves and the
// command it runs are its identity: a restarted process that serves another
// CLI is refused.
func (Adapter) Identify(ctx context.Context, raw any) (plugins.Identity, error) {
	p, err := asProvider(raw)
	if err != nil {
		return plugins.Identity{}, err
	}
	info, err := p.Describe(ctx)
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
		Shape:       "runs " + info.Executable,
		Detail:      info,
	}, nil
}

// Health calls the provider's Health.
func (Adapter) Health(ctx context.Context, raw any) error {
	p, err := asProvider(raw)
	if err != nil {
		return err
	}
	return p.Health(ctx)
}

// Classify maps the SDK's provider errors to outcomes; anything else is a
// failure of the plugin.
func (Adapter) Classify(err error) plugins.Outcome {
	switch {
	case errors.Is(err, provider.ErrUnavailable):
		return plugins.Unavailable
	case errors.Is(err, provider.ErrInvalidInput):
		return plugins.Rejected
	case errors.Is(err, provider.ErrUnimplemented):
		return plugins.Unimplemented
	default:
		return plugins.Failed
	}
}

// Sentinel answers the provider errors callers match.
func (Adapter) Sentinel(o plugins.Outcome) error {
	switch o {
	case plugins.Rejected:
		return provider.ErrInvalidInput
	case plugins.Unimplemented:
		return provider.ErrUnimplemented
	default:
		return provider.ErrUnavailable
	}
}

func asProvider(raw any) (provider.Provider, error) {
	p, ok := raw.(provider.Provider)
	if !ok {
		return nil, fmt.Errorf("the plugin dispensed %T, not a provider", raw)
	}
	return p, nil
}
