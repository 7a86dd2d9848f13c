package openaihttp_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/openaihttp"
)

// TestPause: a retry waits out the policy's backoff; spent attempts and a wait past the
// deadline give the call's failure back, and a context that ends ends the wait.
func TestPause(t *testing.T) {
	t.Parallel()
	failure := errors.New("HTTP 503")
	p := openaihttp.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond}
	var waited time.Duration
	require.NoError(t, p.Pause(t.Context(), 1, http.Header{}, failure, func(d time.Duration) { waited = d }))
	require.Positive(t, waited)

	err := p.Pause(t.Context(), 2, http.Header{}, failure, nil)
	require.ErrorIs(t, err, failure)
	require.ErrorContains(t, err, "after 2 attempts")

	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	err = p.Pause(ctx, 1, http.Header{"Retry-After": {"60"}}, failure, nil)
	require.ErrorIs(t, err, failure)
	require.ErrorContains(t, err, "would pass the deadline")

	ctx, cancel = context.WithCancel(t.Context())
	cancel()
	slow := openaihttp.RetryPolicy{Attempts: 2, Base: time.Minute, Max: time.Minute}
	require.ErrorIs(t, slow.Pause(ctx, 1, http.Header{}, failure, nil), context.Canceled)
}
