package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// endpoint is an [embedders.local] table for the fake runtime at url.
func endpoint(url string) string {
	return fmt.Sprintf("[embedders.local]\nplugin = \"openaicompat\"\nbase_url = %q\nmodel = \"nomic-embed-text\"\ndimensions = 768\nmax_input_tokens = 256\n", url)
}

// denseHost is a host serving on an httptest listener, on dsn, with the BM25 floor and the
// dense embedder plugin to choose from and extra appended to its config.
type denseHost struct {
	cfg   string
	core  *server.Core
	token string
	close func()
	// head is the config file's server, database and log tables, which rewrite keeps.
	head string
	logs *testlog.Buffer // the host's log
}

// densePlugins is the plugins table with both embedder tiers to choose from.
func densePlugins(t *testing.T) string {
	return fmt.Sprintf("[plugins]\ndirs = [%q]\nhealth_interval = \"1s\"\n", testplugins.Dense(t))
}

// openDense opens a host as boot does, with both embedder tiers; err is boot's refusal.
func openDense(t *testing.T, dsn, extra string) (*denseHost, error) {
	t.Helper()
	return openHost(t, dsn, densePlugins(t)+extra)
}

// openHost opens a host on dsn with the config tail (its tables other than server, database
// and log); err is boot's refusal.
func openHost(t *testing.T, dsn, tail string) (*denseHost, error) {
	t.Helper()
	ln := httptest.NewUnstartedServer(nil)
	path := filepath.Join(t.TempDir(), "memhost.toml")
	head := fmt.Sprintf("[server]\nlisten = %q\n[database]\nurl = %q\n[log]\nlevel = \"warn\"\n", ln.Listener.Addr().String(), dsn)
	require.NoError(t, os.WriteFile(path, []byte(head+tail), 0o600))
	cfg, err := config.Load(context.Background(), config.LoadOptions{ConfigPath: path})
	require.NoError(t, err)
	logs := &testlog.Buffer{}
	core, err := server.Open(context.Background(), cfg, slog.New(slog.NewTextHandler(logs, nil)))
	if err != nil {
		ln.Close()
		return nil, err
	}
	// Reloadable from its file, as `memhost serve` makes it, before it serves a request.
	core.LoadConfig = func(ctx context.Context) (*config.Config, error) {
		return config.Load(ctx, config.LoadOptions{ConfigPath: path})
	}
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	var once sync.Once
	h := &denseHost{cfg: path, core: core, head: head, logs: logs, close: func() {
		once.Do(func() { ln.Close(); closeMCP(); core.Close(context.Background()) })
	}}
	t.Cleanup(h.close)
	h.token, _, err = core.Tokens.Create(context.Background(), auth.CreateToken{Name: "operator", Scopes: []auth.Scope{auth.ScopeAdmin}})
	require.NoError(t, err)
	return h, nil
}

func mustOpenDense(t *testing.T, dsn, extra string) *denseHost {
	t.Helper()
	h, err := openDense(t, dsn, extra)
	require.NoError(t, err)
	return h
}

// search asks the running host through `memhost memory search --json`.
func (h *denseHost) search(t *testing.T, query string) searchAnswer {
	t.Helper()
	out, err := run(t, "memory", "search", query, "--json", "--config", h.cfg, "--project", cliProject, "--token", h.token)
	require.NoError(t, err, out)
	var ans searchAnswer
	require.NoError(t, json.Unmarshal([]byte(out), &ans), out)
	return ans
}

func (h *denseHost) status(t *testing.T) server.EmbedderStatus {
	t.Helper()
	s, err := h.core.Status(context.Background(), true)
	require.NoError(t, err)
	return s.Embedder
}

// TestDenseMemoryFindsWhatAgentsMeanAndNeverDowngrades walks auto tiering through one
// database's life: a configured endpoint gives semantic search; an outage degrades search to
// lexical without switching embedders and recovers; removing the endpoint from the config
// refuses to start with the remedy; an endpoint down at boot keeps the dense tier; an explicit
// bm25 abandons it as asked.
func TestDenseMemoryFindsWhatAgentsMeanAndNeverDowngrades(t *testing.T) {
	t.Parallel()
	dsn := testdb.Schema(t)
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	h := mustOpenDense(t, dsn, endpoint(srv.URL()))

	out, err := run(t, "status", "--config", h.cfg, "--token", h.token)
	require.NoError(t, err, out)
	require.Contains(t, out, "embedder:    nomic-embed-text-768 (768 dims, ready)")
	require.Contains(t, out, "dense: [embedders.local] (nomic-embed-text-768) is configured and answers — semantic memory is on (configured: auto)")

	ctx := context.Background()
	facts := map[string]string{}
	for _, text := range []string{"We use pnpm, never npm.", "Don't write specs unless asked.", "Prefer fakes over mocks.", "The API listens on port 8080."} {
		res, err := h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: text, Kind: "convention"})
		require.NoError(t, err)
		facts[text] = res.Memory.ID.String()
	}
	for query, want := range map[string]string{
		"which package manager":            "We use pnpm, never npm.",
		"should I add tests for my change": "Don't write specs unless asked.",
		"should I use mockk":               "Prefer fakes over mocks.",
	} {
		ans := h.search(t, query)
		require.Empty(t, ans.Degraded)
		require.NotEmpty(t, ans.Results, query)
		require.Equal(t, facts[want], ans.Results[0].ID.String(), "%q should find %q first", query, want)
	}

	srv.SetOutage(openaifake.Refused)
	ans := h.search(t, "pnpm")
	require.Equal(t, memory.DegradedLexicalOnly, ans.Degraded, "an outage degrades search to lexical")
	require.Equal(t, facts["We use pnpm, never npm."], ans.Results[0].ID.String())
	_, err = h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Deploys go through staging."})
	require.ErrorIs(t, err, rules.ErrUnavailable, "writes wait for the endpoint rather than storing a vector of another space")
	st := h.status(t)
	require.Equal(t, "nomic-embed-text-768", st.Name, "never downgraded")
	require.Equal(t, server.TierDense, st.Tier)
	srv.SetOutage(openaifake.Up)
	ans = h.search(t, "which package manager")
	require.Empty(t, ans.Degraded, "resumes once the endpoint answers")
	require.Equal(t, facts["We use pnpm, never npm."], ans.Results[0].ID.String())
	h.close()

	_, err = openDense(t, dsn, "")
	require.ErrorContains(t, err, "the database holds vectors of the dense embedder nomic-embed-text-768, but no embedding endpoint is configured")
	require.ErrorContains(t, err, `set embedder.active = "bm25" to abandon dense memory`)

	srv.SetOutage(openaifake.Refused)
	h = mustOpenDense(t, dsn, endpoint(srv.URL()))
	st = h.status(t)
	require.Equal(t, "nomic-embed-text-768", st.Name, "an endpoint down at boot keeps the dense tier")
	require.Equal(t, server.TierDense, st.Tier)
	require.Equal(t, memory.DegradedLexicalOnly, h.search(t, "pnpm").Degraded)
	srv.SetOutage(openaifake.Up)
	ans = h.search(t, "should I use mockk")
	require.Empty(t, ans.Degraded)
	require.Equal(t, facts["Prefer fakes over mocks."], ans.Results[0].ID.String())
	h.close()

	h = mustOpenDense(t, dsn, "[embedder]\nactive = \"bm25\"\n")
	st = h.status(t)
	require.Equal(t, "bm25-v1-384", st.Name)
	require.Equal(t, server.TierExplicit, st.Tier)
}

// TestAutoRunsOnBM25AndUpgradesWhenTheEndpointAnswers: with nothing stored, an endpoint down
// at boot leaves the BM25 floor serving, saying why, until the endpoint answers; then dense
// memory is on without a restart. With no endpoint configured, BM25 says semantic memory is off.
func TestAutoRunsOnBM25AndUpgradesWhenTheEndpointAnswers(t *testing.T) {
	t.Parallel()
	bare := mustOpenDense(t, testdb.Schema(t), "")
	st := bare.status(t)
	require.Equal(t, "bm25-v1-384", st.Name)
	require.Equal(t, "BM25: no embedding endpoint configured — semantic memory is off", st.Reason)
	require.Equal(t, config.ActiveAuto, st.Configured)
	out, err := run(t, "plugins", "--config", bare.cfg)
	require.NoError(t, err, out)
	require.Contains(t, out, "BM25: no embedding endpoint configured — semantic memory is off")
	bare.close()

	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	srv.SetOutage(openaifake.Refused)
	h := mustOpenDense(t, testdb.Schema(t), endpoint(srv.URL()))
	st = h.status(t)
	require.Equal(t, server.TierBM25, st.Tier)
	require.Equal(t, "BM25: the embedding endpoint [embedders.local] is configured but unreachable — using BM25 until it responds", st.Reason)

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.core.Plugins.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	srv.SetOutage(openaifake.Up)
	require.Eventually(t, func() bool { return h.status(t).Tier == server.TierDense }, 30*time.Second, 100*time.Millisecond,
		"the health loop sees the endpoint answer and the host switches up")
	st = h.status(t)
	require.Equal(t, "nomic-embed-text-768", st.Name)
	res, err := h.core.Service.Store(context.Background(), operator(cliProject), memory.StoreRequest{Text: "We use pnpm, never npm."})
	require.NoError(t, err)
	ans := h.search(t, "which package manager")
	require.Equal(t, res.Memory.ID.String(), ans.Results[0].ID.String())
	require.NotNil(t, ans.Results[0].Cosine, "found by meaning through the dense embedder")
}

// TestConfigCheckChoosesTheEmbedderAsBootDoes: config check launches the endpoints' plugins
// and reports the choice with its reason, and asks to choose between several endpoints.
func TestConfigCheckChoosesTheEmbedderAsBootDoes(t *testing.T) {
	t.Parallel()
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	out, err := run(t, "config", "check", "--config", writeConfig(t, testplugins.Dense(t), endpoint(srv.URL())))
	require.NoError(t, err, out)
	require.Contains(t, out, "embedder: nomic-embed-text-768 from memhost-embedder-openaicompat (dense: [embedders.local] (nomic-embed-text-768) is configured and answers — semantic memory is on)")

	two := endpoint(srv.URL()) + "[embedders.other]\nplugin = \"openaicompat\"\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\ndimensions = 384\n"
	out, err = run(t, "config", "check", "--config", writeConfig(t, testplugins.Dense(t), two))
	require.Error(t, err)
	require.Contains(t, out, "embedder.active: several embedding endpoints are configured (local, other); choose one with embedder.active")
}
