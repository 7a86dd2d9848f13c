package registry_test

import (
	"errors"
	"testing"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/registry"
)

func TestRegistry(t *testing.T) {
	t.Parallel()
	client := &goplugin.NetRPCUnsupportedPlugin{}
	registry.Register("registry-test", registry.Kind{
		Client: client,
		Server: func(impl any, _ hclog.Logger) (goplugin.Plugin, error) {
			if impl == nil {
				return nil, errors.New("no impl")
			}
			return client, nil
		},
	})

	set := registry.Clients()
	require.Same(t, client, set["registry-test"])
	delete(set, "registry-test")
	require.Contains(t, registry.Clients(), "registry-test", "Clients returns a fresh set each call")

	p, err := registry.Server("registry-test", 1, nil)
	require.NoError(t, err)
	require.Same(t, client, p)
	_, err = registry.Server("registry-test", nil, nil)
	require.EqualError(t, err, "no impl")
	_, err = registry.Server("no-such-kind", 1, nil)
	require.EqualError(t, err, `plugin kind "no-such-kind" is not registered`)

	require.PanicsWithValue(t, "memhost sdk: plugin kind registered twice: registry-test", func() {
		registry.Register("registry-test", registry.Kind{Client: client})
	})
}
