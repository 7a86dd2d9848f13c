#!/usr/bin/env bash
# test.sh is `make test`: formatting, vet and the race-enabled test suites of every module,
# against a real PostgreSQL (14-18) + pgvector that it installs and starts when missing, and
# the setup scripts' own tests (scripts/test-scripts.sh, with shellcheck).
#
# With TEST_DATABASE_URL unset it leases the test cluster in $TMPDIR/memhost-test-pg-UID
# (scripts/pg-cluster.sh acquire) and ends its lease on success, failure and Ctrl-C: the last
# run using the cluster stops it if a run started it, so two make test at once (from one
# checkout or two) never stop each other's, and a cluster that was running before is left so.
# Every step says what runs and, when it is done, how long it took; a step silent for
# MEMHOST_TEST_TICK seconds (default 30) is named again with its elapsed time.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
tick=${MEMHOST_TEST_TICK:-30}
t0=$SECONDS

# step NAME COMMAND...: runs COMMAND, saying what runs, again every $tick seconds while it
# runs, and how it ended after how long. Its exit status is COMMAND's.
# ticker is the running step's ticker, which the EXIT trap ends when the run is interrupted
# mid-step (else it would go on printing, orphaned, after the run).
ticker=
step() {
  local name=$1 start=$SECONDS status=0
  shift
  echo "== $name"
  (
    # Its sleep ends with it, so no stray process outlives the step.
    trap 'kill $! 2>/dev/null; exit 0' TERM
    while :; do
      sleep "$tick" &
      wait $!
      echo "   ... $name: still running ($((SECONDS - start))s)"
    done
  ) &
  ticker=$!
  "$@" || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  ticker=
  if [ $status = 0 ]; then
    echo "== $name: ok ($((SECONDS - start))s)"
  else
    echo "== $name: FAILED ($((SECONDS - start))s)"
  fi
  return $status
}

# in_module DIR COMMAND...: runs COMMAND in the module DIR (through step).
# shellcheck disable=SC2317 # called through step
in_module() { (cd "$1" && shift && "$@"); }

cluster=
# shellcheck disable=SC2317 # called by the EXIT trap
release() {
  if [ -n "$ticker" ]; then
    kill "$ticker" 2>/dev/null || true
    ticker=
  fi
  if [ -n "$cluster" ]; then
    scripts/pg-cluster.sh release "$cluster" $$ || true
    cluster=
  fi
}
trap release EXIT
# Ctrl-C reaches the tests too (one process group); the EXIT trap then ends the lease.
trap 'exit 130' INT
trap 'exit 143' TERM

step "PostgreSQL + pgvector (scripts/ensure-postgres.sh)" scripts/ensure-postgres.sh
step "node (scripts/ensure-node.sh)" scripts/ensure-node.sh
if ! command -v shellcheck >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing shellcheck (apt)"
  apt-get install -y -qq shellcheck >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq shellcheck >/dev/null; }
fi
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  cluster=${TMPDIR:-/tmp}/memhost-test-pg-$(id -u)
  echo "== test cluster in $cluster (leased by this run, pid $$)"
  TEST_DATABASE_URL=$(MEMHOST_PG_DB=memhost_test scripts/pg-cluster.sh acquire "$cluster" $$ | tail -n1)
  export TEST_DATABASE_URL
fi

modules=(sdk plugins/embed-bm25 plugins/provider-claude plugins/provider-codex plugins/provider-gemini plugins/worker-agentcli plugins/worker-openaicompat plugins/embed-openaicompat migrations host)
echo "== gofmt -l"
unformatted=$(gofmt -l "${modules[@]}")
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
for m in "${modules[@]}"; do
  step "go vet ./... ($m)" in_module "$m" "$GO" vet ./...
done
status=0
step "setup scripts (scripts/test-scripts.sh)" env GO="$GO" scripts/test-scripts.sh || status=1
for m in "${modules[@]}"; do
  step "go test -race ./... ($m)" in_module "$m" "$GO" test -race -count=1 -timeout 20m ./... || status=1
done
echo "== make test: $([ $status = 0 ] && echo ok || echo FAILED) in $((SECONDS - t0))s"
exit $status
