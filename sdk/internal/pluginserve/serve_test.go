package pluginserve_test

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/internal/pluginserve"
	"github.com/memhost/memhost/sdk/plugin"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m,
		// go-plugin's debug (test) mode copies the server's stdio pipes on
		// goroutines that end only when the pipes are garbage collected.
		goleak.IgnoreAnyFunction("github.com/hashicorp/go-plugin.copyChan"),
		// When a plugin fails to register, go-plugin returns without
		// stopping the broker it had started (TestServeReportsAFailureToStartServing).
		goleak.IgnoreAnyFunction("github.com/hashicorp/go-plugin.(*GRPCBroker).Run"),
	)
}

// fakePlugin is a gRPC plugin whose server registration result each test
// sets.
type fakePlugin struct {
	goplugin.NetRPCUnsupportedPlugin
	registerErr error
}

func (f *fakePlugin) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error { return f.registerErr }

func (f *fakePlugin) GRPCClient(context.Context, *goplugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("not used")
}

func TestServeRefusesToRunByHand(t *testing.T) {
	t.Parallel()
	require.Empty(t, os.Getenv(plugin.Handshake.MagicCookieKey), "the test process must not look launched by a host")
	err := pluginserve.Serve("embedder", &fakePlugin{}, plugin.ServeOptions{Logger: hclog.NewNullLogger()})
	require.EqualError(t, err, "this program is a memhost embedder plugin: the memhost host starts it, it is not meant to be run by hand (to debug it, serve it in debug mode)")
}

func TestServeReportsAFailureToStartServing(t *testing.T) {
	t.Parallel()
	err := pluginserve.Serve("embedder", &fakePlugin{registerErr: errors.New("no model")}, plugin.ServeOptions{
		Logger: hclog.NewNullLogger(),
		Debug:  t.Context(),
		Ready:  func(plugin.ReattachConfig) { t.Error("a plugin that failed to register must not report an address") },
	})
	require.EqualError(t, err, "serve memhost embedder plugin: go-plugin stopped before serving (the log above says why)")
}

func TestServeDebugReportsWhereToAttachAndStopsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	ready := make(chan plugin.ReattachConfig, 1)
	served := make(chan error, 1)
	go func() {
		served <- pluginserve.Serve("embedder", &fakePlugin{}, plugin.ServeOptions{
			Logger: hclog.NewNullLogger(),
			Debug:  ctx,
			Ready:  func(rc plugin.ReattachConfig) { ready <- rc },
		})
	}()
	var rc plugin.ReattachConfig
	select {
	case rc = <-ready:
	case <-time.After(10 * time.Second):
		t.Fatal("debug mode never reported an address")
	}
	require.NoError(t, rc.Validate())
	require.Equal(t, os.Getpid(), rc.Pid)
	require.Equal(t, plugin.ProtocolVersion, rc.ProtocolVersion)
	require.FileExists(t, rc.Address, "the unix socket it listens on")

	cancel()
	select {
	case err := <-served:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its debug context ended")
	}
}
