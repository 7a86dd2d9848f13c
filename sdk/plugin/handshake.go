package plugin

import (
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/memhost/memhost/sdk/internal/registry"
)

// ProtocolVersion is the go-plugin protocol version spoken by this SDK. It
// moves together with the proto package major version (memhost.v1 -> 1).
// Older versions stay in VersionedPlugins while the host still supports them.
const ProtocolVersion = 1

// Kind names a plugin kind. It is the key under which a kind is dispensed
// from a go-plugin PluginSet, and the middle of a plugin binary's file name
// (memhost-<kind>-<name>).
const (
	// KindEmbedder turns texts into vectors (package embedder).
	KindEmbedder = "embedder"
	// KindProvider injects memhost into one agent CLI when `memhost run`
	// spawns it (package provider).
	KindProvider = "provider"
)

// Handshake is shared by the host and every plugin. Changing the cookie
// breaks every plugin binary built before the change, so it is fixed.
var Handshake = goplugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "MEMHOST_PLUGIN",
	MagicCookieValue: "c1c8a3f6-5b2e-4f0a-9d6e-memhost-plugin-v1",
}

// VersionedPlugins returns the plugin sets the host passes to
// goplugin.ClientConfig.VersionedPlugins: every registered kind under every
// supported protocol version. Kinds register themselves when their package
// is linked in, so the host must import each kind package it uses (it does
// anyway, to type-assert the dispensed value: importing sdk/embedder
// registers KindEmbedder). A fresh map is returned each call so callers may
// modify it.
func VersionedPlugins() map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{ProtocolVersion: registry.Clients()}
}
