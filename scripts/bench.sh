#!/usr/bin/env bash
# bench.sh is `make bench`: it provides PostgreSQL 15 + pgvector, starts a private cluster under
# ./.memhost/bench-pg (database memhost_bench, separate from the dev and test clusters so a run
# never touches their data), and runs host/cmd/memhost-bench, which rewrites docs/benchmarks.md.
#
#   BENCH_SIZES=10000 scripts/bench.sh     # sizes to measure (default 10000,100000)
#   BENCH_SHARED=1000000 scripts/bench.sh  # memories in the shared-database round, timed through
#                                          # MCP against a real host (default 100000; 0 skips it)
#   BENCH_ARGS="-import-workers 1" ...     # extra flags for memhost-bench
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
sizes=${BENCH_SIZES:-10000,100000}
plugin=$root/bin/plugins/memhost-embedder-bm25

scripts/ensure-postgres.sh
url=$(MEMHOST_PG_DB=memhost_bench scripts/pg-cluster.sh start "$root/.memhost/bench-pg" | tail -n1)
# make bench builds the plugin first; building it here as well keeps a direct run of this
# script from measuring a stale binary (Go's build cache makes it a no-op when current).
(cd plugins/embed-bm25 && "$GO" build -trimpath -o "$plugin" .)
# The spawn round runs memhost run with the Claude provider from the same folder.
(cd plugins/provider-claude && "$GO" build -trimpath -o "$root/bin/plugins/memhost-provider-claude" .)
(cd host && "$GO" build -trimpath -o "$root/bin/memhost" ./cmd/memhost)

echo "bench: sizes $sizes, database $url" >&2
start=$(date +%s)
cd host
# shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
"$GO" run ./cmd/memhost-bench \
  -db "$url" \
  -plugin "$plugin" \
  -sizes "$sizes" \
  -pairs "$root/plugins/embed-bm25/bm25/testdata/pairs.jsonl" \
  -quality "$root/host/internal/bench/testdata/quality.json" \
  -retrieval "$root/host/internal/bench/testdata/retrieval" \
  -out "$root/docs/benchmarks.md" \
  -shared "${BENCH_SHARED:-100000}" \
  -host "$root/bin/memhost" \
  ${BENCH_ARGS:-}
echo "bench: done in $(( $(date +%s) - start ))s; results in docs/benchmarks.md" >&2
