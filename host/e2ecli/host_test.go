//go:build e2ecli

package e2ecli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// host is one running `memhost serve` on a fresh schema and a free loopback port.
type host struct {
	t      *testing.T
	config string
	url    string
	cmd    *exec.Cmd
	done   chan error
	logs   *testlog.Buffer
}

// startHost runs memhost serve until the test ends and waits for it to be ready.
func startHost(t *testing.T) *host {
	t.Helper()
	return startHostWith(t, hostOptions{})
}

// hostOptions are what a test adds to the host startHost runs.
type hostOptions struct {
	extra string   // TOML tables after the test's own
	env   []string // variables added to the host's environment
	dirs  []string // plugin folders besides testplugins.Dir
}

// startHostWith is startHost with more configuration, environment and plugins.
func startHostWith(t *testing.T, o hostOptions) *host {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	h := &host{t: t, config: filepath.Join(t.TempDir(), "memhost.toml"), url: "http://" + addr, logs: &testlog.Buffer{}}
	dirs := strconv.Quote(testplugins.Dir(t))
	for _, d := range o.dirs {
		dirs += ", " + strconv.Quote(d)
	}
	body := fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"5s\"\n[database]\nurl = %q\n[plugins]\ndirs = [%s]\n[auth]\nwrite_rate_per_minute = 0\n",
		addr, testdb.Schema(t), dirs) + o.extra
	require.NoError(t, os.WriteFile(h.config, []byte(body), 0o600))

	h.cmd = exec.Command(testplugins.Memhost(t), "serve", "--config", h.config)
	h.cmd.Stdout, h.cmd.Stderr = h.logs, h.logs
	if o.env != nil {
		h.cmd.Env = append(os.Environ(), o.env...)
	}
	require.NoError(t, h.cmd.Start())
	h.done = make(chan error, 1)
	go func() { h.done <- h.cmd.Wait() }()
	t.Cleanup(h.stop)

	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if h.ready() {
			return h
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

// stop shuts the host down gracefully (it stops its plugins), killing it after ten seconds.
func (h *host) stop() {
	_ = h.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		_ = h.cmd.Process.Kill()
		<-h.done
		h.t.Errorf("memhost ignored SIGTERM for 10s\n%s", h.logs)
	}
}

func (h *host) ready() bool {
	resp, err := http.Get(h.url + "/readyz")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
	}
	return json.NewDecoder(resp.Body).Decode(&r) == nil && r.Status == "ready"
}

// mcpURL is the host's MCP endpoint (streamable HTTP).
func (h *host) mcpURL() string { return h.url + "/mcp" }

// token mints a read/write token bound to project; it is the last line `token create` prints.
func (h *host) token(project, name string) string {
	h.t.Helper()
	cmd := exec.Command(testplugins.Memhost(h.t), "token", "create", "--project", project, "--name", name, "--config", h.config)
	out, err := cmd.Output()
	require.NoError(h.t, err, "memhost token create")
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	tok := lines[len(lines)-1]
	require.True(h.t, strings.HasPrefix(tok, "mh_"), string(out))
	return tok
}

// memory is a memory as the REST API lists it.
type memory struct {
	ID      string `json:"id"`
	Project string `json:"project"`
	Text    string `json:"text"`
	Source  string `json:"source"`
}

// memories lists the token's project through REST.
func (h *host) memories(token string) []memory {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, h.url+"/api/v1/memories", nil)
	require.NoError(h.t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(h.t, err)
	defer resp.Body.Close()
	require.Equal(h.t, http.StatusOK, resp.StatusCode)
	var out struct {
		Memories []memory `json:"memories"`
	}
	require.NoError(h.t, json.NewDecoder(resp.Body).Decode(&out))
	return out.Memories
}
