package embeddertest

import (
	"fmt"
	"io"
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

// Launch starts the plugin binary at path the way the host does (see Start)
// and returns its Embedder. The process is killed when the test ends; its
// stderr goes to the test process's stderr.
func Launch(t testing.TB, path string) embedder.Embedder {
	t.Helper()
	e, kill, err := Start(path, os.Stderr)
	require.NoError(t, err)
	t.Cleanup(kill)
	return e
}

// Start starts the plugin binary at path the way the host does (handshake
// from sdk/plugin, VersionedPlugins, gRPC only, AutoMTLS), so calls cross the
// same process boundary, TLS and adapters as in production, and returns its
// Embedder and a kill function that stops the process. Plugin logs at warn
// and above go to logTo. For harnesses outside tests (benchmarks, tools).
func Start(path string, logTo io.Writer) (e embedder.Embedder, kill func(), err error) {
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Cmd:              exec.Command(path),
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: logTo, Level: hclog.Warn}),
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, nil, fmt.Errorf("start plugin %s: %w", path, err)
	}
	raw, err := rpc.Dispense(plugin.KindEmbedder)
	if err != nil {
		client.Kill()
		return nil, nil, fmt.Errorf("dispense embedder from %s: %w", path, err)
	}
	e, ok := raw.(embedder.Embedder)
	if !ok {
		client.Kill()
		return nil, nil, fmt.Errorf("plugin %s dispensed %T, not an embedder.Embedder", path, raw)
	}
	return e, client.Kill, nil
}
