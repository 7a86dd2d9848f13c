package openaihttp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/memhost/memhost/sdk/openaihttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const key = "sk-test-never-print-me"

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now, err := http.ParseTime("Mon, 02 Jan 2006 15:04:05 GMT")
	require.NoError(t, err)
	h := func(v string) http.Header { return http.Header{"Retry-After": {v}} }
	d, ok := openaihttp.RetryAfter(h("7"), now)
	require.True(t, ok)
	require.Equal(t, "7s", d.String())
	d, ok = openaihttp.RetryAfter(h("Mon, 02 Jan 2006 15:04:35 GMT"), now)
	require.True(t, ok)
	require.Equal(t, "30s", d.String())
	_, ok = openaihttp.RetryAfter(h("soon"), now)
	require.False(t, ok)
	_, ok = openaihttp.RetryAfter(nil, now)
	require.False(t, ok)
	require.Equal(t, 7*time.Second, openaihttp.DefaultRetry.Wait(1, h("7"), now))
}

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	t.Parallel()
	p := openaihttp.DefaultRetry
	for n := 1; n <= 10; n++ {
		d := p.Backoff(n)
		want := min(p.Base<<(n-1), p.Max)
		require.GreaterOrEqual(t, d, want/2)
		require.LessOrEqual(t, d, want)
	}
}

func TestKeyFromEnv(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return map[string]string{"MY_KEY": key}[k] }
	k, err := openaihttp.KeyFromEnv(env, "X_API_KEY_ENV", "MY_KEY")
	require.NoError(t, err)
	require.Equal(t, openaihttp.Secret(key), k)
	for _, f := range []string{"%v", "%s", "%#v", "%+v"} {
		require.NotContains(t, fmt.Sprintf(f, struct{ K openaihttp.Secret }{k}), key)
	}
	k, err = openaihttp.KeyFromEnv(env, "X_API_KEY_ENV", "")
	require.NoError(t, err)
	require.Empty(t, k)
	_, err = openaihttp.KeyFromEnv(env, "X_API_KEY_ENV", "NOT SET")
	require.ErrorContains(t, err, "X_API_KEY_ENV")
	_, err = openaihttp.KeyFromEnv(env, "X_API_KEY_ENV", "UNSET_VAR")
	require.ErrorContains(t, err, "UNSET_VAR")
}

func TestBaseURL(t *testing.T) {
	t.Parallel()
	for base, loop := range map[string]bool{"http://127.0.0.1:11434/v1": true, "http://localhost/v1": true, "https://api.example.com/v1": false} {
		got, err := openaihttp.IsLoopback(base, "K")
		require.NoError(t, err)
		require.Equal(t, loop, got, base)
	}
	for _, bad := range []string{"ftp://h/v1", "http:///v1", "http://u:" + key + "@h/v1", "::",
		"file:///etc/passwd", "gopher://127.0.0.1:70/_x", "http://127.0.0.1:/v1", "http://[::1]:/v1", "http://h:99999/v1", "http://h:0/v1"} {
		_, err := openaihttp.ParseBaseURL(bad, "K")
		require.Error(t, err, bad)
		require.NotContains(t, err.Error(), key)
	}
}

// TestClassify reads failures the way go-openai reports them from a real
// HTTP exchange, scrubbing the key the runtime echoed.
func TestClassify(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/api/"):
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"bad %s","type":"invalid_request_error","param":"encoding_format","code":null}}`, r.Header.Get("Authorization"))
		default:
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "<html>"+strings.Repeat("gateway ", 100)+"</html>")
		}
	}))
	defer srv.Close()
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	c := openaihttp.NewClient(srv.URL+"/api/v1", key, &http.Client{Transport: transport})
	_, err := c.ListModels(t.Context())
	ce, ok := openaihttp.Classify(err, key)
	require.True(t, ok, "%v", err)
	require.Equal(t, http.StatusBadRequest, ce.Status)
	require.True(t, ce.Rejects("encoding_format"))
	require.False(t, ce.Retryable())
	require.NotContains(t, ce.Message+ce.Detail, key)

	c = openaihttp.NewClient(srv.URL+"/html/v1", key, &http.Client{Transport: transport})
	_, err = c.ListModels(t.Context())
	ce, ok = openaihttp.Classify(err, key)
	require.True(t, ok, "%v", err)
	require.True(t, ce.Retryable())
	require.LessOrEqual(t, len(ce.Message), 310)

	_, ok = openaihttp.Classify(fmt.Errorf("something else"), key)
	require.False(t, ok)
}

// TestHealthBudget: a Health answers before the host's deadline, with room for the answer to
// travel back, and never waits longer than its own ceiling.
func TestHealthBudget(t *testing.T) {
	t.Parallel()
	require.Equal(t, 5*time.Second, openaihttp.HealthBudget(context.Background(), 5*time.Second), "no deadline: the ceiling")
	for left, want := range map[time.Duration]time.Duration{
		time.Second:            800 * time.Millisecond,
		10 * time.Second:       5 * time.Second,
		3 * time.Second:        2750 * time.Millisecond,
		100 * time.Millisecond: 80 * time.Millisecond,
	} {
		ctx, cancel := context.WithTimeout(context.Background(), left)
		got := openaihttp.HealthBudget(ctx, 5*time.Second)
		cancel()
		require.InDelta(t, want, got, float64(100*time.Millisecond), "%s left", left)
	}
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	require.Zero(t, openaihttp.HealthBudget(ctx, time.Second), "a deadline already passed")
}
