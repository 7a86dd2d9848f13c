package plugins

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/memhost/memhost/sdk/plugin"
)

// Described is what the SDK interface of every kind offers besides its own calls: who the
// plugin is (an Info of the kind's own type I) and whether it can serve.
type Described[I any] interface {
	Describe(ctx context.Context) (I, error)
	Health(ctx context.Context) error
}

// Info is what every kind's Describe answers: a description the SDK can hold to its protocol.
type Info interface {
	Validate() error
}

// Kind is what sets one plugin kind apart, for KindAdapter: a zero-size type whose methods say
// it, so that a kind's adapter is a plain value (embedders.Adapter{}) with nothing to set up.
type Kind[I any] interface {
	// SDKKind is the SDK's kind (embedder.Kind, say), whose go-plugin value dispenses the
	// kind's interface.
	SDKKind() plugin.Kind
	// Identity is who info says the plugin is: Name, Version, Description and Shape (see
	// Identity); KindAdapter keeps info itself as Detail.
	Identity(info I) Identity
	// Unavailable and Rejected are the kind's own errors that mean Unavailable or Rejected
	// besides the SDK's shared plugin.ErrUnavailable and plugin.ErrInvalidInput, which every
	// kind's errors of those names are.
	Unavailable() []error
	Rejected() []error
}

// KindAdapter is the Adapter of the kind K describes, whose SDK interface is T and whose
// Describe answers an I. It is what every kind's adapter did alike: the dispense type check,
// Identify from a validated Describe, Health, and the SDK's shared errors read as outcomes.
type KindAdapter[K Kind[I], T Described[I], I Info] struct{}

// Kind is SDKKind().Name(), e.g. plugin.KindEmbedder.
func (a KindAdapter[K, T, I]) Kind() string { return a.SDKKind().Name() }

// SDKKind is K's SDK kind.
func (KindAdapter[K, T, I]) SDKKind() plugin.Kind {
	var k K
	return k.SDKKind()
}

// Identify asks the plugin to describe itself; a description the SDK's rules refuse fails
// the launch.
func (a KindAdapter[K, T, I]) Identify(ctx context.Context, raw any) (Identity, error) {
	v, err := dispensed[T](raw)
	if err != nil {
		return Identity{}, err
	}
	info, err := v.Describe(ctx)
	if err != nil {
		return Identity{}, err
	}
	if err := info.Validate(); err != nil {
		return Identity{}, fmt.Errorf("invalid description: %w", err)
	}
	var k K
	id := k.Identity(info)
	id.Detail = info
	return id, nil
}

// Health calls the plugin's Health.
func (KindAdapter[K, T, I]) Health(ctx context.Context, raw any) error {
	v, err := dispensed[T](raw)
	if err != nil {
		return err
	}
	return v.Health(ctx)
}

// Classify maps the SDK's errors, and the kind's own (K's Unavailable and Rejected), to
// outcomes; anything else (a plugin's own error, an answer the SDK client refused) is a
// failure of the plugin.
func (KindAdapter[K, T, I]) Classify(err error) Outcome {
	var k K
	switch {
	case errors.Is(err, plugin.ErrUnavailable), isAny(err, k.Unavailable()):
		return Unavailable
	case errors.Is(err, plugin.ErrInvalidInput), isAny(err, k.Rejected()):
		return Rejected
	case errors.Is(err, plugin.ErrUnimplemented):
		return Unimplemented
	default:
		return Failed
	}
}

// Sentinel answers the SDK's errors that every kind's callers match: unavailable (retry
// later) for a plugin that cannot serve or failed, invalid input (do not retry) for a
// rejection. A kind's own error (worker.ErrRefused, say) stays wrapped as the call's cause.
func (KindAdapter[K, T, I]) Sentinel(o Outcome) error {
	switch o {
	case Rejected:
		return plugin.ErrInvalidInput
	case Unimplemented:
		return plugin.ErrUnimplemented
	default:
		return plugin.ErrUnavailable
	}
}

func isAny(err error, targets []error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}

// dispensed is raw, the value a kind's go-plugin value dispensed, as the kind's interface T.
func dispensed[T any](raw any) (T, error) {
	v, ok := raw.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("the plugin dispensed %T, which does not implement %v", raw, reflect.TypeFor[T]())
	}
	return v, nil
}
