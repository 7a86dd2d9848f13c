// Package hostclient owns the client side's one way to the running host: the REST client
// that `memhost run`, the SessionStart hook and the operator commands use (Client), and the
// stdio MCP server `memhost mcp` that a CLI starts in its session's directory and that
// forwards every request to the host's /mcp with a token bound to that directory's project
// (Forwarder). Neither opens the database's core: they reach the host like any client, so a
// CLI's start costs a few milliseconds however much memory the host holds.
//
// Tokens come from package spawn's minter (spawn.MintTokens): one minter and one 0600 cache
// for memhost run, the hook and memhost mcp.
package hostclient
