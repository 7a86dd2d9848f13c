// Package server assembles the memhost host: it connects to Postgres and applies migrations
// (fail-closed), discovers and starts plugins, picks the active embedder and ensures its vector
// index, rebuilds the lexical index from the change feed and follows it, moves bulk-imported
// rows into the vector index in the background, and serves MCP at /mcp, REST under /api/v1,
// the operator console under /console/ (/ redirects there; its live feed follows the same change
// feed), /healthz, /readyz and Prometheus /metrics on one listener. Shutdown stops accepting
// requests, drains them, and kills every plugin process.
package server
