//go:build e2econsole

package e2econsole

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/host/internal/wire"
)

// host is one running `memhost serve` on a schema of its own.
type host struct {
	t      testing.TB
	bin    string
	config string
	dsn    string
	url    string
	cmd    *exec.Cmd
	done   chan error
	logs   *testlog.Buffer
}

// startHost writes a config for a fresh schema and a free port and serves it until the test
// ends, with the embedder plugin and the folders in dirs (memhost run finds its provider
// plugins there; the host starts only embedders).
func startHost(t testing.TB, dirs ...string) *host {
	t.Helper()
	dsn := testdb.Schema(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg := filepath.Join(t.TempDir(), "memhost.toml")
	quoted := []string{fmt.Sprintf("%q", testplugins.Dir(t))}
	for _, d := range dirs {
		quoted = append(quoted, fmt.Sprintf("%q", d))
	}
	body := fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"5s\"\n[database]\nurl = %q\n[plugins]\ndirs = [%s]\nhealth_interval = \"1s\"\n[auth]\nwrite_rate_per_minute = 0\nread_rate_per_minute = 0\n",
		addr, dsn, strings.Join(quoted, ", "))
	require.NoError(t, os.WriteFile(cfg, []byte(body), 0o600))
	h := &host{t: t, bin: testplugins.Memhost(t), config: cfg, dsn: dsn, url: "http://" + addr, logs: &testlog.Buffer{}}
	h.cmd = exec.Command(h.bin, "serve", "--config", h.config)
	h.cmd.Stdout, h.cmd.Stderr = h.logs, h.logs
	require.NoError(t, h.cmd.Start())
	h.done = make(chan error, 1)
	go func() { h.done <- h.cmd.Wait() }()
	t.Cleanup(func() {
		_ = h.cmd.Process.Signal(os.Interrupt)
		select {
		case <-h.done:
		case <-time.After(10 * time.Second):
			_ = h.cmd.Process.Kill()
			<-h.done
		}
		if t.Failed() {
			t.Logf("memhost serve log:\n%s", h.logs)
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(h.url + "/readyz")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == 200 {
				return h
			}
		}
		select {
		case err := <-h.done:
			t.Fatalf("memhost exited during start: %v\n%s", err, h.logs)
		case <-time.After(50 * time.Millisecond):
		}
	}
	t.Fatalf("memhost did not become ready\n%s", h.logs)
	return nil
}

// run executes a memhost subcommand with the host's config and returns its output.
func (h *host) run(args ...string) string {
	h.t.Helper()
	cmd := exec.Command(h.bin, append(args, "--config", h.config)...)
	out, err := cmd.CombinedOutput()
	require.NoError(h.t, err, "memhost %v: %s", args, out)
	return string(out)
}

// token creates a token through the CLI; the token is the last line of its output.
func (h *host) token(args ...string) string {
	out := strings.TrimSpace(h.run(append([]string{"token", "create"}, args...)...))
	lines := strings.Split(out, "\n")
	tok := lines[len(lines)-1]
	require.True(h.t, strings.HasPrefix(tok, "mh_"), out)
	return tok
}

// signinLink runs `memhost console` with token and returns the link it prints.
func (h *host) signinLink(token string) string {
	h.t.Helper()
	out := h.run("console", "--token", token)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	link := lines[len(lines)-1]
	require.True(h.t, strings.HasPrefix(link, h.url+"/console/signin?code=mhc_"), out)
	return link
}

// rest calls the REST API and decodes the JSON reply into out (nil: ignore it).
func (h *host) rest(token, method, path, body string, out any) int {
	h.t.Helper()
	req, err := http.NewRequest(method, h.url+path, strings.NewReader(body))
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(h.t, err)
	if out != nil && resp.StatusCode < 300 {
		require.NoError(h.t, json.Unmarshal(data, out), "%s", data)
	}
	return resp.StatusCode
}

// pool opens the host's database, as a second host sharing it would (tests make what only
// the maintenance jobs make: a merge, a conflict).
func (h *host) pool() *pgxpool.Pool {
	h.t.Helper()
	p, err := pgxpool.New(context.Background(), h.dsn)
	require.NoError(h.t, err)
	h.t.Cleanup(p.Close)
	return p
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// agent connects an MCP client, as an agent does, with structured output.
func (h *host) agent(token string) *mcp.ClientSession {
	h.t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "e2e-console-agent", Version: "1.0"}, &mcp.ClientOptions{Capabilities: wire.StructuredClient()})
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: h.url + "/mcp",
		HTTPClient: &http.Client{Transport: bearer{token}}, MaxRetries: -1}, nil)
	require.NoError(h.t, err)
	h.t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls an MCP tool and decodes its structured result.
func call[T any](t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) T {
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
