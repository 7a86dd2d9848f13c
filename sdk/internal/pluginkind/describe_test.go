package pluginkind_test

import (
	"context"
	"testing"

	"github.com/hashicorp/go-hclog"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// TestDescribedKeepsTheFirstValidAnswer: a server asks its implementation once; an error, an
// invalid Info or a panic is not kept, so the next call asks again.
func TestDescribedKeepsTheFirstValidAnswer(t *testing.T) {
	t.Parallel()
	valid := embedder.Info{Name: "e", Version: "1", Dimensions: 2, MaxBatch: 4, SuggestedFoldThreshold: 0.9}
	answers := []func() (embedder.Info, error){
		func() (embedder.Info, error) { return embedder.Info{}, embedder.ErrUnavailable },
		func() (embedder.Info, error) { return embedder.Info{Name: "e"}, nil },
		func() (embedder.Info, error) { panic("boom") },
		func() (embedder.Info, error) { return valid, nil },
	}
	calls := 0
	describe := func(context.Context) (embedder.Info, error) {
		calls++
		return answers[calls-1]()
	}
	var d pluginkind.Described[embedder.Info]
	get := func() (embedder.Info, error) {
		return d.Get(t.Context(), hclog.NewNullLogger(), "embedder Describe", describe, rpcerr.ToStatus)
	}

	_, err := get()
	require.Equal(t, codes.Unavailable, status.Code(err))
	_, err = get()
	require.Equal(t, codes.Internal, status.Code(err))
	require.ErrorContains(t, err, "embedder Describe: implementation returned invalid info")
	_, err = get()
	require.Equal(t, codes.Internal, status.Code(err))
	require.ErrorContains(t, err, "embedder Describe panicked")
	for range 2 {
		info, err := get()
		require.NoError(t, err)
		require.Equal(t, valid, info)
	}
	require.Equal(t, 4, calls, "the valid answer is kept")
}
