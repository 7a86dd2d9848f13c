// Package pgstore is the Postgres + pgvector implementation of store.Store.
//
// Vectors of every embedder share one untyped `vector` column; each embedder gets a partial HNSW
// index over (embedding::vector(N)) WHERE embedder = '<name>'. Queries repeat that cast and
// inline the embedder name as a literal (names are validated to a safe alphabet), run with
// plan_cache_mode = force_custom_plan and pgvector 0.8's iterative scan, so the planner
// actually uses the index with a project filter — the test suite asserts the plan with EXPLAIN.
//
// Writes to one scope serialise on a transaction advisory lock keyed by the scope, which is what
// makes "the same fact written by two agents at once ends in one row" hold across hosts.
package pgstore
