// Package embeddertest owns the test tooling for embedder plugins, for the
// SDK itself and for third-party plugin authors:
//
//   - Serve runs an implementation in-process behind real gRPC (go-plugin's
//     TestPluginGRPCConn) and returns the client-side Embedder the host would
//     hold, so tests cross the same wire, adapters and validation as
//     production.
//   - Launch starts a built plugin binary, in any language, as a real plugin
//     process (handshake, AutoMTLS, gRPC only) and returns its Embedder;
//     Start does the same outside a test (benchmarks, tools) and returns a
//     kill function.
//   - Attach connects to a plugin served in debug mode (embedder.WithDebug),
//     for instance one running under a debugger.
//   - Exercise is the conformance kit: subtests every embedder must pass.
//   - Subpackage openaifake is a stand-in OpenAI-compatible embeddings runtime with a small
//     semantic model, for plugins that call one and for the host's tests.
//
// A plugin's tests typically run the kit on the implementation (where
// cancellation is observable) and over the wire:
//
//	embeddertest.Exercise(t, mine.New())
//	embeddertest.Exercise(t, embeddertest.Serve(t, mine.New()))
package embeddertest
