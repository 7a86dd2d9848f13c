package rpcerr_test

import (
	"context"
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/internal/rpcerr"
	"github.com/memhost/memhost/sdk/plugin"
)

// TestHealthCrossesTheWire: a Health answer reads the same on the host side for every kind,
// and a caller that gave up is no verdict on the plugin.
func TestHealthCrossesTheWire(t *testing.T) {
	t.Parallel()
	log := hclog.NewNullLogger()
	ok, msg, err := rpcerr.Health(t.Context(), log, "worker Health", func(context.Context) error { return nil })
	require.NoError(t, err)
	require.NoError(t, rpcerr.Healthy("worker Health", ok, msg))

	ok, msg, err = rpcerr.Health(t.Context(), log, "worker Health", func(context.Context) error { return errors.New("model not loaded") })
	require.NoError(t, err)
	herr := rpcerr.Healthy("worker Health", ok, msg)
	require.ErrorIs(t, herr, plugin.ErrUnhealthy)
	require.EqualError(t, herr, "worker Health: plugin unhealthy: model not loaded")

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, _, err = rpcerr.Health(ctx, log, "worker Health", func(ctx context.Context) error { return ctx.Err() })
	require.Equal(t, codes.Canceled, status.Code(err))

	_, _, err = rpcerr.Health(t.Context(), log, "worker Health", func(context.Context) error { panic("boom") })
	require.Equal(t, codes.Internal, status.Code(err))
}
