package embedder

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/internal/embedderplugin"
)

func init() {
	// Linking this package in makes the embedder kind part of
	// plugin.VersionedPlugins, which is how the host learns about it, and
	// lets embeddertest serve an implementation without a process.
	embedderplugin.Register(func(impl any) (embedderplugin.Embedder, bool) {
		e, ok := impl.(Embedder)
		return local{e}, ok
	}, public)
}

// serverPlugin is the go-plugin value that serves e. It can act as the
// client too, which go-plugin's in-process test connection needs.
func serverPlugin(e Embedder, logger hclog.Logger) *embedderplugin.Plugin {
	return &embedderplugin.Plugin{Impl: local{e}, Logger: logger, Public: public}
}

// public is what the host dispenses for a plugin: an Embedder.
func public(c embedderplugin.Embedder) any { return remote{c} }

// local presents an implementation to the glue, which works on its own
// mirror types (it cannot import this package).
type local struct{ e Embedder }

var _ embedderplugin.Embedder = local{}

func (l local) Describe(ctx context.Context) (embedderplugin.Info, error) {
	info, err := l.e.Describe(ctx)
	return embedderplugin.Info(info), err
}

func (l local) Embed(ctx context.Context, p embedderplugin.Purpose, texts []string) ([][]float32, error) {
	return l.e.Embed(ctx, Purpose(p), texts)
}

func (l local) Health(ctx context.Context) error { return l.e.Health(ctx) }

// remote is what the host dispenses: the glue's client as an Embedder.
type remote struct{ c embedderplugin.Embedder }

var _ Embedder = remote{}

func (r remote) Describe(ctx context.Context) (Info, error) {
	info, err := r.c.Describe(ctx)
	return Info(info), err
}

func (r remote) Embed(ctx context.Context, p Purpose, texts []string) ([][]float32, error) {
	return r.c.Embed(ctx, embedderplugin.Purpose(p), texts)
}

func (r remote) Health(ctx context.Context) error { return r.c.Health(ctx) }
