package embedders_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
	"github.com/memhost/memhost/sdk/embedder"
)

// TestClassify: an embedder whose own deadline passed is unavailable for now, like one that
// cannot reach its model; the rest reads as every kind's errors do.
func TestClassify(t *testing.T) {
	t.Parallel()
	a := embedders.Adapter{}
	for err, want := range map[error]plugins.Outcome{
		embedder.ErrUnavailable:                           plugins.Unavailable,
		fmt.Errorf("model: %w", context.DeadlineExceeded): plugins.Unavailable,
		embedder.ErrInvalidInput:                          plugins.Rejected,
		embedder.ErrUnimplemented:                         plugins.Unimplemented,
		errors.New("boom"):                                plugins.Failed,
	} {
		require.Equal(t, want, a.Classify(err), "%v", err)
	}
	require.Equal(t, embedder.ErrInvalidInput, a.Sentinel(plugins.Rejected))
	require.Equal(t, embedder.ErrUnimplemented, a.Sentinel(plugins.Unimplemented))
	require.Equal(t, embedder.ErrUnavailable, a.Sentinel(plugins.Failed))
	require.Equal(t, "embedder", a.Kind())
}

// TestAdapterRefusesAnotherKindsValue: a dispensed value that is not an embedder fails the
// launch and the health probe with an error naming both types, never a panic.
func TestAdapterRefusesAnotherKindsValue(t *testing.T) {
	t.Parallel()
	a := embedders.Adapter{}
	_, err := a.Identify(t.Context(), "a string")
	require.EqualError(t, err, "the plugin dispensed string, which does not implement embedder.Embedder")
	require.Error(t, a.Health(t.Context(), 42))
}
