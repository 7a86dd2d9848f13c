package workertest

import (
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

// kind is the worker kind's glue, which the generic harness serves and
// dispenses.
var kind = worker.Kind.(*pluginkind.Kind[worker.Worker])

// Serve serves impl over an in-process gRPC connection and returns the
// client side, the Worker the host would hold. The connection is closed
// when the test ends.
func Serve(t testing.TB, impl worker.Worker) worker.Worker {
	t.Helper()
	return plugintest.Serve(t, kind, impl)
}

// Launch starts the plugin binary at path the way the host does (see Start)
// and returns its Worker. The process is killed when the test ends; its
// stderr goes to the test process's stderr. A worker must never write to
// stdout, which carries go-plugin's handshake: if the plugin wrote anything
// there after serving, the test fails when it ends.
func Launch(t testing.TB, path string) worker.Worker {
	t.Helper()
	stdout := &recorder{}
	impl, kill, err := plugintest.Start(kind, path, os.Stderr, stdout)
	require.NoError(t, err)
	t.Cleanup(func() {
		kill()
		if out := stdout.String(); out != "" {
			t.Errorf("worker plugin %s wrote to stdout, which carries the handshake; log to stderr instead: %s", path, short(out))
		}
	})
	return impl
}

// Start starts the plugin binary at path the way the host does (handshake
// from sdk/plugin, VersionedPlugins, gRPC only, AutoMTLS), so calls cross the
// same process boundary, TLS and adapters as in production, and returns its
// Worker and a kill function that stops the process. Plugin logs at warn
// and above go to logTo. For harnesses outside tests (benchmarks, tools).
func Start(path string, logTo io.Writer) (worker.Worker, func(), error) {
	return plugintest.Start(kind, path, logTo, nil)
}

// Attach connects to an worker plugin served in debug mode
// (worker.WithDebug) at rc, in this process or another one, and returns
// its Worker. When the test ends it asks the plugin to shut down, which
// ends the plugin's Serve.
func Attach(t testing.TB, rc plugin.ReattachConfig) worker.Worker {
	t.Helper()
	return plugintest.Attach(t, kind, rc)
}

// recorder keeps what a plugin wrote, safe for go-plugin's goroutine and the
// test's.
type recorder struct {
	mu sync.Mutex
	b  strings.Builder
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.Write(p)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.b.String()
}
