package plugin

import (
	"os"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"

	"github.com/memhost/memhost/sdk/internal/registry"
)

// ProtocolVersion is the go-plugin protocol version spoken by this SDK. It
// moves together with the proto package major version (memhost.v1 -> 1).
// Older versions stay in VersionedPlugins while the host still supports them.
const ProtocolVersion = 1

// Kind names a plugin kind. It is the key under which a kind is dispensed
// from a go-plugin PluginSet.
const (
	// KindEmbedder turns texts into vectors (package embedder).
	KindEmbedder = "embedder"
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
// registers KindEmbedder). A fresh map is returned
// each call so callers may modify it.
func VersionedPlugins() map[int]goplugin.PluginSet {
	return map[int]goplugin.PluginSet{ProtocolVersion: registry.Set()}
}

// Serve runs a plugin process serving p as kind and never returns under
// normal operation (go-plugin exits the process when the host disconnects).
// It is meant to be called by kind packages, not by plugin authors.
func Serve(kind string, p goplugin.Plugin) {
	goplugin.Serve(ServeConfig(kind, p))
}

// ServeConfig builds the go-plugin configuration Serve uses. It is exported
// so that tests can inspect it and so that tools can serve in go-plugin's
// test (reattach) mode by setting Test on the result.
func ServeConfig(kind string, p goplugin.Plugin) *goplugin.ServeConfig {
	return &goplugin.ServeConfig{
		HandshakeConfig: Handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{
			ProtocolVersion: {kind: p},
		},
		GRPCServer: goplugin.DefaultGRPCServer,
		Logger:     Logger(kind),
	}
}

// Logger returns the logger plugins should use: JSON lines on stderr, which
// go-plugin relays to the host's log. Writing to stdout would corrupt the
// handshake, so nothing in a plugin may use it.
func Logger(name string) hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Name:       name,
		Level:      hclog.Info,
		Output:     os.Stderr,
		JSONFormat: true,
	})
}
