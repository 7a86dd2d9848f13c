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
// What it changes, per CLI:
//
//   - claude: `claude mcp add --scope user memhost -e MEMHOST_CONFIG=... -- memhost mcp` (user
//     scope: the default, local scope, would register the server for one directory only), and
//     a SessionStart hook in Claude Code's settings.json;
//   - gemini: `gemini mcp add memhost memhost mcp --scope user --trust -e ...` (trusted:
//     headless `gemini -p` offers an untrusted server's tools to no model), and a SessionStart
//     hook in the same settings.json;
//   - codex: Codex has no hooks, so an [mcp_servers.memhost] table (command, args, env) is
//     appended to config.toml; memhost's server instructions tell its model to load the
//     project's context at the start of a session.
//
// A connection made by an earlier memhost registered a token; undo revokes it, and every diff
// or command connect prints has its tokens masked.
//
// Connect shows the commands it will run and a unified diff of every file it edits, and asks
// (or takes --yes). It backs up each file before the first change and records what it did
// (state.json beside the backups); connecting twice changes nothing. Undo restores each file
// byte for byte when it is still as connect left it. A file the CLI or the user has changed
// since (Claude Code rewrites ~/.claude.json at every start) gets memhost's entries removed
// instead, through the CLI's own `mcp remove` where it has one, and keeps everything else; its
// backup is then kept and named.
package connect
