package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// nullRuntime is an OpenAI-compatible embeddings endpoint of 16-dimensional vectors that
// answers nulls (which decode as zeros) for a text holding "poison", as a broken runtime does.
func nullRuntime(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/embeddings") || json.NewDecoder(r.Body).Decode(&req) != nil {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		data := make([]map[string]any, len(req.Input))
		for i, in := range req.Input {
			var v any = openaifake.Vector(in, 16)
			if strings.Contains(in, "poison") {
				v = make([]any, 16) // [null, null, ...]
			}
			data[i] = map[string]any{"object": "embedding", "index": i, "embedding": v}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": "m", "data": data,
			"usage": map[string]int{"prompt_tokens": 1, "total_tokens": 1}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestAnEmbedderAnsweringNullsIsRefused (issue 25): a write the dense embedder answers with
// nulls is refused as the embedder's failure (REST 503, nothing stored) instead of storing a
// vector with no direction that nothing ever embeds again; a search it answers so falls back
// to the lexical path and says so; `memhost plugins` says why the embedder is unhealthy.
func TestAnEmbedderAnsweringNullsIsRefused(t *testing.T) {
	t.Parallel()
	srv := nullRuntime(t)
	h := mustOpenDense(t, testdb.Schema(t), fmt.Sprintf("[embedders.local]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"m\"\ndimensions = 16\n", srv.URL+"/v1"))
	require.Equal(t, "m-16", h.status(t).Name)
	ctx := context.Background()
	_, err := h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "We use pnpm for installs."})
	require.NoError(t, err)

	listen := regexp.MustCompile(`listen = "([^"]+)"`).FindStringSubmatch(h.head)[1]
	body, err := json.Marshal(map[string]string{"text": "The poison pill queue drains nightly.", "project": cliProject})
	require.NoError(t, err)
	status, answer := rest(t, h.token, "POST", "http://"+listen+"/api/v1/memories", string(body))
	require.Equal(t, http.StatusServiceUnavailable, status, answer)
	var n int
	require.NoError(t, h.core.Pool.QueryRow(ctx, `SELECT count(*) FROM memories`).Scan(&n))
	require.Equal(t, 1, n, "nothing stored for the refused write")

	ans := h.search(t, "poison pnpm")
	require.NotEmpty(t, ans.Degraded, "the query's vector was refused: lexical only")
	out, err := run(t, "plugins", "--config", h.cfg, "--token", h.token)
	require.NoError(t, err, out)
	require.Contains(t, out, "vector 0 is all zeros for a text with words")
}
