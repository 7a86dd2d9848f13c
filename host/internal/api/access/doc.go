// Package access owns memhost's one front door. Every surface that serves a caller (MCP over
// HTTP and stdio, REST, the operator console and the providers of `memhost run`) is a thin
// adapter over it, so the rules below are written once and cannot drift apart:
//
//   - bearer parsing: a request carries one Authorization header, whose scheme is matched
//     case-insensitively and which must carry exactly one token (AuthenticateRequest,
//     ParseBearer);
//   - authentication: the token becomes an auth.Principal; an unknown, malformed or revoked
//     token gets the same answer, so nothing is learned by probing (Door.Authenticate); an
//     operator console session acts as the token it was opened for
//     (Door.AuthenticateSession);
//   - project resolution: from the token's binding, the project argument or the cwd argument,
//     with every key (including one derived from a cwd) trimmed, validated and bounded
//     (Resolve);
//   - error mapping: every error a surface can meet becomes one Problem with an HTTP status, a
//     stable code, the field at fault, a message safe to show (no paths, SQL or Go types) and a
//     retry hint for what is worth retrying (Classify).
//
// What the caller may do once inside (validation of memory fields, visibility, folding) belongs
// to package memory; tokens, scopes and the rate limits to package auth.
package access
