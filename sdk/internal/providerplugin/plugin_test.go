package providerplugin_test

import (
	"testing"

	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/internal/providerplugin"
	"github.com/memhost/memhost/sdk/plugin"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// noService serves no gRPC service at all, like a plugin built before the
// provider kind existed, while memhost's side is the real provider client.
type noService struct {
	providerplugin.Plugin
}

func (noService) GRPCServer(*goplugin.GRPCBroker, *grpc.Server) error { return nil }

func TestMissingServiceIsUnimplemented(t *testing.T) {
	t.Parallel()
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{plugin.KindProvider: &noService{}})
	t.Cleanup(func() {
		_ = client.Close()
		<-server.DoneCh
	})
	raw, err := client.Dispense(plugin.KindProvider)
	require.NoError(t, err)
	p := raw.(providerplugin.Provider)
	_, err = p.Describe(t.Context())
	require.ErrorIs(t, err, plugin.ErrUnimplemented)
	require.ErrorContains(t, err, "provider Describe")
	_, err = p.Prepare(t.Context(), spawn())
	require.ErrorIs(t, err, plugin.ErrUnimplemented)
	require.ErrorIs(t, p.Health(t.Context()), plugin.ErrUnimplemented)
}

func TestServerRefusesANilImpl(t *testing.T) {
	t.Parallel()
	s := grpc.NewServer()
	defer s.Stop()
	err := (&providerplugin.Plugin{}).GRPCServer(nil, s)
	require.EqualError(t, err, "provider plugin: Impl is nil")
}
