package embedder

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/internal/pluginserve"
	"github.com/memhost/memhost/sdk/plugin"
)

// Serve runs impl as an embedder plugin process; it is the whole main of a
// plugin:
//
//	func main() {
//		if err := embedder.Serve(mine.New()); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// Serve answers the host that launched the process until the host shuts the
// plugin down, then returns nil. It returns an error without serving when
// impl is nil or the program was run by hand rather than by a host, and an
// error when serving could not start (the reason is logged first).
func Serve(impl Embedder, opts ...ServeOption) error {
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

// WithLogger makes Serve log through l instead of plugin.Logger: go-plugin's
// messages and panics recovered from the implementation, with their stacks.
// l must write to stderr (or a file), never to stdout, which carries the
// handshake.
func WithLogger(l hclog.Logger) ServeOption {
	return ServeOption{apply: func(o *pluginserve.Options) { o.Logger = l }}
}

// WithDebug serves without a host launching the process: go-plugin's
// reattach mode. The program can then run under a debugger or inside a
// test; ready receives the address to attach to (embeddertest.Attach
// connects to it) as soon as the server listens, and Serve returns nil once
// ctx is done or the attached client shuts the plugin down. No magic cookie
// is needed and nothing is written to stdout.
//
// A plugin's main can offer it behind a flag:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
//	defer stop()
//	err := embedder.Serve(impl, embedder.WithDebug(ctx, func(rc plugin.ReattachConfig) {
//		b, _ := json.Marshal(rc) // for embeddertest.Attach in another process
//		fmt.Fprintf(os.Stderr, "plugin listening: %s\n", b)
//	}))
func WithDebug(ctx context.Context, ready func(plugin.ReattachConfig)) ServeOption {
	if ctx == nil {
		ctx = context.Background()
	}
	return ServeOption{apply: func(o *pluginserve.Options) {
		o.Debug = ctx
		o.Ready = ready
	}}
}
