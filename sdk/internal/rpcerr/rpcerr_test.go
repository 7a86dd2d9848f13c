package rpcerr_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/internal/rpcerr"
	"github.com/memhost/memhost/sdk/plugin"
)

// TestRoundTrip: what an implementation returns reaches the host as the
// matching sentinel, with its message.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		impl error
		want error
	}{
		{fmt.Errorf("%w: text is binary", plugin.ErrInvalidInput), plugin.ErrInvalidInput},
		{fmt.Errorf("%w: no Health in this version", plugin.ErrUnimplemented), plugin.ErrUnimplemented},
		{fmt.Errorf("remote: %w", context.DeadlineExceeded), context.DeadlineExceeded},
		{status.Error(codes.Unavailable, "model server down"), plugin.ErrUnavailable},
		{fmt.Errorf("%w: cannot reach the runtime", plugin.ErrUnavailable), plugin.ErrUnavailable},
	} {
		err := rpcerr.FromStatus(t.Context(), "embedder Embed", rpcerr.ToStatus(tc.impl))
		require.ErrorIs(t, err, tc.want)
		require.ErrorContains(t, err, "embedder Embed: ")
	}
	err := rpcerr.FromStatus(t.Context(), "embedder Embed", rpcerr.ToStatus(errors.New("model not loaded")))
	require.EqualError(t, err, "embedder Embed: Unknown: model not loaded")
}

func TestCallerCancellationWins(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := rpcerr.FromStatus(ctx, "embedder Embed", status.Error(codes.Unavailable, "transport closing"))
	require.ErrorIs(t, err, context.Canceled)
	require.NotErrorIs(t, err, plugin.ErrUnavailable)
}

func TestCancelledUnderALiveCallerIsUnavailable(t *testing.T) {
	t.Parallel()
	err := rpcerr.FromStatus(t.Context(), "embedder Embed", status.Error(codes.Canceled, "grpc: the client connection is closing"))
	require.ErrorIs(t, err, plugin.ErrUnavailable)
	require.NotErrorIs(t, err, context.Canceled)
}

func TestRecover(t *testing.T) {
	t.Parallel()
	call := func() (err error) {
		defer rpcerr.Recover(hclog.NewNullLogger(), "embedder Embed", &err)
		panic("boom")
	}
	err := call()
	require.Equal(t, codes.Internal, status.Code(err))
	require.EqualError(t, err, "rpc error: code = Internal desc = embedder Embed panicked: boom")
}

// TestSentinelSaidOnce: a plugin's message that begins with the sentinel it wrapped does not
// say it twice on the host ("invalid input: invalid input: ...").
func TestSentinelSaidOnce(t *testing.T) {
	t.Parallel()
	err := rpcerr.FromStatus(t.Context(), "embedder Embed", rpcerr.ToStatus(fmt.Errorf("%w: text is binary", plugin.ErrInvalidInput)))
	require.EqualError(t, err, "embedder Embed: invalid input: text is binary")
	require.ErrorIs(t, err, plugin.ErrInvalidInput)
	err = rpcerr.FromStatus(t.Context(), "embedder Embed", status.Error(codes.Unavailable, "model server down"))
	require.EqualError(t, err, "embedder Embed: plugin unavailable: model server down")
	err = rpcerr.FromStatus(t.Context(), "embedder Embed", status.Error(codes.Unavailable, "plugin unavailable"))
	require.EqualError(t, err, "embedder Embed: plugin unavailable")
}

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
