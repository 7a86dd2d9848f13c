// Package provider is what a provider plugin's author uses. A provider
// teaches `memhost run` one agent CLI: how that CLI receives memhost's
// project brain (the banner) and MCP server when it is spawned, and what it
// left behind when it exits. It owns the Provider interface, the Spawn a
// provider is given, the Plan it answers with, the Ended and Session of
// Finish, the errors memhost sees, Serve with its options (WithLogger,
// WithDebug), and Mirror, which builds a scratch home that mirrors the
// user's own.
//
// A provider's whole main is
//
//	func main() {
//		if err := provider.Serve(mine.New()); err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//	}
//
// # The contract
//
// memhost resolves the project, fetches its banner, mints a token bound to
// it and creates an empty scratch directory; it then asks Prepare how to
// start the CLI. The provider answers declaratively: the complete argument
// list (the user's arguments kept unchanged, in order and adjacent),
// environment variables to set or remove, entries to create in the scratch
// directory (files with modes, or links into the user's own directories),
// and paths the session will create that memhost must remove afterwards.
// memhost applies the plan, runs the CLI attached to the terminal and calls
// Finish with its exit code and duration; the provider returns the CLI's
// session id and transcript when it can find them, for the journal.
//
// A provider reads the user's configuration (located through Spawn.Env, not
// its own environment, which memhost keeps minimal) and never writes it:
// memhost writes only inside the scratch directory and removes it after the
// session, also when the CLI crashes or is killed, and at a later run when
// memhost itself was killed. The SDK holds every plan to the protocol on
// both sides of the wire (Plan.Validate): no file outside the scratch
// directory, no entry nested in another (so nothing is written through a
// link into the user's home), the MCP token neither on the command line
// (other users can read the process list) nor in a file readable by others,
// the banner not on the command line either, and no added argument or
// variable over MaxArgBytes (exec fails on one over 128 KiB).
//
// A provider declares where its CLI takes the user's prompt in Info.Task
// (TaskRules: option arities, prompt options, commands without a prompt), so
// that memhost reads the task in its own process while the plugin starts; the
// SDK answers the Task RPC from the same rules. A CLI whose prompt the rules
// cannot say has its provider implement Tasker instead.
//
// A provider that implements TranscriptReader is the one place that reads its
// CLI's transcript layout: memhost sends it the ended session's id, file,
// directory and time window and gets neutral Turns back for the session's
// record and summary, or the reason the file is not provably the session's
// (Transcript.NotIsolated: a file of another session or directory). The
// server adapter drops the turns outside the window and bounds the answer;
// ReadJSONL frames a reader over a JSON-lines file (Refused is its answer for a
// file that is not the session's), and OpenJSONL, ParseTime and ContentText read
// the shapes the CLIs share.
//
// Test an implementation with package providertest: Serve runs it behind
// real gRPC in-process and Exercise is the conformance kit.
package provider
