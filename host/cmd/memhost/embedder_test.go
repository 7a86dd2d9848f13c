package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
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
	require.Equal(t, "BM25: the embedding endpoint [embedders.local] is configured but fails its health check — using BM25 until it passes", st.Reason)
	require.Contains(t, st.Waiting, "cannot reach the runtime")

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

// TestReembedAgainstASlowModel: after a switch to a dense endpoint that answers one batch at a
// time at 20 ms a text (a model on a CPU), `memhost reembed --wait` converges: batches are sized
// by the model's measured speed, the endpoint's own timeout (3s) governs its calls rather than
// plugins.call_timeout (500ms, shorter than a batch of 64 takes), and the health checks during
// the batches neither wait behind them nor mark the plugin unhealthy.
func TestReembedAgainstASlowModel(t *testing.T) {
	t.Parallel()
	dsn := testdb.Schema(t)
	floor := mustOpenDense(t, dsn, "")
	storeServices(t, floor.core.Service, 100)
	floor.close()

	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text", LatencyPerInput: 20 * time.Millisecond, Serial: true})
	// A probe is given the interval (2s): longer than a batch of 64 takes here (1.3s), which a
	// probe sent between batches may wait behind at this one-request-at-a-time endpoint — as
	// the defaults hold it (a 10s probe, batches of about 5s).
	h, err := openHost(t, dsn, fmt.Sprintf("[plugins]\ndirs = [%q]\nhealth_interval = \"2s\"\ncall_timeout = \"500ms\"\n", testplugins.Dense(t))+
		endpoint(srv.URL())+"timeout = \"3s\"\n")
	require.NoError(t, err)
	require.Equal(t, "nomic-embed-text-768", h.status(t).Name)
	healthCtx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = h.core.Plugins.Run(healthCtx) }()
	t.Cleanup(func() { cancel(); <-done })

	var unhealthy atomic.Pointer[string] // what status said when it was not ready
	watch, stopWatch := context.WithCancel(context.Background())
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for watch.Err() == nil {
			if s, err := h.core.Status(watch, true); err == nil && s.Embedder.State != "ready" {
				said := s.Embedder.State + ": " + s.Embedder.Degraded
				unhealthy.CompareAndSwap(nil, &said)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	// Bounded: against the slow model, a host whose calls are cut at plugins.call_timeout
	// retries forever.
	var buf bytes.Buffer
	root := rootCmd()
	root.SetArgs([]string{"reembed", "--wait", "--config", h.cfg, "--token", h.token})
	root.SetOut(&buf)
	root.SetErr(&buf)
	runCtx, stopRun := context.WithTimeout(t.Context(), time.Minute)
	err = root.ExecuteContext(runCtx)
	stopRun()
	out := buf.String()
	stopWatch()
	<-watched
	require.NoError(t, err, out)
	require.Contains(t, out, "done: every memory has a vector of nomic-embed-text-768")
	require.NotContains(t, out, "unavailable")
	if said := unhealthy.Load(); said != nil {
		t.Fatalf("the embedder did not stay ready through the batches: status said %s", *said)
	}
	largest := 0
	for _, r := range srv.Requests() {
		largest = max(largest, len(r.Inputs))
	}
	require.Greater(t, largest, 25, "batches grew past what 500ms would have allowed")
}

// TestEmbedderHealthIsProbedAfterAnOutage: a dense endpoint that stops answering (its model
// wedged, or its server down) fails a write; meanwhile status says it does not answer (never
// "answers" beside "degraded", nor ready for a moment), and the plugin's process is not
// restarted for it; once it answers again, status is ready within a few health checks, with
// no write to find out.
func TestEmbedderHealthIsProbedAfterAnOutage(t *testing.T) {
	t.Parallel()
	for name, outage := range map[string]openaifake.Outage{"wedged": openaifake.Stalled, "down": openaifake.Refused} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
			h := mustOpenDense(t, testdb.Schema(t), endpoint(srv.URL())+"timeout = \"1s\"\n")
			healthCtx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { defer close(done); _ = h.core.Plugins.Run(healthCtx) }()
			t.Cleanup(func() { cancel(); <-done })
			ctx := context.Background()
			_, err := h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "We use pnpm, never npm."})
			require.NoError(t, err)

			srv.SetOutage(outage)
			_, err = h.core.Service.Store(ctx, operator(cliProject), memory.StoreRequest{Text: "Deploys go through staging."})
			require.ErrorIs(t, err, rules.ErrUnavailable)
			require.Eventually(t, func() bool { return h.status(t).State != "ready" }, 10*time.Second, 50*time.Millisecond,
				"the failed write has the endpoint's health probed")
			st := h.status(t)
			require.NotContains(t, st.Reason, "answers — semantic memory is on", "not beside a degraded line")
			require.Contains(t, st.Reason, "and does not answer now")
			require.NotEmpty(t, st.Degraded)
			// Through more health checks than a wedged process is given before its restart
			// (plugins.healthTimeoutsBeforeRestart): the plugin says the endpoint does not
			// answer, so its process is not restarted for it, and status never says it answers.
			for deadline := time.Now().Add(4 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				require.NotEqual(t, "ready", h.status(t).State, "ready during the outage")
			}
			for _, p := range h.core.Plugins.List() {
				if p.Name == "nomic-embed-text-768" {
					require.Zero(t, p.Restarts, "a process restarted for its endpoint's outage: %s", p.LastError)
				}
			}

			srv.SetOutage(openaifake.Up)
			require.Eventually(t, func() bool { return h.status(t).State == "ready" }, 15*time.Second, 100*time.Millisecond,
				"the health loop finds the endpoint answering again, without a write")
			out, err := run(t, "status", "--config", h.cfg, "--token", h.token)
			require.NoError(t, err, out)
			require.Contains(t, out, "is configured and answers — semantic memory is on")
			require.NotContains(t, out, "degraded")
		})
	}
}

// TestEmbedderStatusSaysWhyInTheOperatorsKeys: a model that silently cuts input shorter than
// embedders.local.max_input_tokens fails its health check at boot; status says it fails its
// health check (not that it is unreachable), and why, naming the key to change rather than the
// plugin's variable, whole. A dense endpoint whose plugin is missing is asked to set
// dimensions only when they are not set.
func TestEmbedderStatusSaysWhyInTheOperatorsKeys(t *testing.T) {
	t.Parallel()
	srv := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text", MaxInputTokens: 40, OverLong: openaifake.OverLongCut})
	h := mustOpenDense(t, testdb.Schema(t), endpoint(srv.URL()))
	st := h.status(t)
	require.Equal(t, "BM25: the embedding endpoint [embedders.local] is configured but fails its health check — using BM25 until it passes", st.Reason)
	advice := "embedders.local.max_input_tokens=256 is more than the model reads: set embedders.local.max_input_tokens to the model's real context"
	require.Contains(t, st.Waiting, advice)
	out, err := run(t, "status", "--config", h.cfg, "--token", h.token)
	require.NoError(t, err, out)
	require.Contains(t, out, "  waiting:   nomic-embed-text-768 is unhealthy (")
	require.Contains(t, out, advice)
	out, err = run(t, "plugins", "--config", h.cfg, "--token", h.token)
	require.NoError(t, err, out)
	require.Regexp(t, `(?m)^embedder nomic-embed-text-768: .*`+regexp.QuoteMeta(advice), out, "the whole last error below the table")
	require.NotContains(t, out, "MEMHOST_EMBEDDER_MAX_INPUT_TOKENS")
	h.close()

	// Dense vectors stored, the endpoint's plugin not in plugins.dirs.
	dsn := testdb.Schema(t)
	up := openaifake.Start(t, openaifake.Options{Model: "nomic-embed-text"})
	dense := mustOpenDense(t, dsn, endpoint(up.URL()))
	_, err = dense.core.Service.Store(context.Background(), operator(cliProject), memory.StoreRequest{Text: "We use pnpm, never npm."})
	require.NoError(t, err)
	dense.close()
	floorOnly := t.TempDir()
	testplugins.Install(t, floorOnly, "memhost-embedder-bm25", testplugins.BM25(t))
	plugins := fmt.Sprintf("[plugins]\ndirs = [%q]\n", floorOnly)
	h, err = openHost(t, dsn, plugins+endpoint(up.URL()))
	require.NoError(t, err)
	st = h.status(t)
	require.Contains(t, st.Degraded, "the dense embedder [embedders.local] did not start: no process: memhost-embedder-openaicompat is not in plugins.dirs")
	require.NotContains(t, st.Degraded, "set embedders.local.dimensions", "dimensions are set")
	h.close()
	h, err = openHost(t, dsn, plugins+strings.Replace(endpoint(up.URL()), "dimensions = 768\n", "", 1))
	require.NoError(t, err)
	require.Contains(t, h.status(t).Degraded, "set embedders.local.dimensions so it starts while its runtime is down")
}
