package plugin

import goplugin "github.com/hashicorp/go-plugin"

// ProtocolVersion is the go-plugin protocol version spoken by this SDK. It
// moves together with the proto package major version (memhost.v1 -> 1).
// Older versions stay in VersionedPlugins while the host still supports them.
const ProtocolVersion = 1

// The kind names. A kind's name is the key under which it is dispensed from
// a go-plugin PluginSet, and the middle of a plugin binary's file name
// (memhost-<kind>-<name>).
const (
	// KindEmbedder turns texts into vectors (package embedder).
	KindEmbedder = "embedder"
	// KindProvider injects memhost into one agent CLI when `memhost run`
	// spawns it (package provider).
	KindProvider = "provider"
	// KindWorker answers LLM text tasks off the hot path: merges, conflict
	// checks, session summaries (package worker).
	KindWorker = "worker"
)

// KindNames lists every kind this SDK defines, in a fixed order: what a host
// may find in its plugin directories.
func KindNames() []string { return []string{KindEmbedder, KindProvider, KindWorker} }

// Handshake is shared by the host and every plugin. Changing the cookie
// breaks every plugin binary built before the change, so it is fixed.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "MEMHOST_PLUGIN",
	MagicCookieValue: "c1c8a3f6-5b2e-4f0a-9d6e-memhost-plugin-v1",
}

// Kind is one plugin kind as a host's go-plugin client sees it. Each kind
// package exports its own (embedder.Kind, provider.Kind, worker.Kind); a
// host names those it runs.
type Kind interface {
	// Name is the kind's name, one of KindNames.
	Name() string
	// GoPlugin is the go-plugin value whose GRPCClient returns the kind's
	// public interface (an embedder.Embedder, say) backed by a plugin.
	GoPlugin() goplugin.Plugin
}

// VersionedPlugins returns the plugin sets a host passes to
// goplugin.ClientConfig.VersionedPlugins: the given kinds under every
// supported protocol version. The set is explicit: a host that runs
// embedders and workers passes embedder.Kind and worker.Kind, and a plugin
// of any other kind cannot be dispensed. A fresh map is returned each call
// so callers may modify it.
func VersionedPlugins(kinds ...Kind) map[int]goplugin.PluginSet {
	set := make(goplugin.PluginSet, len(kinds))
	for _, k := range kinds {
		set[k.Name()] = k.GoPlugin()
	}
	return map[int]goplugin.PluginSet{ProtocolVersion: set}
}
