package provider

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/internal/pluginserve"
	"github.com/memhost/memhost/sdk/plugin"
)

// Serve runs impl as a provider plugin process; it is the whole main of a
// plugin:
//
//	func main() {
//		if err := provider.Serve(mine.New()); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// Serve answers the memhost process that launched it until that process
// shuts the plugin down, then returns nil. It returns an error without
// serving when impl is nil or the program was run by hand, and an error
// when serving could not start (the reason is logged first).
func Serve(impl Provider, opts ...ServeOption) error {
	var o pluginserve.Options
	for _, opt := range opts {
		opt.apply(&o)
	}
	return kind.Serve(impl, o)
}

// ServeOption configures Serve.
type ServeOption struct {
	apply func(*pluginserve.Options)
}

// WithLogger makes Serve log through l instead of plugin.Logger. l must
// write to stderr (or a file), never to stdout, which carries the handshake.
func WithLogger(l hclog.Logger) ServeOption {
	return ServeOption{apply: func(o *pluginserve.Options) { o.Logger = l }}
}

// WithDebug serves without memhost launching the process: go-plugin's
// reattach mode, for a debugger or a test. ready receives the address to
// attach to (providertest.Attach connects to it) as soon as the server
// listens; Serve returns nil once ctx is done or the attached client shuts
// the plugin down.
func WithDebug(ctx context.Context, ready func(plugin.ReattachConfig)) ServeOption {
	if ctx == nil {
		ctx = context.Background()
	}
	return ServeOption{apply: func(o *pluginserve.Options) {
		o.Debug = ctx
		o.Ready = ready
	}}
}
