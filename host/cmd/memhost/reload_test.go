package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// rewrite replaces the host's config file's tables other than server, database and log.
func (h *denseHost) rewrite(t *testing.T, tail string) {
	t.Helper()
	require.NoError(t, os.WriteFile(h.cfg, []byte(h.head+tail), 0o600))
}

// TestReloadSwitchesToANewEndpointAndRefusesABadConfig: `memhost reload` picks up an
// [embedders] table added to the file and dense memory is on without a restart; a file with a
// problem is refused with the reason and the running choice stays; SIGHUP reloads too.
func TestReloadSwitchesToANewEndpointAndRefusesABadConfig(t *testing.T) {
	t.Parallel()
	h := mustOpenDense(t, testdb.Schema(t), "")
	base := densePlugins(t)
	require.Equal(t, server.TierBM25, h.status(t).Tier)
	args := []string{"reload", "--config", h.cfg, "--token", h.token}

	h.rewrite(t, base+"[memory]\nmax_text_bytes = 3\n")
	out, err := run(t, args...)
	require.ErrorContains(t, err, "memory.max_text_bytes: 3 is out of range", "the CLI reads the same file first")
	status, body := h.post(t, "/api/v1/admin/reload")
	require.Equal(t, http.StatusBadRequest, status, body)
	require.Contains(t, body, "reload refused, the running configuration stays")
	require.Contains(t, body, "memory.max_text_bytes: 3 is out of range 16..1048576")
	require.Equal(t, "bm25-v1-384", h.status(t).Name, out)

	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	h.rewrite(t, base+endpoint(srv.URL())+"[embedders.other]\nplugin = \"openaicompat\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\ndimensions = 384\n")
	_, err = run(t, args...)
	require.ErrorContains(t, err, "several embedding endpoints are configured (local, other)", "boot's refusal is reload's")
	require.Equal(t, "bm25-v1-384", h.status(t).Name)
	for _, p := range h.core.Plugins.List() {
		require.Empty(t, p.Instance, "the refused reload's plugins are gone")
	}

	h.rewrite(t, base+endpoint(srv.URL()))
	out, err = run(t, args...)
	require.NoError(t, err, out)
	require.Contains(t, out, "dense: [embedders.local] (nomic-embed-text-768) is configured and answers — semantic memory is on")
	st := h.status(t)
	require.Equal(t, "nomic-embed-text-768", st.Name)
	require.Equal(t, server.TierDense, st.Tier)

	h.rewrite(t, base+endpoint(srv.URL())+"[auth]\nwrite_rate_per_minute = 1\nwrite_burst = 1\n")
	status, body = h.post(t, "/api/v1/admin/reload")
	require.Equal(t, http.StatusOK, status, body)
	status, body = h.postJSON(t, "/api/v1/memories", `{"text":"We use pnpm, never npm.","project":"acme"}`)
	require.Equal(t, http.StatusCreated, status, body)
	status, body = h.postJSON(t, "/api/v1/memories", `{"text":"Deploys go through staging.","project":"acme"}`)
	require.Equal(t, http.StatusTooManyRequests, status, "the reloaded write limit applies at once: %s", body)

	h.rewrite(t, base+"[embedder]\nactive = \"bm25\"\n")
	stop := reloadOnHangup(context.Background(), h.core)
	defer stop()
	require.NoError(t, syscall.Kill(os.Getpid(), syscall.SIGHUP))
	require.Eventually(t, func() bool { return h.status(t).Name == "bm25-v1-384" }, 30*time.Second, 50*time.Millisecond, "SIGHUP reloads")
}

// TestReloadUnderLoadDropsNoRequest swaps the embedder plugin's binary (another folder, then
// a checksum allow-list) five times while clients search and write through the REST API: no
// request fails and no search is degraded.
func TestReloadUnderLoadDropsNoRequest(t *testing.T) {
	t.Parallel()
	dirs := []string{t.TempDir(), t.TempDir()}
	for _, d := range dirs {
		testplugins.Install(t, d, "memhost-embedder-bm25", testplugins.BM25(t))
	}
	bin, err := os.ReadFile(testplugins.BM25(t))
	require.NoError(t, err)
	sum := sha256.Sum256(bin)
	variants := []string{
		fmt.Sprintf("[plugins]\ndirs = [%q]\n", dirs[0]),
		fmt.Sprintf("[plugins]\ndirs = [%q]\n", dirs[1]),
		fmt.Sprintf("[plugins]\ndirs = [%q]\n[plugins.checksums]\nmemhost-embedder-bm25 = %q\n", dirs[0], hex.EncodeToString(sum[:])),
	}
	limits := "[auth]\nwrite_rate_per_minute = 0\nread_rate_per_minute = 0\n"
	h, err := openHost(t, testdb.Schema(t), variants[0]+limits)
	require.NoError(t, err)

	url := "http://" + readListen(t, h)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var requests, failures atomic.Int64
	var firstFailure atomic.Value
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	client := &http.Client{Transport: transport}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				path, body := "/api/v1/memories/search", `{"query":"which package manager","project":"acme"}`
				if i%3 == 0 {
					path, body = "/api/v1/memories", fmt.Sprintf(`{"text":"fact %d from client %d about deploys","project":"acme"}`, i, w)
				}
				req, _ := http.NewRequest(http.MethodPost, url+path, bytes.NewReader([]byte(body)))
				req.Header.Set("Authorization", "Bearer "+h.token)
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				requests.Add(1)
				if err != nil {
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, err.Error())
					continue
				}
				var ans struct {
					Degraded string `json:"degraded"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&ans)
				resp.Body.Close()
				if resp.StatusCode >= 300 || ans.Degraded != "" {
					failures.Add(1)
					firstFailure.CompareAndSwap(nil, fmt.Sprintf("%s: HTTP %d %s", path, resp.StatusCode, ans.Degraded))
				}
			}
		})
	}
	for i := range 5 {
		h.rewrite(t, variants[(i+1)%len(variants)]+limits)
		res, err := h.core.Reload(context.Background())
		require.NoError(t, err)
		require.Equal(t, "bm25-v1-384", res.Embedder.Name)
	}
	after := requests.Load()
	require.Eventually(t, func() bool { return requests.Load() > after+100 }, 30*time.Second, 10*time.Millisecond,
		"load goes on after the last swap, on the new plugins only")
	cancel()
	wg.Wait()
	require.Positive(t, requests.Load())
	require.Zero(t, failures.Load(), "of %d requests; first: %v", requests.Load(), firstFailure.Load())
	t.Logf("%d requests during 5 reloads, none failed", requests.Load())
	require.Eventually(t, func() bool {
		n := 0
		for _, p := range h.core.Plugins.List() {
			if p.Kind == "embedder" {
				n++
			}
		}
		return n == 1
	}, 30*time.Second, 50*time.Millisecond, "the replaced plugins are retired")
}

// post sends an empty POST to the running host with the admin token.
func (h *denseHost) post(t *testing.T, path string) (int, string) {
	t.Helper()
	return h.postJSON(t, path, "")
}

// postJSON sends body to the running host with the admin token.
func (h *denseHost) postJSON(t *testing.T, path, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://"+readListen(t, h)+path, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+h.token)
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var b bytes.Buffer
	_, _ = b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// readListen is the address the test host serves on.
func readListen(t *testing.T, h *denseHost) string {
	t.Helper()
	cfg, err := config.Load(context.Background(), config.LoadOptions{ConfigPath: h.cfg})
	require.NoError(t, err)
	return cfg.Server.Listen
}

// TestReloadSaysWorkersApplyAtRestart: a reload that finds a [workers.NAME] table added or
// changed says plainly that workers apply at the next restart, naming the table; a reload
// with the workers unchanged says nothing of them.
func TestReloadSaysWorkersApplyAtRestart(t *testing.T) {
	t.Parallel()
	h := mustOpenDense(t, testdb.Schema(t), "")
	base := densePlugins(t)
	args := []string{"reload", "--config", h.cfg, "--token", h.token}
	out, err := run(t, args...)
	require.NoError(t, err, out)
	require.NotContains(t, out, "warning:")

	h.rewrite(t, base+"[workers.gpt]\nplugin = \"openaicompat\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n[workers.chains]\nmerge = [\"gpt\"]\n")
	out, err = run(t, args...)
	require.NoError(t, err, out)
	require.Contains(t, out, "warning: [workers.gpt] was added; [workers.chains] was changed (memhost workers chain TASK WORKER... changes a chain now): "+
		"workers apply when the host restarts, until then the running ones serve")
	status, body := h.post(t, "/api/v1/admin/reload")
	require.Equal(t, http.StatusOK, status, body)
	require.Contains(t, body, `"warnings":["[workers.gpt] was added;`)
}
