//go:build e2ecli

package e2ecli

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// egress is an HTTP proxy that refuses everything and records what was asked. Each CLI run
// gets it as HTTP(S)_PROXY with loopback exempt: whatever a CLI tries to fetch from outside
// (telemetry, update checks, plugin syncs) shows up here instead of on the network.
type egress struct {
	srv *http.Server
	ln  net.Listener

	mu       sync.Mutex
	attempts []string
}

func startEgress(t *testing.T) *egress {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e := &egress{ln: ln}
	e.srv = &http.Server{ReadHeaderTimeout: 5 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.attempts = append(e.attempts, r.Method+" "+r.Host)
		e.mu.Unlock()
		http.Error(w, "offline test: no egress", http.StatusForbidden)
	})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = e.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if e.srv.Shutdown(ctx) != nil {
			_ = e.srv.Close()
		}
		<-done
	})
	return e
}

// env points a run's proxy variables (both spellings) at the recorder, loopback exempt.
func (e *egress) env() []string {
	proxy := "http://" + e.ln.Addr().String()
	noProxy := "127.0.0.1,localhost,::1"
	return []string{"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy, "https_proxy=" + proxy,
		"ALL_PROXY=" + proxy, "NO_PROXY=" + noProxy, "no_proxy=" + noProxy}
}

func (e *egress) seen() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.attempts...)
}
