package server_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/plugins"
)

// TestEmbedderCandidatesTellEachEndpointOnlyItsSettings: one process per [embedders.NAME]
// table, told its MEMHOST_EMBEDDER_* settings and the variable holding its key (not the
// key's value when the host lacks it, nor any other host variable); the openaicompat binary
// never runs bare; a table whose binary is missing is reported, not fatal.
func TestEmbedderCandidatesTellEachEndpointOnlyItsSettings(t *testing.T) {
	t.Parallel()
	found := []plugins.Candidate{
		{Kind: "embedder", Name: "bm25", Path: "/p/memhost-embedder-bm25"},
		{Kind: "embedder", Name: "openaicompat", Path: "/p/memhost-embedder-openaicompat"},
		{Kind: "provider", Name: "claude", Path: "/p/memhost-provider-claude"},
	}
	cfg := config.Default()
	cfg.Embedders = map[string]config.Endpoint{
		"cloud": {Plugin: "openaicompat", BaseURL: "https://api.example.com/v1", Model: "text-embedding-3-small", APIKeyEnv: "OPENAI_API_KEY",
			Dimensions: 1536, Timeout: 45 * time.Second},
		"local": {Plugin: "openaicompat", BaseURL: "http://127.0.0.1:11434/v1", Model: "nomic-embed-text", QueryPrefix: "q: "},
		"gone":  {Plugin: "tei", BaseURL: "http://127.0.0.1:8080/v1", Model: "m"},
	}
	environ := func(k string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "sk-1", "MEMHOST_DATABASE_URL": "postgres://secret"}[k]
		return v, ok
	}
	cands, missing := server.EmbedderCandidates(cfg, found, environ)
	require.Equal(t, map[string]string{"gone": "plugin memhost-embedder-tei is not in plugins.dirs (bin/plugins)"}, missing)
	require.Len(t, cands, 3)
	require.Equal(t, "cloud", cands[0].Instance)
	require.Equal(t, []string{
		"MEMHOST_EMBEDDER_NAME=cloud", "MEMHOST_EMBEDDER_BASE_URL=https://api.example.com/v1", "MEMHOST_EMBEDDER_MODEL=text-embedding-3-small",
		"MEMHOST_EMBEDDER_API_KEY_ENV=OPENAI_API_KEY", "MEMHOST_EMBEDDER_DIMENSIONS=1536", "MEMHOST_EMBEDDER_TIMEOUT=45s", "OPENAI_API_KEY=sk-1",
	}, cands[0].Env)
	require.Equal(t, "local", cands[1].Instance)
	require.Equal(t, []string{"MEMHOST_EMBEDDER_NAME=local", "MEMHOST_EMBEDDER_BASE_URL=http://127.0.0.1:11434/v1",
		"MEMHOST_EMBEDDER_MODEL=nomic-embed-text", "MEMHOST_EMBEDDER_QUERY_PREFIX=q: "}, cands[1].Env)
	require.Equal(t, plugins.Candidate{Kind: "embedder", Name: "bm25", Path: "/p/memhost-embedder-bm25"}, cands[2], "the floor runs as found")
}
