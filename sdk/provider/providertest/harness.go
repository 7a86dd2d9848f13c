package providertest

import (
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/internal/plugintest"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
)

// kind is the provider kind's glue, which the generic harness serves and
// dispenses.
var kind = provider.Kind.(*pluginkind.Kind[provider.Provider])

// Serve serves impl over an in-process gRPC connection and returns the
// client side, the Provider memhost would hold. The connection is closed
// when the test ends.
func Serve(t testing.TB, impl provider.Provider) provider.Provider {
	t.Helper()
	return plugintest.Serve(t, kind, impl)
}

// Launch starts the plugin binary at path the way memhost does (see Start)
// and returns its Provider. The process is killed when the test ends; its
// stderr goes to the test process's stderr.
func Launch(t testing.TB, path string) provider.Provider {
	t.Helper()
	impl, kill, err := Start(path, os.Stderr)
	require.NoError(t, err)
	t.Cleanup(kill)
	return impl
}

// Start starts the plugin binary at path the way memhost does (handshake
// from sdk/plugin, VersionedPlugins, gRPC only, AutoMTLS), so calls cross the
// same process boundary, TLS and adapters as in production, and returns its
// Provider and a kill function that stops the process. Plugin logs at warn
// and above go to logTo. For harnesses outside tests (benchmarks, tools).
func Start(path string, logTo io.Writer) (provider.Provider, func(), error) {
	return plugintest.Start(kind, path, logTo, nil)
}

// Attach connects to a provider plugin served in debug mode
// (provider.WithDebug) at rc, in this process or another one, and returns
// its Provider. When the test ends it asks the plugin to shut down, which
// ends the plugin's Serve.
func Attach(t testing.TB, rc plugin.ReattachConfig) provider.Provider {
	t.Helper()
	return plugintest.Attach(t, kind, rc)
}
