#!/usr/bin/env bash
# pg-cluster.sh manages a private PostgreSQL cluster for development and tests.
#
#   pg-cluster.sh start DIR   initialise (once) and start a cluster in DIR; prints its URL
#   pg-cluster.sh stop DIR    stop it
#   pg-cluster.sh url DIR     print the URL without starting anything
#
#   MEMHOST_PG_SHARED_BUFFERS=8GB pg-cluster.sh start DIR
#                             size Postgres's own page cache (default 256MB); a running
#                             cluster with another size is restarted. Above 1GB, reserve
#                             huge pages first (docs/operations.md, "Sizing Postgres").
#
# initdb and postgres refuse to run as root, so when we are root the server runs as the
# `postgres` system user in a directory that user owns. The server listens on a unix socket
# only (DIR/run, mode 0700), so no other local user can reach it. Concurrent callers (several
# test packages starting at once) serialise on DIR.lock.
set -euo pipefail

cmd=${1:?usage: pg-cluster.sh start|stop|url DIR}
dir=${2:?usage: pg-cluster.sh start|stop|url DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
bindir=/usr/lib/postgresql/${PG_MAJOR:-15}/bin
data=$dir/data
run=$dir/run
db=${MEMHOST_PG_DB:-memhost}

as_owner() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
dbuser=$( [ "$(id -u)" = 0 ] && echo postgres || id -un )
url() { printf 'postgres:///%s?host=%s&user=%s&sslmode=disable\n' "$db" "$run" "$dbuser"; }

case "$cmd" in
url) url; exit 0 ;;
stop)
  [ -f "$data/postmaster.pid" ] && as_owner "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null || true
  exit 0 ;;
start) ;;
*) echo "pg-cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac

"$here/ensure-postgres.sh"
exec 9>"$dir.lock"
flock 9
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql --shell /bin/bash postgres
  chown postgres "$dir"
  # The postgres user must be able to reach DIR through its parents.
  p=$dir; while [ "$p" != / ]; do p=$(dirname "$p"); chmod o+x "$p" 2>/dev/null || true; done
fi
if [ ! -f "$data/PG_VERSION" ]; then
  as_owner mkdir -p "$data" "$run"
  as_owner "$bindir/initdb" -D "$data" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || {
    cat "$dir/initdb.log" >&2; exit 1; }
  cat >>"$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$run'
unix_socket_permissions = 0700
max_connections = 200
fsync = on
CONF
fi
# Memory settings live in memhost.conf, rewritten at every start, so a cluster made by an older
# version of this script picks up new ones at its next start. shared_buffers defaults to 256MB:
# measured on 2 cores without huge pages (docs/benchmarks-1m.md), a quarter of RAM bought
# nothing at 1M memories while the OS cache held the rest, and cost every new connection its
# page faults (memhost run's spawn, a fresh pool); sized to hold the whole table and its
# graphs, with huge pages, it met every latency target there (MEMHOST_PG_SHARED_BUFFERS).
# pg_prewarm's autoprewarm reloads what shared_buffers held after a restart. effective_cache_size tells
# the planner what the OS cache holds. wal_compression: after each checkpoint a write's first
# change to a page logs the whole page, and at 1M memories most writes touch pages no write has
# touched since, so most commits flush several such images; lz4 shrinks them for little CPU.
ram_kb=$(awk '/^MemTotal:/ {print $2}' /proc/meminfo)
shared_buffers=${MEMHOST_PG_SHARED_BUFFERS:-256MB}
case "$shared_buffers" in
*[!0-9A-Za-z]* | "" | [!0-9]*) echo "pg-cluster.sh: MEMHOST_PG_SHARED_BUFFERS=$shared_buffers: want a size such as 256MB or 8GB" >&2; exit 2 ;;
esac
as_owner tee "$data/memhost.conf" >/dev/null <<CONF
# Written by memhost's scripts/pg-cluster.sh at every start. To override a setting, set it again
# in postgresql.conf below the include_if_exists line that reads this file.
shared_buffers = $shared_buffers
shared_preload_libraries = 'pg_prewarm'
effective_cache_size = $(( ram_kb / 2 / 1024 ))MB
maintenance_work_mem = 256MB
wal_compression = lz4
CONF
# The include is appended once, after initdb's settings, so it overrides them; lines an operator
# adds below it win over it.
grep -q "^include_if_exists = 'memhost.conf'" "$data/postgresql.conf" ||
  echo "include_if_exists = 'memhost.conf'" | as_owner tee -a "$data/postgresql.conf" >/dev/null
as_owner mkdir -p "$run"
as_owner chmod 0700 "$run"
# A running cluster with another shared_buffers (or without the preloaded library) is restarted
# so the settings written above take effect.
if as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1 &&
  [ "$(psql -h "$run" -U "$dbuser" -d postgres -Atqc "select pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes('$shared_buffers') and current_setting('shared_preload_libraries') ~ 'pg_prewarm'")" != t ]; then
  as_owner "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null
fi
if ! as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  # fd 9 (the lock) and our stdio must not leak into the postmaster, or it would hold them forever.
  as_owner "$bindir/pg_ctl" -D "$data" -l "$dir/postgres.log" -w -t 60 start </dev/null >/dev/null 2>&1 9>&- || {
    tail -20 "$dir/postgres.log" >&2; exit 1; }
fi
if [ "$(psql -h "$run" -U "$dbuser" -d postgres -Atqc "select 1 from pg_database where datname='$db'")" != 1 ]; then
  psql -h "$run" -U "$dbuser" -d postgres -qc "create database \"$db\"" >/dev/null
fi
# Created here, under the lock, so processes that share the cluster never race on it.
psql -h "$run" -U "$dbuser" -d "$db" -qc "create extension if not exists vector with schema public" >/dev/null
url
