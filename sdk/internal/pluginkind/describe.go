package pluginkind

import (
	"context"
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// Described keeps the first valid Describe of a plugin's implementation, for a kind's server:
// Describe must be constant for the life of the process, so every later call is held to the
// declared limits without another call into the implementation. The zero value is ready.
type Described[I Info] struct {
	mu   sync.Mutex
	info *I
}

// Get returns the kept Info, else asks describe, holds its answer to the protocol and keeps
// it. what names the call in errors and in a recovered panic ("embedder Describe");
// toStatus maps describe's error to the status the client reads.
func (d *Described[I]) Get(ctx context.Context, logger hclog.Logger, what string, describe func(context.Context) (I, error), toStatus func(error) error) (info I, err error) {
	d.mu.Lock()
	cached := d.info
	d.mu.Unlock()
	if cached != nil {
		return *cached, nil
	}
	defer rpcerr.Recover(logger, what, &err)
	info, err = describe(ctx)
	if err != nil {
		var zero I
		return zero, toStatus(err)
	}
	if err := info.Validate(); err != nil {
		var zero I
		return zero, status.Errorf(codes.Internal, "%s: implementation returned invalid info: %v", what, err)
	}
	d.mu.Lock()
	d.info = &info
	d.mu.Unlock()
	return info, nil
}

// Kept is a kind's client's copy of the plugin's last valid Describe, which the calls that hold
// requests or answers to the plugin's limits read. The zero value holds none.
type Kept[I Info] struct {
	mu   sync.Mutex
	info *I
}

// Describe asks describe (the kind's RPC, its status and proto already converted), holds the
// Info to the protocol and keeps it; what names the call in errors ("embedder Describe").
func (k *Kept[I]) Describe(ctx context.Context, what string, describe func(context.Context) (I, error)) (I, error) {
	info, err := describe(ctx)
	if err != nil {
		var zero I
		return zero, err
	}
	if err := info.Validate(); err != nil {
		var zero I
		return zero, fmt.Errorf("%s: plugin returned invalid info: %w", what, err)
	}
	k.mu.Lock()
	k.info = &info
	k.mu.Unlock()
	return info, nil
}

// Get returns the kept Info, else asks describe (the client's Describe, which keeps it).
func (k *Kept[I]) Get(ctx context.Context, describe func(context.Context) (I, error)) (I, error) {
	k.mu.Lock()
	kept := k.info
	k.mu.Unlock()
	if kept != nil {
		return *kept, nil
	}
	return describe(ctx)
}
