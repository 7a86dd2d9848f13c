package plugin

import (
	"context"

	"github.com/hashicorp/go-hclog"
)

// ServeOption configures the Serve function of a kind's package
// (embedder.Serve, provider.Serve, worker.Serve); each of those packages
// also offers WithLogger and WithDebug under its own name.
type ServeOption struct {
	apply func(*ServeOptions)
}

// ServeOptions are what a kind's Serve runs with: the zero value serves the
// host that launched the process, logging through Logger(kind).
type ServeOptions struct {
	// Logger receives go-plugin's and the SDK's messages; nil means
	// Logger(kind).
	Logger hclog.Logger
	// Debug, when non-nil, serves in go-plugin's reattach mode until it is
	// done, instead of answering a host that launched the process.
	Debug context.Context
	// Ready, in debug mode, receives the address to attach to once the
	// server listens.
	Ready func(ReattachConfig)
}

// NewServeOptions applies opts in order.
func NewServeOptions(opts ...ServeOption) ServeOptions {
	var o ServeOptions
	for _, opt := range opts {
		if opt.apply != nil {
			opt.apply(&o)
		}
	}
	return o
}

// WithLogger makes Serve log through l instead of Logger(kind): go-plugin's
// messages and panics recovered from the implementation, with their stacks.
// l must write to stderr (or a file), never to stdout, which carries the
// handshake.
func WithLogger(l hclog.Logger) ServeOption {
	return ServeOption{apply: func(o *ServeOptions) { o.Logger = l }}
}

// WithDebug serves without a host launching the process: go-plugin's
// reattach mode. The program can then run under a debugger or inside a
// test; ready receives the address to attach to (the kind's test kit's
// Attach connects to it, e.g. embeddertest.Attach) as soon as the server
// listens, and Serve returns nil once ctx is done or the attached client
// shuts the plugin down. No magic cookie is needed and nothing is written to
// stdout.
//
// A plugin's main can offer it behind a flag:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//	defer stop()
//	err := embedder.Serve(impl, plugin.WithDebug(ctx, func(rc plugin.ReattachConfig) {
//		b, _ := json.Marshal(rc) // for embeddertest.Attach in another process
//		fmt.Fprintf(os.Stderr, "plugin listening: %s\n", b)
//	}))
func WithDebug(ctx context.Context, ready func(ReattachConfig)) ServeOption {
	if ctx == nil {
		ctx = context.Background()
	}
	return ServeOption{apply: func(o *ServeOptions) {
		o.Debug = ctx
		o.Ready = ready
	}}
}
