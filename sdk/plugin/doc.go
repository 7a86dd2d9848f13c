// Package plugin owns what every memhost plugin kind shares: the go-plugin
// handshake and protocol version, the kind names, the Kind each kind package
// exports and the plugin sets a host configures go-plugin with, the errors
// every kind's client returns, the logger plugins write with, the options
// every kind's Serve takes (WithLogger, WithDebug), and the address of a
// plugin served in debug mode.
//
// Plugin authors rarely need it: they call the Serve function of their
// kind's package (for example embedder.Serve), which imports this one. The
// host imports it to build its go-plugin client, so that both sides agree on
// the handshake by construction:
//
//	client := goplugin.NewClient(&goplugin.ClientConfig{
//		HandshakeConfig:  plugin.Handshake,
//		VersionedPlugins: plugin.VersionedPlugins(embedder.Kind),
//		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
//		AutoMTLS:         true,
//		Cmd:              exec.Command(path),
//	})
//	raw, _ := client.Client()           // start and connect
//	v, _ := raw.Dispense(plugin.KindEmbedder)
//	e := v.(embedder.Embedder)
//
// The magic cookie only tells a user who runs a plugin binary by hand that it
// is not meant to be run directly; it is not a security boundary (AutoMTLS
// protects the connection).
//
// Plugins talk to the host over gRPC only and must never write to stdout:
// go-plugin sends the handshake line there. Logger writes JSON lines to
// stderr, which the host forwards into its own log.
package plugin
