package embedder

import (
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
)

// Kind is the embedder kind, for a host's plugin set: a host that runs
// embedder plugins passes it to plugin.VersionedPlugins and type-asserts
// what it dispenses to Embedder.
var Kind plugin.Kind = kind

// kind is the embedder kind's glue: its one conversion to and from the
// memhost.v1.Embedder service (server.go, client.go) given to the glue every
// kind shares.
var kind = pluginkind.New(plugin.KindEmbedder, registerServer, newClient)
