// Package registry records the host-side go-plugin value of every plugin
// kind. Kind packages (sdk/embedder, ...) register from init; sdk/plugin
// reads the set. It lives apart from sdk/plugin because kind packages import
// sdk/plugin for Serve, so sdk/plugin cannot import them, and because plugin
// authors have no reason to see a registration hook.
package registry

import (
	"sync"

	goplugin "github.com/hashicorp/go-plugin"
)

var (
	mu    sync.Mutex
	kinds = map[string]goplugin.Plugin{}
)

// Register makes kind known. p must be usable as a client (an Impl is not
// needed). A duplicate kind is an SDK programming error, hence the panic.
func Register(kind string, p goplugin.Plugin) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := kinds[kind]; dup {
		panic("memhost sdk: plugin kind registered twice: " + kind)
	}
	kinds[kind] = p
}

// Set returns a fresh PluginSet holding every registered kind.
func Set() goplugin.PluginSet {
	mu.Lock()
	defer mu.Unlock()
	set := make(goplugin.PluginSet, len(kinds))
	for k, p := range kinds {
		set[k] = p
	}
	return set
}
