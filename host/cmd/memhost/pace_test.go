package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/daemon/server"
	"github.com/memhost/memhost/host/internal/wire"
)

// TestReembedYieldsToAgentsCalls: a re-embed with no agent calling runs its batches back to
// back (status: it rested for none); the same re-embed while an agent searches through the
// REST API rests after its batches for the agent's calls, and status says how long; the
// status line says so while a run yields.
func TestReembedYieldsToAgentsCalls(t *testing.T) {
	t.Parallel()
	ln := httptest.NewUnstartedServer(nil)
	cfg, dsn := brainConfig(t, ln.Listener.Addr().String())
	f, err := os.OpenFile(cfg, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	// Agents count as calling for 200ms after a call; the rests are 3x each batch's time.
	_, err = f.WriteString("[memory]\nindex_quiet = \"200ms\"\nbackground_yield = 3\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	core := openCore(t, cfg)
	handler, closeMCP := core.Handler()
	ln.Config.Handler = handler
	ln.Start()
	t.Cleanup(func() { ln.Close(); closeMCP() })
	url := "http://" + ln.Listener.Addr().String()

	ctx := context.Background()
	admin, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "op", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite, auth.ScopeAdmin}})
	require.NoError(t, err)
	agent, _, err := core.Tokens.Create(ctx, auth.CreateToken{Name: "agent", Scopes: []auth.Scope{auth.ScopeRead, auth.ScopeWrite}})
	require.NoError(t, err)
	storeServices(t, core.Service, 200)
	pool, err := pgxpool.New(ctx, dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	dropVectors := func() {
		_, err := pool.Exec(ctx, `DELETE FROM memory_vectors`)
		require.NoError(t, err)
	}
	status := func() wire.ReembedProgress {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/api/v1/status", nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+admin)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		require.Equal(t, http.StatusOK, res.StatusCode)
		var s server.Status
		require.NoError(t, json.NewDecoder(res.Body).Decode(&s))
		require.NotNil(t, s.Reembed)
		return *s.Reembed
	}
	reembed := func() {
		out, err := run(t, "reembed", "--wait", "--config", cfg, "--token", admin)
		require.NoError(t, err, out)
		require.Contains(t, out, "done: every memory has a vector of bm25-v1-384")
	}

	// Idle: the setup's writes are past memory.index_quiet before the run starts.
	dropVectors()
	require.Eventually(t, func() bool { return time.Since(core.Service.LastCall()) > time.Second }, 5*time.Second, 50*time.Millisecond)
	reembed()
	idle := status()
	require.Zero(t, idle.Missing)
	require.Zero(t, idle.YieldedSeconds, "no agent calling: no rests")
	require.Zero(t, core.Pacer.Stats().Rests)

	// An agent searching through the REST API all along.
	dropVectors()
	agentCtx, stopAgent := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	calls := 0
	go func() {
		defer wg.Done()
		for agentCtx.Err() == nil {
			body := fmt.Sprintf(`{"query":"which port does svc-%d listen on","project":%q}`, calls%200, cliProject)
			req, err := http.NewRequestWithContext(agentCtx, http.MethodPost, url+"/api/v1/memories/search", bytes.NewBufferString(body))
			if err != nil {
				return
			}
			req.Header.Set("Authorization", "Bearer "+agent)
			req.Header.Set("Content-Type", "application/json")
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
				calls++
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	require.Eventually(t, func() bool { return time.Since(core.Service.LastCall()) < 100*time.Millisecond }, 5*time.Second, 5*time.Millisecond, "the agent's calls reach the memory service")
	reembed()
	stopAgent()
	wg.Wait()
	require.Positive(t, calls)
	busy := status()
	require.Zero(t, busy.Missing)
	require.Positive(t, busy.YieldedSeconds, "the run rested for the agent's calls")
	require.False(t, busy.Yielding, "the run is over")
	stats := core.Pacer.Stats()
	require.Positive(t, stats.Rests)
	require.InDelta(t, stats.Rested.Seconds(), busy.YieldedSeconds, 1e-6, "status says what the pacer decided")

	line := reembedLine(wire.ReembedProgress{Embedder: "bm25-v1-384", Total: 10, Missing: 4, Yielding: true, YieldedSeconds: 1.23})
	require.Contains(t, line, "6 of 10 memories embedded (60%), 4 left; yielding to agents' calls (rested 1.2s)")
}
