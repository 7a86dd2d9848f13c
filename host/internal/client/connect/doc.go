// Package connect owns `memhost connect <cli>` and `memhost connect --undo <cli>`: the opt-in
// setup for people who start their agent CLI directly rather than through `memhost run`. It
// registers memhost's MCP server under the name memhost in the user's own CLI configuration and,
// where the CLI has SessionStart hooks (Claude Code, Gemini CLI), a hook that prints the
// project's banner (`memhost hook session-start`), so plain `claude` and `gemini` start with
// the project brain. Like spawn, it is client-side code, apart from the daemon's packages.
//
// The MCP server it registers is a stdio one: the CLI starts `memhost mcp` (memhost's absolute
// path, MEMHOST_CONFIG naming the operator's configuration) in the session's directory, and it
// forwards to the running host with a token bound to that directory's project (package
// hostclient). No token is written into any CLI's configuration.
//
// What it changes is the CLI's provider plugin's knowledge (provider.Connector): the plan it
// answers (the CLI's own commands, each with its undo; entries appended to a list in a JSON
// settings file; a text block appended to a file) is what connect shows and applies. This
// package knows no CLI's files or commands; a provider too old to answer is refused (package
// providers), with no built-in fallback.
//
// A connection made by an earlier memhost registered a token; undo revokes it, and every diff
// or command connect prints has its tokens masked.
//
// Connect shows the commands it will run and a unified diff of every file it edits, and asks
// (or takes --yes). It backs up each file before the first change and records what it did
// (state.json beside the backups); connecting twice changes nothing. Undo restores each file
// byte for byte when it is still as connect left it. A file the CLI or the user has changed
// since (Claude Code rewrites ~/.claude.json at every start) gets memhost's entries removed
// instead (the inverse of the provider's plan, asked again, on that file: the CLI's undo command
// while the provider finds memhost registered, the JSON entries removed, the text block
// removed), and keeps everything else; its backup is then kept and named.
package connect
