// Command memhost is the memhost host: the daemon (`memhost serve`) and the operator's tools
// around it. Every subcommand reads the same configuration (defaults, a TOML file —
// ./.memhost/memhost.toml when run from a checkout started with `make run` — MEMHOST_*
// variables, flags), so commands run beside a running host reach the same database.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := rootCmd().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "memhost:", err)
		os.Exit(1)
	}
}
