package provider

import (
	"context"

	"github.com/hashicorp/go-hclog"

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
	return kind.Serve(impl, plugin.NewServeOptions(opts...))
}

// ServeOption configures Serve; it is plugin.ServeOption.
type ServeOption = plugin.ServeOption

// WithLogger is plugin.WithLogger: Serve logs through l.
func WithLogger(l hclog.Logger) ServeOption { return plugin.WithLogger(l) }

// WithDebug is plugin.WithDebug: Serve runs in go-plugin's reattach mode
// until ctx is done, and providertest.Attach connects to the address ready receives.
func WithDebug(ctx context.Context, ready func(plugin.ReattachConfig)) ServeOption {
	return plugin.WithDebug(ctx, ready)
}
