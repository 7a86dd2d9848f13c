package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testlog"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
)

// host is one running `memhost serve`.
type host struct {
	t      *testing.T
	bin    string
	config string
	dsn    string // the host's database, a schema of its own
	url    string
	cmd    *exec.Cmd
	done   chan error
	logs   *testlog.Buffer
	admin  string // an admin token, minted on first need
}

// newHost writes a config for a fresh schema and free port; start runs it.
func newHost(t *testing.T) *host {
	t.Helper()
	dsn := testdb.Schema(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	cfg := filepath.Join(t.TempDir(), "memhost.toml")
	body := fmt.Sprintf("[server]\nlisten = %q\nshutdown_timeout = \"5s\"\n[database]\nurl = %q\n[plugins]\ndirs = [%q]\nhealth_interval = \"1s\"\nrestart_backoff_max = \"1s\"\n[auth]\nwrite_rate_per_minute = 0\n",
		addr, dsn, testplugins.Dir(t))
	require.NoError(t, os.WriteFile(cfg, []byte(body), 0o600))
	return &host{t: t, bin: testplugins.Memhost(t), config: cfg, dsn: dsn, url: "http://" + addr}
}

// run executes a memhost subcommand with the host's config and returns stdout.
func (h *host) run(args ...string) string {
	h.t.Helper()
	cmd := exec.Command(h.bin, append(args, "--config", h.config)...)
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok {
		h.t.Fatalf("memhost %v: %v\n%s", args, err, ee.Stderr)
	}
	require.NoError(h.t, err)
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

func (h *host) start() {
	h.t.Helper()
	h.logs = &testlog.Buffer{}
	h.cmd = exec.Command(h.bin, "serve", "--config", h.config)
	h.cmd.Stdout = h.logs
	h.cmd.Stderr = h.logs
	require.NoError(h.t, h.cmd.Start())
	h.done = make(chan error, 1)
	go func() { h.done <- h.cmd.Wait() }()
	h.t.Cleanup(func() {
		if h.cmd.ProcessState == nil {
			_ = h.cmd.Process.Kill()
			<-h.done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if r, err := h.ready(); err == nil && r.Status == "ready" {
			return
		}
		select {
		case err := <-h.done:
			h.t.Fatalf("memhost exited during start: %v\n%s", err, h.logs)
		case <-time.After(50 * time.Millisecond):
		}
	}
	h.t.Fatalf("memhost did not become ready\n%s", h.logs)
}

type readiness struct {
	Status  string           `json:"status"`
	Plugins []map[string]any `json:"plugins"`
}

func (h *host) ready() (readiness, error) {
	var r readiness
	resp, err := http.Get(h.url + "/readyz")
	if err != nil {
		return r, err
	}
	defer resp.Body.Close()
	return r, json.NewDecoder(resp.Body).Decode(&r)
}

// pluginPID reads the embedder plugin's pid from /api/v1/status, which shows plugin details to
// an unbound admin token only (/readyz is unauthenticated and shows states alone).
func (h *host) pluginPID() int {
	h.t.Helper()
	if h.admin == "" {
		h.admin = h.token("--scopes", "admin", "--name", "e2e-admin")
	}
	status, body, err := h.rest(context.Background(), h.admin, "GET", "/api/v1/status", "")
	require.NoError(h.t, err)
	require.Equal(h.t, 200, status, body)
	list, _ := body["plugins"].([]any)
	require.Len(h.t, list, 1, body)
	pid, _ := list[0].(map[string]any)["pid"].(float64)
	require.NotZero(h.t, pid, body)
	return int(pid)
}

// signal sends sig to the host and waits for it to exit.
func (h *host) signal(sig syscall.Signal) error {
	h.t.Helper()
	require.NoError(h.t, h.cmd.Process.Signal(sig))
	select {
	case err := <-h.done:
		return err
	case <-time.After(30 * time.Second):
		h.t.Fatalf("memhost did not exit after %v\n%s", sig, h.logs)
		return nil
	}
}

// alive reports whether pid is a live process (zombies count as dead).
func alive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b))
	return len(fields) > 2 && fields[2] != "Z"
}

func requireGone(t *testing.T, pid int) {
	t.Helper()
	require.Eventually(t, func() bool { return !alive(pid) }, 10*time.Second, 20*time.Millisecond, "plugin pid %d outlived the host", pid)
}

// rest calls the REST API and decodes the JSON reply.
func (h *host) rest(ctx context.Context, token, method, path, body string) (int, map[string]any, error) {
	req, err := http.NewRequestWithContext(ctx, method, h.url+path, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out, nil
}
