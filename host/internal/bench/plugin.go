package bench

import (
	"fmt"
	"io"
	"os/exec"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// LaunchEmbedder starts the embedder plugin binary at path the way the host does (the SDK's
// handshake and VersionedPlugins, gRPC only, AutoMTLS), so measured round trips cross the
// same process boundary, TLS and adapters as production. The returned kill stops the process.
func LaunchEmbedder(path string, logTo io.Writer) (e embedder.Embedder, kill func(), err error) {
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
		return nil, nil, fmt.Errorf("plugin %s dispensed %T, not an embedder", path, raw)
	}
	return e, client.Kill, nil
}
