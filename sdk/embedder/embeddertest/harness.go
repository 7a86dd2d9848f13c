package embeddertest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// Serve serves impl over an in-process gRPC connection and returns the
// client side. The connection is closed when the test ends.
func Serve(t testing.TB, impl embedder.Embedder) embedder.Embedder {
	t.Helper()
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{
		plugin.KindEmbedder: &embedder.GRPCPlugin{Impl: impl},
	})
	t.Cleanup(func() {
		// Close asks the server to stop through go-plugin's controller
		// service; calling server.Stop as well would race with that.
		_ = client.Close()
		<-server.DoneCh
	})
	raw, err := client.Dispense(plugin.KindEmbedder)
	require.NoError(t, err, "dispense embedder")
	e, ok := raw.(embedder.Embedder)
	require.True(t, ok, "dispensed %T is not an embedder.Embedder", raw)
	return e
}

// Launch starts the plugin binary at path the way the host does (handshake
// from sdk/plugin, VersionedPlugins, gRPC only, AutoMTLS) and returns its
// Embedder. The process is killed when the test ends; its stderr goes to the
// test log.
func Launch(t testing.TB, path string) embedder.Embedder {
	t.Helper()
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Cmd:              exec.Command(path),
		Logger: hclog.New(&hclog.LoggerOptions{
			Name:   "plugin",
			Output: os.Stderr,
			Level:  hclog.Warn,
		}),
	})
	t.Cleanup(client.Kill)
	rpc, err := client.Client()
	require.NoError(t, err, "start plugin %s", path)
	raw, err := rpc.Dispense(plugin.KindEmbedder)
	require.NoError(t, err, "dispense embedder from %s", path)
	e, ok := raw.(embedder.Embedder)
	require.True(t, ok, "dispensed %T is not an embedder.Embedder", raw)
	return e
}
