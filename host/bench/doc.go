// Package bench owns memhost's performance and quality benchmark, the logic behind
// `make bench` (cmd/memhost-bench is its thin main). It measures against the real pieces: the
// embedder plugin as a separate process over go-plugin gRPC, pgstore on a real PostgreSQL +
// pgvector, and memory.Service for the write and read paths, each size on a fresh schema.
//
// What it measures, against the targets in the design brief: the plugin round trip; for each
// corpus size, bulk import rate, memory_store and memory_search latency and ANN recall against
// an exact scan; fold calibration on labelled pairs (sdk/embedder/calibration); and retrieval
// quality (recall@5, recall@10, MRR) on a labelled project in testdata/quality.json; the
// retrieval benchmark against plain BM25 (testdata/retrieval); banner selection (does the fact
// a task needs reach the CLI, query-less against task-scoped, over a sweep of the score floor;
// selection.go); the value A/B (the same tasks on the real Claude Code with memory and without;
// valueab.go); spawn overhead; and a database
// shared by 101 projects, timed at an MCP client of a real `memhost serve`. Render writes the
// results as docs/benchmarks.md. With Config.OnlyShared it runs the shared round alone, as
// `make bench-1m` does at 1M memories for docs/benchmarks-1m.md. CalibrateEmbedder
// (memhost-bench -calibrate) measures one embedder's settings in the host instead: its
// relevance floor, vector weight and fold threshold (hybrid.go, docs/ranking.md); use-lite/
// serves a real CPU model for it.
//
// Latency targets are not asserted in tests (timings on shared CI machines are noise); the
// quality floor is, in quality_test.go, so ranking regressions fail `make test`.
package bench
