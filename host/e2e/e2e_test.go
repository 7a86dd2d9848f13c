package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/wire"
)

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func connect(t *testing.T, h *host, token string) *mcp.ClientSession {
	t.Helper()
	// A program, not a CLI: it asks for structured output to decode results.
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1.0"}, &mcp.ClientOptions{Capabilities: wire.StructuredClient()})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool[T any](t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) T {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.False(t, res.IsError, "%s failed: %v", name, res.Content)
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out T
	require.NoError(t, json.Unmarshal(raw, &out))
	return out
}

type stored struct {
	ID     string `json:"id"`
	Folded bool   `json:"folded"`
}

type searched struct {
	Hits []struct {
		ID   string `json:"id"`
		Text string `json:"text"`
	} `json:"hits"`
}

// TestMCPStoreFoldSearchArchiveRestore is the end-to-end story through a real MCP
// client against the real binaries.
func TestMCPStoreFoldSearchArchiveRestore(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	project := "github.com/acme/e2e"
	cs := connect(t, h, h.token("--name", "e2e", "--project", project))

	tools, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
	}
	for _, want := range []string{"memory_store", "memory_search", "memory_get", "memory_list", "memory_archive", "memory_restore", "memory_history"} {
		require.True(t, names[want], want)
	}

	first := callTool[stored](t, cs, "memory_store", map[string]any{"text": "We use pnpm, not npm, in this repo.", "kind": "convention"})
	require.False(t, first.Folded)
	callTool[stored](t, cs, "memory_store", map[string]any{"text": "Integration tests need TZ=UTC.", "kind": "gotcha"})
	para := callTool[stored](t, cs, "memory_store", map[string]any{"text": "This project uses pnpm instead of npm."})
	require.True(t, para.Folded, "the paraphrase folds into the first memory")
	require.Equal(t, first.ID, para.ID)

	found := callTool[searched](t, cs, "memory_search", map[string]any{"query": "which package manager does this repo use?"})
	require.NotEmpty(t, found.Hits)
	require.Equal(t, first.ID, found.Hits[0].ID)

	callTool[map[string]any](t, cs, "memory_archive", map[string]any{"id": first.ID, "reason": "moved to bun"})
	found = callTool[searched](t, cs, "memory_search", map[string]any{"query": "which package manager does this repo use?"})
	for _, hit := range found.Hits {
		require.NotEqual(t, first.ID, hit.ID, "archived memories leave search")
	}
	callTool[map[string]any](t, cs, "memory_restore", map[string]any{"id": first.ID})
	found = callTool[searched](t, cs, "memory_search", map[string]any{"query": "which package manager does this repo use?"})
	require.Equal(t, first.ID, found.Hits[0].ID)

	hist := callTool[struct {
		Entries []struct {
			Event string `json:"event"`
		} `json:"entries"`
	}](t, cs, "memory_history", map[string]any{"id": first.ID})
	var events []string
	for _, e := range hist.Entries {
		events = append(events, e.Event)
	}
	require.Equal(t, []string{"add", "fold", "archive", "restore"}, events)

	// A token bound to another project sees none of it.
	other := connect(t, h, h.token("--name", "other", "--project", "github.com/acme/other"))
	res, err := other.CallTool(context.Background(), &mcp.CallToolParams{Name: "memory_get", Arguments: map[string]any{"id": first.ID}})
	require.NoError(t, err)
	require.True(t, res.IsError)

	pid := h.pluginPID()
	require.NoError(t, h.signal(syscall.SIGTERM), "SIGTERM is a clean shutdown")
	requireGone(t, pid)
}

// TestKill9LosesNoAcknowledgedWrite: writers hammer the host, the host is SIGKILLed mid-burst,
// and after a restart every write that was acknowledged is there. The plugin dies with it.
func TestKill9LosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	tok := h.token("--name", "burst")
	pid := h.pluginPID()

	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				body := fmt.Sprintf(`{"text":"writer %d wrote fact %d: service-%d-%d listens on port %d","project":"burst"}`, w, i, w, i, 10000+i)
				status, out, err := h.rest(ctx, tok, "POST", "/api/v1/memories", body)
				if err != nil {
					return // the host is gone
				}
				if status == http.StatusCreated || status == http.StatusOK {
					mu.Lock()
					acked = append(acked, out["id"].(string))
					mu.Unlock()
				}
			}
		}()
	}
	require.Eventually(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 60 }, 30*time.Second, 10*time.Millisecond)
	require.NoError(t, h.cmd.Process.Signal(syscall.SIGKILL))
	<-h.done
	cancel()
	wg.Wait()
	requireGone(t, pid)

	h.start()
	mu.Lock()
	defer mu.Unlock()
	for _, id := range acked {
		status, _, err := h.rest(context.Background(), tok, "GET", "/api/v1/memories/"+id+"?project=burst", "")
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, status, "acknowledged memory %s was lost", id)
	}
	t.Logf("%d acknowledged writes all survived kill -9", len(acked))
}

// TestEmbedderCrashMidBurst: the embedder plugin is SIGKILLed while writes flow; writes fail
// fast with 503 while it restarts, then continue.
func TestEmbedderCrashMidBurst(t *testing.T) {
	t.Parallel()
	h := newHost(t)
	h.start()
	tok := h.token("--name", "crash")
	pid := h.pluginPID()

	var ok, unavailable atomic.Int64
	var killedAt atomic.Int64
	var afterKill atomic.Int64
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 0; ctx.Err() == nil && afterKill.Load() < 20; i++ {
			start := time.Now()
			status, body, err := h.rest(ctx, tok, "POST", "/api/v1/memories", fmt.Sprintf(`{"text":"crash test fact %d about module m%d","project":"crash"}`, i, i))
			if err != nil {
				return
			}
			require.Less(t, time.Since(start), 5*time.Second, "a write must never hang on a dead plugin")
			switch status {
			case http.StatusCreated, http.StatusOK:
				ok.Add(1)
				if killedAt.Load() != 0 {
					afterKill.Add(1)
				}
			case http.StatusServiceUnavailable:
				unavailable.Add(1)
			default:
				t.Errorf("unexpected status %d: %v", status, body)
			}
		}
	}()
	require.Eventually(t, func() bool { return ok.Load() >= 10 }, 20*time.Second, 10*time.Millisecond)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	killedAt.Store(time.Now().UnixNano())
	<-done
	require.GreaterOrEqual(t, afterKill.Load(), int64(20), "writes continue after the kill")
	// A write does not wait for its vector (memory.embed_wait), so the writes above may all
	// have been answered while the plugin was still restarting: its successor is awaited here.
	require.Eventually(t, func() bool {
		r, err := h.ready()
		return err == nil && len(r.Plugins) > 0 && r.Plugins[0]["state"] == "ready"
	}, 30*time.Second, 50*time.Millisecond, "the plugin is restarted")
	require.NotEqual(t, pid, h.pluginPID(), "a new plugin process serves")
	r, err := h.ready()
	require.NoError(t, err)
	require.Equal(t, "ready", r.Plugins[0]["state"])
	for _, internal := range []string{"path", "pid", "restarts", "last_error"} {
		require.NotContains(t, r.Plugins[0], internal, "/readyz is unauthenticated: states only")
	}
	t.Logf("writes ok=%d, unavailable while restarting=%d", ok.Load(), unavailable.Load())
}
