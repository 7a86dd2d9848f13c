package plugin_test

import (
	"encoding/json"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/plugin"
)

func TestHandshake(t *testing.T) {
	t.Parallel()
	require.Equal(t, uint(plugin.ProtocolVersion), plugin.Handshake.ProtocolVersion)
	require.Equal(t, "MEMHOST_PLUGIN", plugin.Handshake.MagicCookieKey)
	require.NotEmpty(t, plugin.Handshake.MagicCookieValue)
}

func TestReattachConfig(t *testing.T) {
	t.Parallel()
	rc := plugin.ReattachConfig{Protocol: "grpc", ProtocolVersion: 1, Network: "unix", Address: "/tmp/plugin123", Pid: 42}
	require.NoError(t, rc.Validate())

	// It travels between processes as JSON.
	b, err := json.Marshal(rc)
	require.NoError(t, err)
	require.JSONEq(t, `{"protocol":"grpc","protocol_version":1,"network":"unix","address":"/tmp/plugin123","pid":42}`, string(b))
	var back plugin.ReattachConfig
	require.NoError(t, json.Unmarshal(b, &back))
	require.Equal(t, rc, back)

	gp := rc.GoPlugin()
	require.Equal(t, goplugin.ProtocolGRPC, gp.Protocol)
	require.Equal(t, 1, gp.ProtocolVersion)
	require.Equal(t, "unix", gp.Addr.Network())
	require.Equal(t, "/tmp/plugin123", gp.Addr.String())
	require.Equal(t, 42, gp.Pid)
	require.True(t, gp.Test, "go-plugin must not kill a process it attached to")

	for _, tc := range []struct {
		mutate func(*plugin.ReattachConfig)
		want   string
	}{
		{func(r *plugin.ReattachConfig) { r.Protocol = "netrpc" }, `reattach protocol "netrpc": must be "grpc"`},
		{func(r *plugin.ReattachConfig) { r.Network = "udp" }, `reattach network "udp": must be "unix" or "tcp"`},
		{func(r *plugin.ReattachConfig) { r.Address = "" }, "reattach address is empty"},
		{func(r *plugin.ReattachConfig) { r.Pid = 0 }, "reattach pid 0: must be > 0"},
	} {
		bad := rc
		tc.mutate(&bad)
		require.EqualError(t, bad.Validate(), tc.want)
	}
}
