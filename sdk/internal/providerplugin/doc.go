// Package providerplugin is the go-plugin glue of the provider kind: the
// go-plugin value (Plugin), the server adapter that serves an implementation
// as the memhost.v1.Provider gRPC service, the client adapter memhost calls,
// and the protocol rules both adapters hold every message to (Validate on
// Info, Spawn and Plan).
//
// It is the middle of the SDK's three layers (generated code in
// internal/gen; per-kind glue here; public types in sdk/provider), shaped
// like internal/embedderplugin: because sdk/provider imports this package
// for Serve, this package works on mirror types of its own (Info, Spawn,
// Plan, File, Ended, Session, Provider) and sdk/provider converts at the
// boundary.
package providerplugin
