package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestEmbeddersFromFileEnvAndFlag: [embedders.NAME] tables come from the file, the
// environment and --set like every other key, with their origins recorded; embedder.active
// defaults to auto.
func TestEmbeddersFromFileEnvAndFlag(t *testing.T) {
	t.Parallel()
	path := writeConfig(t, `
[embedders.local]
plugin = "openaicompat"
base_url = "http://127.0.0.1:11434/v1"
model = "nomic-embed-text"
dimensions = 768
query_prefix = "search_query: "
document_prefix = "search_document: "
[embedders.cloud]
plugin = "openaicompat"
base_url = "https://api.example.com/v1"
model = "text-embedding-3-small"
`)
	cfg := load(t, LoadOptions{ConfigPath: path,
		Environ: []string{"MEMHOST_EMBEDDERS__CLOUD__API_KEY_ENV=OPENAI_API_KEY", "MEMHOST_EMBEDDERS__LOCAL__MAX_INPUT_TOKENS=2048"},
		Flags:   flags(t, "--set", "embedders.cloud.dimensions=1536", "--set", "embedders.cloud.timeout=45s")})
	require.Empty(t, cfg.Validate())
	require.Equal(t, ActiveAuto, cfg.Embedder.Active)
	require.Equal(t, Endpoint{Plugin: "openaicompat", BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text", Dimensions: 768,
		MaxInputTokens: 2048, QueryPrefix: "search_query: ", DocumentPrefix: "search_document: "}, cfg.Embedders["local"])
	require.Equal(t, Endpoint{Plugin: "openaicompat", BaseURL: "https://api.example.com/v1", Model: "text-embedding-3-small",
		APIKeyEnv: "OPENAI_API_KEY", Dimensions: 1536, Timeout: 45 * time.Second}, cfg.Embedders["cloud"])
	origins := map[string]string{}
	for _, s := range cfg.Settings() {
		origins[s.Key] = s.Origin
	}
	require.Equal(t, "env MEMHOST_EMBEDDERS__CLOUD__API_KEY_ENV", origins["embedders.cloud.api_key_env"])
	require.Equal(t, "file "+path, origins["embedders.local.base_url"])
	require.Equal(t, "flag --set", origins["embedders.cloud.dimensions"])
}

// TestEmbeddersProblems: config check names each bad embedder key and the limit it breaks.
func TestEmbeddersProblems(t *testing.T) {
	t.Parallel()
	cfg := load(t, LoadOptions{ConfigPath: writeConfig(t, `
[embedders.local]
plugin = "openaicompat"
api_key_env = "sk-live-1234"
dimensions = 3072
max_input_tokens = "many"
colour = "blue"
[embedders.remote]
plugin = "openaicompat"
base_url = "https://user:secret@api.example.com/v1"
model = "m"
timeout = "soon"
[embedders.auto]
plugin = "Open AI"
base_url = "ftp://h/v1"
`)})
	require.Equal(t, []Problem{
		{Key: "embedders.auto", Message: `"auto" is reserved for embedder.active; choose another name`},
		{Key: "embedders.auto.base_url", Message: `scheme "ftp": must be http or https`},
		{Key: "embedders.auto.plugin", Message: `"Open AI" is not a plugin name (memhost-embedder-<plugin>)`},
		{Key: "embedders.local.api_key_env", Message: "must be the NAME of an environment variable holding the key, not the key"},
		{Key: "embedders.local.base_url", Message: "is required for plugin openaicompat (e.g. http://127.0.0.1:11434/v1)"},
		{Key: "embedders.local.colour", Message: "unknown key (an embedder has plugin, base_url, model, api_key_env, dimensions, max_input_tokens, query_prefix, document_prefix, timeout)"},
		{Key: "embedders.local.dimensions", Message: "3072 is wider than the 2000 dimensions pgvector's HNSW index takes; choose a model of at most 2000"},
		{Key: "embedders.local.max_input_tokens", Message: `"many" is not a valid whole number`},
		{Key: "embedders.local.model", Message: "is required for plugin openaicompat (e.g. nomic-embed-text)"},
		{Key: "embedders.remote.base_url", Message: "must not carry credentials; put the key in a variable named by api_key_env"},
		{Key: "embedders.remote.timeout", Message: `"soon" is not a valid duration (e.g. 30s)`},
	}, cfg.Validate())
}
