#!/usr/bin/env bash
# stop.sh is make stop / memhost stop: it stops what make run or memhost up started from this
# checkout (or unpacked archive): the host (whose exit ends its plugins), then the private
# cluster in .memhost/pg. Safe to run when nothing is running. MEMHOST_STATE_DIR replaces .memhost.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
state=${MEMHOST_STATE_DIR:-$root/.memhost}
say() { echo "memhost stop: $*" >&2; }

pidfile=$state/memhost.pid
if [ -f "$pidfile" ] && pid=$(cat "$pidfile") && kill -0 "$pid" 2>/dev/null; then
  say "stopping the host (pid $pid) and its plugins"
  kill -TERM "$pid"
  i=0
  while kill -0 "$pid" 2>/dev/null; do
    i=$((i + 1))
    if [ $i -gt 300 ]; then
      say "the host did not stop within 30s; killing it"
      kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.1
  done
  rm -f "$pidfile"
else
  say "the host is not running"
fi
if [ -d "$state/pg" ]; then
  say "stopping the private cluster in $state/pg"
  "$root/scripts/pg-cluster.sh" stop "$state/pg"
fi
