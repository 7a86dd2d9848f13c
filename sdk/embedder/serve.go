package embedder

import (
	"context"

	"github.com/hashicorp/go-hclog"

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
	return kind.Serve(impl, plugin.NewServeOptions(opts...))
}

// ServeOption configures Serve; it is plugin.ServeOption.
type ServeOption = plugin.ServeOption

// WithLogger is plugin.WithLogger: Serve logs through l.
func WithLogger(l hclog.Logger) ServeOption { return plugin.WithLogger(l) }

// WithDebug is plugin.WithDebug: Serve runs in go-plugin's reattach mode
// until ctx is done, and embeddertest.Attach connects to the address ready receives.
func WithDebug(ctx context.Context, ready func(plugin.ReattachConfig)) ServeOption {
	return plugin.WithDebug(ctx, ready)
}
