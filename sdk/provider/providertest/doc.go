// Package providertest owns the test tooling for provider plugins, for the
// SDK, for memhost's own providers and for third-party authors:
//
//   - Serve runs an implementation in-process behind real gRPC (go-plugin's
//     TestPluginGRPCConn) and returns the client-side Provider memhost would
//     hold, so tests cross the same wire, adapters and validation as
//     production.
//   - Launch starts a built plugin binary, in any language, as a real plugin
//     process and returns its Provider; Start does the same outside a test.
//   - Attach connects to a plugin served in debug mode (provider.WithDebug).
//   - Exercise is the conformance kit: subtests every provider must pass.
//     WithUserFiles lets a provider's tests give the kit's fake user the
//     configuration the provider mirrors, so the kit checks that it is read
//     and never written. WithTranscript gives it a writer of the CLI's
//     transcript layout, so the kit checks the provider's TranscriptReader:
//     the session's own turns, another session's or directory's refused.
//
// A provider's tests typically run the kit on the implementation (where
// cancellation is observable) and over the wire:
//
//	providertest.Exercise(t, mine.New())
//	providertest.Exercise(t, providertest.Serve(t, mine.New()))
package providertest
