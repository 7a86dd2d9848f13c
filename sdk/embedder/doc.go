// Package embedder is what an embedder plugin's author uses: the Embedder
// interface a plugin implements, its Info and Purpose, the errors a host
// sees, and Serve for the plugin's main with its options (WithLogger,
// WithDebug).
//
// An embedder plugin's whole main is
//
//	func main() {
//		if err := embedder.Serve(mine.New()); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// Plugin code never sees gRPC, go-plugin or generated types: this package's
// API shows none, while its unexported conversion to and from the wire does
// the work on top of the glue every kind shares: a server adapter turns
// Embedder calls into the memhost.v1.Embedder service,
// enforcing the limits Info declares and turning panics into errors, and a
// client adapter (what the host holds, dispensed through
// plugin.VersionedPlugins(embedder.Kind)) turns them back, forwarding context deadlines
// and cancellation, validating every response and mapping gRPC status codes
// to the errors of this package or to context errors.
//
// Test an implementation with package embeddertest: Serve runs it behind real
// gRPC in-process and Exercise is the conformance kit.
package embedder
