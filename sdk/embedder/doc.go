// Package embedder owns the embedder plugin kind: the Go interface a plugin
// implements, Serve for the plugin's main, and the go-plugin glue (GRPCPlugin)
// the host uses to obtain an Embedder backed by a plugin process.
//
// An embedder plugin's whole main is
//
//	func main() { embedder.Serve(myembedder.New()) }
//
// Plugin code never sees gRPC or generated types: the server adapter turns
// Embedder calls into the memhost.v1.Embedder service, and the client adapter
// (what the host holds) turns them back, forwarding context deadlines and
// cancellation, validating every response and mapping gRPC status codes to
// the sentinel errors of this package (ErrUnimplemented, ErrInvalidInput,
// ErrUnavailable, ErrUnhealthy) or context errors.
//
// Test an implementation with package embeddertest: Serve runs it behind real
// gRPC in-process and Exercise is the conformance kit.
package embedder
