// Command memhost is the memhost host: the daemon (`memhost serve`) and the operator's tools
// around it. Every subcommand reads the same configuration (defaults, a TOML file —
// ./.memhost/memhost.toml when run from a checkout started with `make run` — MEMHOST_*
// variables, flags), so commands run beside a running host reach the same database.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/memhost/memhost/host/internal/plugins"
)

// processInit is when the process was done initialising: package main's variables are
// initialised after every package it imports (memhost run's timeline starts there).
var processInit = time.Now()

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := rootCmd().ExecuteContext(ctx)
	stop()
	// Every exit path passes here: whatever a command started, no plugin process outlives it
	// (go-plugin's CleanupClients, for all of memhost's supervisors).
	plugins.KillAll()
	var code exitCode
	if errors.As(err, &code) {
		os.Exit(int(code)) // memhost run: the CLI's own exit status
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "memhost:", printable(err.Error())) // errors may quote what a client sent
		os.Exit(1)
	}
}
