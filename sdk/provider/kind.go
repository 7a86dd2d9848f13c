package provider

import (
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
)

// Kind is the provider kind, for a host's plugin set: memhost passes it to
// plugin.VersionedPlugins and type-asserts what it dispenses to Provider.
var Kind plugin.Kind = kind

// kind is the provider kind's glue: its one conversion to and from the
// memhost.v1.Provider service (convert.go, used by server.go and client.go)
// given to the glue every kind shares.
var kind = pluginkind.New(plugin.KindProvider, registerServer, newClient)
