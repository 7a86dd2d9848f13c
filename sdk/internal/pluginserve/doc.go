// Package pluginserve owns serving a plugin process for every kind: the
// go-plugin server configuration (handshake, gRPC only, logger), the check
// that a host launched the process, debug (reattach) mode, and turning
// go-plugin's exit paths into an error for the plugin's main. Each kind's
// public Serve (embedder.Serve, ...) builds its go-plugin value and calls
// Serve here with the options its ServeOption values set.
package pluginserve
