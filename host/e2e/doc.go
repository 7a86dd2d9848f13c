// Package e2e tests memhost as an operator runs it: it builds bin/memhost and the plugins,
// starts `memhost serve` as a child process against a fresh Postgres schema, and drives it
// through a real MCP client and the REST API — including kill -9 of the host during a write
// burst and of the embedder plugin mid-burst.
package e2e
