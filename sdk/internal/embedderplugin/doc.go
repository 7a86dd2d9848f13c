// Package embedderplugin is the go-plugin glue of the embedder kind: the
// go-plugin value (Plugin), the server adapter that serves an implementation
// as the memhost.v1.Embedder gRPC service, and the client adapter the host
// calls, each validating what crosses the wire.
//
// It is the middle of the SDK's three layers (generated code in
// internal/gen; per-kind glue here; public types in sdk/embedder). Because
// sdk/embedder imports this package for Serve, this package cannot import
// sdk/embedder: it works on Info, Purpose and Embedder of its own, which
// mirror the public ones field for field and method for method, and
// sdk/embedder converts at the boundary (struct conversion, checked by the
// compiler). The next kinds (provider, worker) follow the same shape.
package embedderplugin
