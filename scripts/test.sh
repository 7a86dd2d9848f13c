#!/usr/bin/env bash
# test.sh is `make test`: formatting, vet and the race-enabled test suites of every module,
# against a real PostgreSQL (14-18) + pgvector that it installs and starts when missing, and
# the setup scripts' own tests (scripts/test-scripts.sh, with shellcheck).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

scripts/ensure-postgres.sh
scripts/ensure-node.sh
if ! command -v shellcheck >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing shellcheck (apt)"
  apt-get install -y -qq shellcheck >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq shellcheck >/dev/null; }
fi
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  TEST_DATABASE_URL=$(MEMHOST_PG_DB=memhost_test scripts/pg-cluster.sh start "${TMPDIR:-/tmp}/memhost-test-pg-$(id -u)" | tail -n1)
  export TEST_DATABASE_URL
fi

modules=(sdk plugins/embed-bm25 plugins/provider-claude plugins/provider-codex plugins/provider-gemini plugins/worker-agentcli plugins/worker-openaicompat plugins/embed-openaicompat migrations host)
unformatted=$(gofmt -l "${modules[@]}")
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" >&2
  echo "$unformatted" >&2
  exit 1
fi
for m in "${modules[@]}"; do
  echo "== go vet ./... ($m)"
  (cd "$m" && "$GO" vet ./...)
done
status=0
echo "== setup scripts (scripts/test-scripts.sh)"
GO=$GO scripts/test-scripts.sh || status=1
for m in "${modules[@]}"; do
  echo "== go test -race ./... ($m)"
  (cd "$m" && "$GO" test -race -count=1 -timeout 20m ./...) || status=1
done
exit $status
