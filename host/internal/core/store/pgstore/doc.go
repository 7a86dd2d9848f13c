// Package pgstore is the Postgres + pgvector implementation of store.Store.
//
// Vectors live in memory_vectors, one row per memory and embedder (migration 0012), so a
// memory holds the vectors of several embedders while a new one converges (PutVectors, from
// the re-embed job); every lookup reads one embedder's rows. They share one untyped `vector`
// column. Each scope (a project, or the global scope) holding at least DefaultGraphMinRows rows
// of an embedder gets an HNSW graph of its own on memory_vectors: a partial index over
// (embedding::vector(N)) WHERE embedder = '<name>' AND scope =
// ... AND scope_key = ... AND NOT ann_deferred, built in the background by IndexScopes
// (annindex.go). Nearest searches each scope on its own and repeats that predicate, with the
// embedder name inlined as a literal (names are validated to a safe alphabet) and a custom
// plan, so the planner walks the scope's graph with nothing filtered out; a smaller scope has
// no graph and the same query scans its rows exactly through the (embedder, scope, scope_key)
// btree. The test suite pins both plans with EXPLAIN.
//
// Import loads vectors with ann_deferred set, and a write's vector in a scope with a graph is
// stored that way too, so neither pays for the graph insertion; Nearest scans deferred rows
// exactly beside the graph until IndexDeferred moves them in.
//
// Writes to one scope serialise on a transaction advisory lock keyed by the scope, which is what
// makes "the same fact written by two agents at once ends in one row" hold across hosts. A write
// under it costs two round trips on one pooled connection, each a pipelined batch: BEGIN, the
// lock (keeping generic plans), the exact lookup and the candidates read by key with their
// cosine; then the row change, its history entry and COMMIT. A failed batch is rolled
// back before the connection returns to the pool.
package pgstore
