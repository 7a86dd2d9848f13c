package openaicompat

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestConfigFromEnv(t *testing.T) {
	t.Parallel()
	c, err := ConfigFromEnv(env(map[string]string{
		EnvBaseURL: "http://127.0.0.1:11434/v1", EnvModel: "nomic-embed-text", EnvName: "local",
		EnvAPIKeyEnv: "MY_KEY", "MY_KEY": testKey, EnvDimensions: "768", EnvMaxInputTokens: "2048",
		EnvMaxBatch: "16", EnvTimeout: "5s", EnvFoldThreshold: "0.88",
	}))
	require.NoError(t, err)
	require.Equal(t, "local", c.Name)
	require.Equal(t, 768, c.Dimensions)
	require.Equal(t, 2048, c.MaxInputTokens)
	require.Equal(t, 16, c.MaxBatch)
	require.Equal(t, "5s", c.Timeout.String())
	require.InDelta(t, 0.88, c.FoldThreshold, 1e-9)
	require.Equal(t, "search_query: ", c.QueryPrefix)
	require.Equal(t, "search_document: ", c.DocumentPrefix)
	require.EqualValues(t, testKey, c.APIKey)

	c, err = ConfigFromEnv(env(map[string]string{EnvBaseURL: "http://localhost:1234/v1", EnvModel: "nomic-embed-text", EnvDocumentPrefix: "doc: "}))
	require.NoError(t, err)
	require.Equal(t, DefaultName, c.Name)
	require.Equal(t, "", c.QueryPrefix, "a configured prefix replaces the family's pair")
	require.Equal(t, "doc: ", c.DocumentPrefix)
	require.Equal(t, DefaultMaxInputTokens, c.MaxInputTokens)
}

func TestConfigFromEnvNamesTheBadVariable(t *testing.T) {
	t.Parallel()
	base := map[string]string{EnvBaseURL: "http://127.0.0.1:8080/v1", EnvModel: "m"}
	for _, c := range []struct {
		set  map[string]string
		want string
	}{
		{map[string]string{EnvBaseURL: ""}, EnvBaseURL},
		{map[string]string{EnvModel: ""}, EnvModel},
		{map[string]string{EnvBaseURL: "ftp://host/v1"}, EnvBaseURL},
		{map[string]string{EnvBaseURL: "http://user:" + testKey + "@host/v1"}, EnvBaseURL},
		{map[string]string{EnvDimensions: "wide"}, EnvDimensions},
		{map[string]string{EnvMaxInputTokens: "0"}, EnvMaxInputTokens},
		{map[string]string{EnvMaxBatch: "-3"}, EnvMaxBatch},
		{map[string]string{EnvTimeout: "soon"}, EnvTimeout},
		{map[string]string{EnvFoldThreshold: "1.5"}, EnvFoldThreshold},
		{map[string]string{EnvAPIKeyEnv: "NOT SET"}, EnvAPIKeyEnv},
		{map[string]string{EnvAPIKeyEnv: "UNSET_KEY_VAR"}, "UNSET_KEY_VAR"},
	} {
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
	e := FromEnv(env(map[string]string{EnvModel: "m"}), nil)
	_, err := e.Describe(t.Context())
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, EnvBaseURL)
	require.ErrorContains(t, e.Health(t.Context()), EnvBaseURL)
	_, err = e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
	require.ErrorIs(t, err, embedder.ErrInvalidInput)
	require.ErrorContains(t, err, EnvBaseURL)
}
