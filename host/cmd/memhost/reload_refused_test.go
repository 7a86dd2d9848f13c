package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// TestARefusedReloadKeepsTheRunningEmbedder: a reload whose checksum allow-list no longer
// matches the dense embedder's binary is refused, and the embedder that was serving goes on
// serving: status stays ready and writes still succeed (the refused reload retired it: not
// ready, every write 503).
func TestARefusedReloadKeepsTheRunningEmbedder(t *testing.T) {
	t.Parallel()
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	dir := testplugins.Dense(t)
	sums := map[string]string{}
	for _, name := range []string{"memhost-embedder-bm25", "memhost-embedder-openaicompat"} {
		bin, err := os.ReadFile(dir + "/" + name)
		require.NoError(t, err)
		sum := sha256.Sum256(bin)
		sums[name] = hex.EncodeToString(sum[:])
	}
	checksums := func(dense string) string {
		return fmt.Sprintf("[plugins.checksums]\nmemhost-embedder-bm25 = %q\nmemhost-embedder-openaicompat = %q\n", sums["memhost-embedder-bm25"], dense)
	}
	h := mustOpenDense(t, testdb.Schema(t), endpoint(srv.URL())+checksums(sums["memhost-embedder-openaicompat"]))
	base := densePlugins(t)
	status, body := h.postJSON(t, "/api/v1/memories", `{"text":"We use pnpm, never npm.","project":"acme"}`)
	require.Equal(t, http.StatusCreated, status, body)
	require.Equal(t, "nomic-embed-text-768", h.status(t).Name)

	stale := strings.Repeat("0", 64) // the binary was upgraded, the allow-list was not
	h.rewrite(t, base+endpoint(srv.URL())+checksums(stale))
	status, body = h.post(t, "/api/v1/admin/reload")
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, "reload refused, the running configuration stays")
	require.Contains(t, body, "memhost-embedder-openaicompat")

	st := h.status(t)
	require.Equal(t, "nomic-embed-text-768", st.Name, "the running embedder stays")
	require.Equal(t, "ready", st.State)
	require.Empty(t, st.Degraded)
	status, body = h.postJSON(t, "/api/v1/memories", `{"text":"Deploys go through staging first.","project":"acme"}`)
	require.Equal(t, http.StatusCreated, status, "writes still succeed: %s", body)
	for _, p := range h.core.Plugins.List() {
		if p.Kind == "embedder" {
			require.Equal(t, "ready", string(p.State), p.Name)
		}
	}
}

// TestAReloadRefusesAKeyPastedIntoAPIKeyEnv: a reload of a file whose embedder's api_key_env
// holds a key instead of a variable's name is refused, and neither the answer nor the host's
// log quotes the key (the reload started the plugin with it, which failed naming it).
func TestAReloadRefusesAKeyPastedIntoAPIKeyEnv(t *testing.T) {
	t.Parallel()
	h := mustOpenDense(t, testdb.Schema(t), "")
	pasted := "ghp_" + "Zq8XvN2LmP4rT6yW1bC3dF5gH7jK9sA0eUiO"
	h.rewrite(t, densePlugins(t)+"[embedders.cloud]\nplugin = \"openaicompat\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\ndimensions = 384\napi_key_env = \""+pasted+"\"\n")
	status, body := h.post(t, "/api/v1/admin/reload")
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, "embedders.cloud.api_key_env: holds what looks like a key")
	require.NotContains(t, body, pasted)
	require.NotContains(t, h.logs.String(), pasted)
	require.Equal(t, "bm25-v1-384", h.status(t).Name, "the running configuration stays")
}
