package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/memhost/memhost/host/internal/daemon/server"
)

// reloadOnHangup reloads the host on every SIGHUP until stop is called or ctx ends. A refused
// reload is logged by Reload; the host keeps running either way.
func reloadOnHangup(ctx context.Context, core *server.Core) (stop func()) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				_, _ = core.Reload(ctx)
			}
		}
	}()
	return func() {
		signal.Stop(hup)
		cancel()
		<-done
	}
}
