// Package pgstore is the Postgres + pgvector implementation of store.Store.
//
// Vectors of every embedder share one untyped `vector` column; each embedder gets a partial HNSW
// index over (embedding::vector(N)) WHERE embedder = '<name>' AND NOT ann_deferred, built and
// rebuilt by EnsureVectorIndex (annindex.go). Queries repeat that cast and
// inline the embedder name as a literal (names are validated to a safe alphabet), run with
// plan_cache_mode = force_custom_plan and pgvector 0.8's iterative scan, so the planner
// actually uses the index with a project filter — the test suite asserts the plan with EXPLAIN.
//
// Import loads rows with ann_deferred set, so bulk loads skip the costly graph insertion;
// Nearest scans those rows exactly beside the index until IndexDeferred moves them in.
//
// Writes to one scope serialise on a transaction advisory lock keyed by the scope, which is what
// makes "the same fact written by two agents at once ends in one row" hold across hosts. A write
// under it costs six round trips: begin, the lock (with the neighbour lookup's planner settings),
// the exact lookup, the neighbour lookup (rows joined on), one batch holding the row change and
// its history entry, commit.
package pgstore
