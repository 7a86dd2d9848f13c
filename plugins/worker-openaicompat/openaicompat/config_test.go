package openaicompat

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/worker"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	c, err := ConfigFromEnv(env(map[string]string{
		EnvBaseURL: "http://127.0.0.1:11434/v1", EnvModel: "qwen2.5:7b", EnvName: "local-qwen",
		EnvAPIKeyEnv: "MY_KEY", "MY_KEY": testKey, EnvTimeout: "45s", EnvMaxInputBytes: "1000",
	}))
	require.NoError(t, err)
	require.Equal(t, "local-qwen", c.Name)
	require.Equal(t, Secret(testKey), c.APIKey)
	require.Equal(t, worker.LocalityLocal, c.Locality)
	require.Equal(t, "45s", c.Timeout.String())
	require.Equal(t, 1000, c.MaxInputBytes)
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		require.NotContains(t, fmt.Sprintf(format, c), testKey, "printing a Config with %s", format)
	}

	c, err = ConfigFromEnv(env(map[string]string{EnvBaseURL: "http://localhost:1234/v1", EnvModel: "m"}))
	require.NoError(t, err)
	require.Equal(t, worker.LocalityLocal, c.Locality)
	require.Equal(t, DefaultName, c.Name)
	require.Equal(t, DefaultTimeout, c.Timeout)
	require.Equal(t, DefaultMaxInputBytes, c.MaxInputBytes)
	require.Empty(t, c.APIKey)

	c, err = ConfigFromEnv(env(map[string]string{EnvBaseURL: "https://api.example.com/v1", EnvModel: "m"}))
	require.NoError(t, err)
	require.Equal(t, worker.LocalityRemote, c.Locality)

	c, err = ConfigFromEnv(env(map[string]string{EnvBaseURL: "https://gpu-box.lan/v1", EnvModel: "m", EnvLocality: "local"}))
	require.NoError(t, err)
	require.Equal(t, worker.LocalityLocal, c.Locality)
}

func TestConfigFromEnvNamesTheBadVariable(t *testing.T) {
	t.Parallel()
	base := map[string]string{EnvBaseURL: "http://127.0.0.1:8080/v1", EnvModel: "m"}
	cases := []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{EnvBaseURL: ""}, EnvBaseURL},
		{map[string]string{EnvModel: ""}, EnvModel},
		{map[string]string{EnvBaseURL: "ftp://host/v1"}, EnvBaseURL},
		{map[string]string{EnvBaseURL: "http://user:" + testKey + "@host/v1"}, EnvBaseURL},
		{map[string]string{EnvTimeout: "soon"}, EnvTimeout},
		{map[string]string{EnvTimeout: "-1s"}, EnvTimeout},
		{map[string]string{EnvMaxInputBytes: "0"}, EnvMaxInputBytes},
		{map[string]string{EnvLocality: "moon"}, EnvLocality},
		{map[string]string{EnvAPIKeyEnv: "NOT SET"}, EnvAPIKeyEnv},
		{map[string]string{EnvAPIKeyEnv: "UNSET_KEY_VAR"}, "UNSET_KEY_VAR"},
	}
	for _, c := range cases {
		vars := map[string]string{}
		for k, v := range base {
			vars[k] = v
		}
		for k, v := range c.set {
			vars[k] = v
		}
		_, err := ConfigFromEnv(env(vars))
		require.ErrorContains(t, err, c.want, "%v", c.set)
		require.NotContains(t, err.Error(), testKey)
	}
}

// TestBadEnvironmentIsReportedNotFatal: the plugin built from a bad
// environment serves, and every method names the variable at fault.
func TestBadEnvironmentIsReportedNotFatal(t *testing.T) {
	t.Parallel()
	w := FromEnv(env(map[string]string{EnvModel: "m"}), nil)
	_, err := w.Describe(t.Context())
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	require.ErrorContains(t, err, EnvBaseURL)
	require.ErrorContains(t, w.Health(t.Context()), EnvBaseURL)
	_, err = w.Run(t.Context(), task(""))
	require.ErrorIs(t, err, worker.ErrInvalidInput)
	require.ErrorContains(t, err, EnvBaseURL)

	w = FromEnv(env(map[string]string{EnvBaseURL: "http://127.0.0.1:1/v1", EnvModel: "m", EnvName: "Not A Name"}), nil)
	_, err = w.Describe(t.Context())
	require.ErrorContains(t, err, EnvName)
}
