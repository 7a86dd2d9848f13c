// Package workertest owns the test tooling for worker plugins, for the SDK
// itself and for third-party plugin authors:
//
//   - Serve runs an implementation in-process behind real gRPC (go-plugin's
//     TestPluginGRPCConn) and returns the client-side Worker the host would
//     hold, so tests cross the same wire, adapters and validation as
//     production.
//   - Launch starts a built plugin binary, in any language, as a real plugin
//     process (handshake, AutoMTLS, gRPC only) and returns its Worker; Start
//     does the same outside a test and returns a kill function.
//   - Attach connects to a plugin served in debug mode (worker.WithDebug).
//   - Exercise is the conformance kit: subtests every worker must pass.
//
// A plugin's tests typically run the kit on the implementation (where
// cancellation is observable) and over the wire:
//
//	workertest.Exercise(t, mine.New())
//	workertest.Exercise(t, workertest.Serve(t, mine.New()))
//
// The kit needs no model: a worker under test answers from whatever its
// tests point it at (a stand-in endpoint, a fixed reply).
package workertest
