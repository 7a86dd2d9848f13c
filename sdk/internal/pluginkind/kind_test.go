package pluginkind_test

import (
	"context"
	"testing"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
)

// The glue is the same for every kind; these tests drive it through the embedder kind.

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

var kind = embedder.Kind.(*pluginkind.Kind[embedder.Embedder])

// blockingEmbedder holds every Embed call until the call's context ends.
type blockingEmbedder struct {
	started chan struct{}
}

func (blockingEmbedder) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{Name: "block", Version: "1", Dimensions: 2, MaxBatch: 4, SuggestedFoldThreshold: 0.9}, nil
}

func (b blockingEmbedder) Embed(ctx context.Context, _ embedder.Purpose, _ []string) ([][]float32, error) {
	close(b.started)
	<-ctx.Done()
	return nil, ctx.Err()
}

func (blockingEmbedder) Health(context.Context) error { return nil }

// connect serves p in process and returns the dispensed client side.
func connect(t *testing.T, p goplugin.Plugin) (*goplugin.GRPCClient, embedder.Embedder) {
	t.Helper()
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{plugin.KindEmbedder: p})
	t.Cleanup(func() {
		// Close asks the server to stop through go-plugin's controller
		// service; a test that closed the connection already stops it here.
		if client.Close() != nil {
			server.Stop()
		}
		<-server.DoneCh
	})
	raw, err := client.Dispense(plugin.KindEmbedder)
	require.NoError(t, err)
	e, ok := raw.(embedder.Embedder)
	require.True(t, ok, "dispensed %T", raw)
	return client, e
}

// TestConnectionClosingMidCallIsUnavailable: when the connection to a plugin closes under a call
// (the process is going away) while the caller still waits, the caller gets ErrUnavailable, a
// retryable condition, not a context error that would look like its own cancellation.
func TestConnectionClosingMidCallIsUnavailable(t *testing.T) {
	t.Parallel()
	started := make(chan struct{})
	client, e := connect(t, kind.Server(blockingEmbedder{started: started}, nil))
	errc := make(chan error, 1)
	go func() {
		_, err := e.Embed(t.Context(), embedder.PurposeDocument, []string{"x"})
		errc <- err
	}()
	<-started // the call is in flight: the implementation has it
	// Closing the connection under the call is what a host sees when it tears down a dying
	// process's client: gRPC reports codes.Canceled although the caller cancelled nothing.
	require.NoError(t, client.Conn.Close())
	err := <-errc
	require.ErrorIs(t, err, plugin.ErrUnavailable)
	require.NotErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "connection is closing")
}

// noService serves no gRPC service at all, like a plugin built before the kind existed, while
// the host side is the kind's real client.
type noService struct {
	goplugin.GRPCPlugin
	goplugin.NetRPCUnsupportedPlugin
}

func (noService) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error { return nil }

func TestMissingServiceIsUnimplemented(t *testing.T) {
	t.Parallel()
	_, e := connect(t, noService{GRPCPlugin: kind.GoPlugin().(goplugin.GRPCPlugin)})
	_, err := e.Describe(t.Context())
	require.ErrorIs(t, err, plugin.ErrUnimplemented)
	require.ErrorContains(t, err, "embedder Describe")
	require.ErrorIs(t, e.Health(t.Context()), plugin.ErrUnimplemented)
}

// TestTheHostsValueServesNothing: the host's go-plugin value has no implementation; asked to
// serve, it says so instead of registering a nil one.
func TestTheHostsValueServesNothing(t *testing.T) {
	t.Parallel()
	s := grpc.NewServer()
	defer s.Stop()
	err := kind.GoPlugin().(goplugin.GRPCPlugin).GRPCServer(nil, s)
	require.EqualError(t, err, "embedder plugin: no implementation to serve")
	err = kind.Server(nil, nil).GRPCServer(nil, s)
	require.EqualError(t, err, "embedder plugin: no implementation to serve")
}

func TestServeRefusesANilImpl(t *testing.T) {
	t.Parallel()
	require.EqualError(t, kind.Serve(nil, plugin.ServeOptions{}), "embedder.Serve: impl is nil")
}

func TestAKindIsAPluginKind(t *testing.T) {
	t.Parallel()
	set := plugin.VersionedPlugins(embedder.Kind)[plugin.ProtocolVersion]
	require.Len(t, set, 1)
	require.Implements(t, (*goplugin.GRPCPlugin)(nil), set[plugin.KindEmbedder])
	require.Equal(t, plugin.KindEmbedder, kind.Name())
}
