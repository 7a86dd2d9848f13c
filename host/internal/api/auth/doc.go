// Package auth owns who may call the host and how much: bearer API tokens (minted, stored
// only as hashes, revoked), their scopes and optional project binding, the Principal a
// request runs as with what it may reach (a bound token changes nothing outside its project;
// what the whole host shares needs an admin token bound to none: Principal.HostWide), and the
// per-token write rate limit.
//
// Tokens are looked up by the sha256 of the presented value, so a guess costs one indexed
// lookup and no secret is ever compared byte by byte; plaintext exists only in the Create
// result shown once to the operator.
package auth
