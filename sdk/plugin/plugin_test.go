package plugin_test

import (
	"reflect"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/plugin"
)

func TestServeConfig(t *testing.T) {
	t.Parallel()
	p := &goplugin.NetRPCUnsupportedPlugin{}
	cfg := plugin.ServeConfig("test-kind", p)
	require.Equal(t, plugin.Handshake, cfg.HandshakeConfig)
	require.Equal(t, map[int]goplugin.PluginSet{plugin.ProtocolVersion: {"test-kind": p}}, cfg.VersionedPlugins)
	require.Equal(t, reflect.ValueOf(goplugin.DefaultGRPCServer).Pointer(), reflect.ValueOf(cfg.GRPCServer).Pointer(),
		"gRPC must be served; without GRPCServer go-plugin falls back to net/rpc")
	require.NotNil(t, cfg.Logger)
}

func TestHandshake(t *testing.T) {
	t.Parallel()
	require.Equal(t, uint(plugin.ProtocolVersion), plugin.Handshake.ProtocolVersion)
	require.Equal(t, "MEMHOST_PLUGIN", plugin.Handshake.MagicCookieKey)
	require.NotEmpty(t, plugin.Handshake.MagicCookieValue)
}
