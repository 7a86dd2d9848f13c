// Package standin owns the stand-in model endpoints that let tests run the real coding-agent
// CLIs (Claude Code, Codex, Gemini CLI) end to end with no network: one HTTP server per wire
// protocol (Anthropic Messages, OpenAI Responses, Gemini generateContent), each speaking its
// protocol, streaming included, faithfully enough for the real CLI to finish a turn.
//
// A stand-in records every request body, so a test can assert what reached the model (a
// sentinel from memhost's banner, the tools a CLI offered), and it follows a script: a list of
// turns, each answering text or calling a tool found by name or by suffix in the tools the CLI
// sent ("memory_store" finds mcp__memhost__memory_store, mcp_memhost_memory_store or the Codex
// namespace form). The request after a tool call carries the tool's result, which the stand-in
// exposes. Requests that offer no tools (titles, classifiers, quota probes) are auxiliary: they
// get a fixed answer and never consume a turn.
//
// The package knows the wire protocols, not memhost: tests in host/e2ecli configure each CLI
// to use it (docs/e2e-cli.md records what each CLI needs).
package standin
