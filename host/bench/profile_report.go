package bench

// whereTimeGoes is the hand-written part of docs/benchmarks.md that says where each path's time
// went when it was profiled for issue 29, before it was changed, and what changed. The figures
// below it in the file are the run's own.
const whereTimeGoes = `
## Where the time goes (profiled for issue 29, before the changes)

Measured by hand on this machine while other engineers' builds ran (load average in each row),
with pprof in the benchmark's process, ` + "`perf record`" + ` of ` + "`memhost serve`" + `, a stage timer in the
write path, EXPLAIN (ANALYZE, BUFFERS) and the bench's server-side rows. Each change below was
made where the profile pointed.

| path | where the time went | what changed |
| --- | --- | --- |
| memory_store in the service, 10K memories in one project (load 8-11) | p50 3.95 ms: the final round trip (row, history entry, vector, COMMIT) 2.94 ms, of which the commit's wait for its WAL flush (fdatasync on the shared virtual disk) 2.7 ms; the lookup round trip (BEGIN, scope lock, exact match, fold candidates) 0.35 ms; the plugin's Embed 0.10 ms; the lexical fold candidates 0.09 ms; redaction 0.06 ms. The same writes with the flush off: p50 1.15 ms | the flush stays by default (every acknowledged write survives a crash of Postgres or the machine, the project's standard); ` + "`memory.flush_writes = false`" + ` is an operator's opt-in that commits without waiting for it: a kill -9 of the host still loses nothing acknowledged, a crash of Postgres or the OS up to ~3 x wal_writer_delay (0.6 s) of writes, as @ai-devkit/memory's SQLite in WAL mode with synchronous=NORMAL |
| memory_store at the host, through MCP, 2K memories (the peers round, load 3-6) | client p50 4.1 ms (HTTP) / 4.7 ms (stdio forwarder) against the service's 3.7 ms mean: Embed through the supervised plugin 0.5-0.6 ms, fold-or-insert (two round trips) 1.3 ms rising to 2.9 ms once the project's graph was built and the background indexer ran beside the calls, validation and redaction 0.2 ms, MCP, HTTP and JSON 0.4-1 ms; @ai-devkit/memory 0.8-1.1 ms | the flush (above, kept by default); the rest is the two round trips under the scope lock and the plugin call, which the design keeps (one owner of the fold, plugins out of process) |
| memory_store with a CPU model configured (USE-lite, load 11) | the write waited for the model's Embed: 50-250 ms a text | past ` + "`memory.embed_wait`" + ` (10 ms; none for an embedder averaging more than half of it) the text is stored, its fold decided by the statement check alone, and its vector follows (memory's vectors.go) |
| memory_search in the service, 10K memories (load 8-11) | p50 1.7 ms; CPU: loading the candidates (GetMany, pgx scanning) 28%, the lexical index 19%, tokenizing the candidates again to demote superseded statements 14%, Embed 5%, GC 12% | nothing yet: see the misses |
| ` + "`memhost run`" + ` spawn overhead (load 23) | p50 34 ms: the process start (exec of a 40 MB binary, Go's runtime, package init) 10.8 ms, the configuration 2.9 ms, the kept token 0.7 ms, the banner over REST 10.2 ms, the provider plugin's start (go-plugin handshake with AutoMTLS) 12.6 ms beside those two, the provider's plan 1.5 ms, the CLI's exec 0.9 ms | the timeline is in the spawn table below (` + "`MEMHOST_SPAWN_TIMELINE`" + `); the thesaurus and the statement check's word tables are built at first use instead of at every process's start |
| ANN recall at 100K synthetic memories in one project (load 12-24) | HNSW m=16, ef_construction=128: recall@10 0.829 at ef_search 100, 0.894 at 200, 0.941 at 400, 0.958 at 600; m=32, ef_construction=200: 0.891 / 0.951 / 0.975 / 0.988 at the same widths, for a build 3.7x as long (4m37s against 1m15s) and a graph twice the size | a search walks a large graph wider: hnsw.ef_search = the graph's rows / 160 (625 at 100K), at most 1000, never under ` + "`memory.ann_ef_search`" + `, read from the catalog (pg_class.reltuples) in the statement that sets it; graphs up to 16K memories keep 100. Search pays the wider walk only when its lexical hits leave room for the vector path |
`
