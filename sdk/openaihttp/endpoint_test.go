package openaihttp_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/openaihttp"
)

var vars = openaihttp.EndpointVars{Name: "X_NAME", Model: "X_MODEL", BaseURL: "X_BASE_URL", APIKeyEnv: "X_API_KEY_ENV"}

// TestEndpointFromEnv: the shared endpoint settings default the name, require the API root
// and the model (naming the variable), read the key from the variable named, and keep what
// they read when one is missing.
func TestEndpointFromEnv(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	e, err := openaihttp.EndpointFromEnv(env(map[string]string{"X_BASE_URL": " http://127.0.0.1:1/v1 ", "X_MODEL": "m",
		"X_API_KEY_ENV": "MY_KEY", "MY_KEY": key}), vars, "dflt", "the model to ask")
	require.NoError(t, err)
	require.Equal(t, openaihttp.Endpoint{Name: "dflt", Model: "m", BaseURL: "http://127.0.0.1:1/v1", APIKey: key, APIKeyEnv: "MY_KEY"}, e)

	e, err = openaihttp.EndpointFromEnv(env(map[string]string{"X_NAME": "mine", "X_MODEL": "m"}), vars, "dflt", "the model to ask")
	require.ErrorContains(t, err, "X_BASE_URL is not set")
	require.Equal(t, "mine", e.Name, "what was read is kept")
	_, err = openaihttp.EndpointFromEnv(env(map[string]string{"X_BASE_URL": "http://h/v1"}), vars, "dflt", "the embedding model to ask")
	require.EqualError(t, err, "X_MODEL is not set: the embedding model to ask")
	_, err = openaihttp.EndpointFromEnv(env(map[string]string{"X_BASE_URL": "http://h/v1", "X_MODEL": "m", "X_API_KEY_ENV": "UNSET"}), vars, "dflt", "")
	require.ErrorContains(t, err, "X_API_KEY_ENV names UNSET")
}

func TestDurationFromEnv(t *testing.T) {
	t.Parallel()
	env := func(v string) func(string) string { return func(string) string { return v } }
	d, err := openaihttp.DurationFromEnv(env(""), "X_TIMEOUT", time.Minute)
	require.NoError(t, err)
	require.Equal(t, time.Minute, d)
	d, err = openaihttp.DurationFromEnv(env(" 5s "), "X_TIMEOUT", time.Minute)
	require.NoError(t, err)
	require.Equal(t, 5*time.Second, d)
	for _, bad := range []string{"soon", "-1s", "0s"} {
		_, err = openaihttp.DurationFromEnv(env(bad), "X_TIMEOUT", time.Minute)
		require.ErrorContains(t, err, `X_TIMEOUT "`+bad+`": must be a positive Go duration`)
	}
}
