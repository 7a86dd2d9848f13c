// Package connect owns `memhost connect <cli>` and `memhost connect --undo <cli>`: the opt-in
// setup for people who start their agent CLI directly rather than through `memhost run`. It
// registers memhost's MCP server under the name memhost in the user's own CLI configuration and,
// where the CLI has SessionStart hooks (Claude Code, Gemini CLI), a hook that prints the
// project's banner (`memhost hook session-start`), so plain `claude` and `gemini` start with
// the project brain. Like spawn, it is client-side code, apart from the daemon's packages.
//
// What it changes, per CLI:
//
//   - claude: `claude mcp add --scope user --transport http memhost URL --header ...` (user
//     scope: the default, local scope, would register the server for one directory only), and
//     a SessionStart hook in Claude Code's settings.json;
//   - gemini: `gemini mcp add --scope user --transport http --trust --header ... memhost URL`
//     (trusted: headless `gemini -p` offers an untrusted server's tools to no model), and a
//     SessionStart hook in the same settings.json;
//   - codex: Codex has no hooks, and its `codex mcp add` cannot set a header, so an
//     [mcp_servers.memhost] table with the token in http_headers is appended to config.toml.
//     The banner reaches Codex only through `memhost run codex`; memhost's server instructions
//     still tell the model what the memory is for.
//
// The token is minted for the connection (read and write, not bound to a project: one
// registration serves every project, and agents name the project with each call) and revoked
// by --undo.
//
// Connect shows the commands it will run and a unified diff of every file it edits, and asks
// (or takes --yes). It backs up each file before the first change and records what it did
// (state.json beside the backups); connecting twice changes nothing. Undo restores each file
// byte for byte when it is still as connect left it. A file the CLI or the user has changed
// since (Claude Code rewrites ~/.claude.json at every start) gets memhost's entries removed
// instead, through the CLI's own `mcp remove` where it has one, and keeps everything else; its
// backup is then kept and named.
package connect
