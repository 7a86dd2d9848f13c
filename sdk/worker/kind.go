package worker

import (
	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
)

// Kind is the worker kind, for a host's plugin set: a host that runs worker
// plugins passes it to plugin.VersionedPlugins and type-asserts what it
// dispenses to Worker.
var Kind plugin.Kind = kind

// kind is the worker kind's glue: its one conversion to and from the
// memhost.v1.Worker service (proto.go, used by server.go and client.go)
// given to the glue every kind shares.
var kind = pluginkind.New(plugin.KindWorker, registerServer, newClient)
