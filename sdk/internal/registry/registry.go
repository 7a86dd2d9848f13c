package registry

import (
	"fmt"
	"sync"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
)

// Kind is how one plugin kind is built.
type Kind struct {
	// Client is the host's go-plugin value: its GRPCClient returns the kind's
	// public interface backed by a plugin process.
	Client goplugin.Plugin
	// Server wraps impl, a value of the kind's public interface, for serving;
	// logger receives panics recovered from it. It fails for another type.
	Server func(impl any, logger hclog.Logger) (goplugin.Plugin, error)
}

var (
	mu    sync.Mutex
	kinds = map[string]Kind{}
)

// Register makes kind known. A duplicate kind is an SDK programming error,
// hence the panic.
func Register(name string, k Kind) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[name]; dup {
		panic("memhost sdk: plugin kind registered twice: " + name)
	}
	kinds[name] = k
}

// Clients returns a fresh PluginSet holding every registered kind's client.
func Clients() goplugin.PluginSet {
	mu.Lock()
	defer mu.Unlock()
	set := make(goplugin.PluginSet, len(kinds))
	for name, k := range kinds {
		set[name] = k.Client
	}
	return set
}

// Server builds the plugin-side value of kind name around impl.
func Server(name string, impl any, logger hclog.Logger) (goplugin.Plugin, error) {
	mu.Lock()
	k, ok := kinds[name]
	mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("plugin kind %q is not registered", name)
	}
	return k.Server(impl, logger)
}
