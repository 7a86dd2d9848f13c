// Package mcpserver owns memhost's MCP surface: the seven memory tools (memory_store,
// memory_search, memory_get, memory_list, memory_archive, memory_restore, memory_history)
// with their input and output schemas, descriptions and annotations; the mapping from a
// caller (bearer token principal, MCP client name, project/cwd arguments) to a
// memory.Access; the mapping of service errors to tool results the model can read; and the
// transports: streamable HTTP behind bearer authentication (Handler), and in process over any
// MCP transport with a fixed principal (Serve). `memhost mcp`, the stdio server a CLI starts,
// forwards to the HTTP surface of the running host (package hostclient).
//
// Protocol versions: the SDK negotiates 2024-11-05 through 2025-11-25 with the initialize
// handshake on stateful sessions, and 2026-07-28 statelessly (every request carries its
// version and client info in _meta, no session). Handler routes each HTTP request by its
// Mcp-Protocol-Version header: 2026-07-28 and later go to a stateless handler, everything
// else to a stateful one, so legacy clients keep the clientInfo they sent at initialize.
//
// Each tool is declared once (declare.go's toolSpec: name, title, description and whether it
// writes, destroys or may be repeated); its scope, rate limit and annotations follow from that,
// and its schemas from its Go input and output types, whose shared fields (Where, Author) are
// one embedded definition. testdata/tools_list.golden.json pins what tools/list shows.
//
// A call whose HTTP request carries the session header memhost run puts in the MCP entry it
// hands a CLI (wire.SessionHeader) is recorded in that session's record (sessions.go): what it
// retrieved, stored or was given; the record's rules belong to package brain.
//
// The memory rules themselves (validation, folding, ranking, project isolation) belong to
// package memory; tokens and scopes belong to package auth.
package mcpserver
