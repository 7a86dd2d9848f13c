//go:build e2ecli

package e2ecli

import (
	"net/http"
	"net/url"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The harness's own guards, without any CLI: a process that leaves the group and one that
// stays in it are both found and killed, and a proxied request is recorded and refused.

func TestReapRunFindsProcessesByMarkerAndGroup(t *testing.T) {
	t.Parallel()
	marker := runMarkerVar + "=" + randomHex(8)
	// setsid leaves the process group; only the marker in its environment finds it.
	detached := exec.Command("sh", "-c", "setsid sleep 60 >/dev/null 2>&1 &")
	detached.Env = []string{"PATH=/usr/bin:/bin", marker}
	require.NoError(t, detached.Run())
	left := reapRun(0, marker)
	require.Len(t, left, 1)
	require.Contains(t, left[0], "sleep")

	grouped := exec.Command("sh", "-c", "sleep 60 >/dev/null 2>&1 &")
	grouped.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, grouped.Run())
	left = reapRun(grouped.Process.Pid, runMarkerVar+"=none")
	require.Len(t, left, 1)

	require.Eventually(t, func() bool {
		return len(runProcesses(0, marker)) == 0 && len(runProcesses(grouped.Process.Pid, "")) == 0
	}, 5*time.Second, 20*time.Millisecond, "killed processes stayed")
}

func TestEgressRecordsAndRefuses(t *testing.T) {
	t.Parallel()
	e := startEgress(t)
	proxy, err := url.Parse("http://" + e.ln.Addr().String())
	require.NoError(t, err)
	client := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(proxy)}, Timeout: 5 * time.Second}
	_, err = client.Get("https://telemetry.example.com/v1/events")
	require.Error(t, err)
	resp, err := client.Get("http://update.example.com/latest")
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusForbidden, resp.StatusCode)
	require.Equal(t, []string{"CONNECT telemetry.example.com:443", "GET update.example.com"}, e.seen())
	client.CloseIdleConnections()
}
