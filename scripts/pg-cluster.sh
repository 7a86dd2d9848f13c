#!/usr/bin/env bash
# pg-cluster.sh manages a private PostgreSQL cluster for development and tests.
#
#   pg-cluster.sh start DIR   initialise (once) and start a cluster in DIR; prints its URL
#   pg-cluster.sh stop DIR    stop it (nothing to do when it is not running)
#   pg-cluster.sh url DIR     print the URL without starting anything
#   pg-cluster.sh acquire DIR ID
#                             start as start does, and lease the cluster to the process ID
#                             (make test's pid); prints its URL
#   pg-cluster.sh release DIR ID
#                             end ID's lease; the last lease out stops the cluster when an
#                             acquire started it, and leaves running one that was running
#                             before (or that a plain start asked for meanwhile)
#
#   MEMHOST_PG_SHARED_BUFFERS=8GB pg-cluster.sh start DIR
#                             size Postgres's own page cache (default 256MB); a running
#                             cluster with another size is restarted. Above 1GB, reserve
#                             huge pages first (docs/operations.md, "Sizing Postgres").
#
# The server is the PostgreSQL 14-18 scripts/pg-env.sh finds (a cluster keeps the major that
# made it). It runs as the calling user, in DIR, and listens on a unix socket only (DIR/run,
# mode 0700), so no other local user can reach it; nothing outside DIR changes. initdb and
# postgres refuse to run as root, so when we are root the server runs as the `postgres` system
# user: in DIR when that user can reach it, else (a checkout under /root) in
# /var/lib/memhost/pg-<checksum of DIR>, which DIR/home names. Concurrent callers (several test
# packages starting at once) serialise on DIR.lock.
#
# Leases let runs that share one cluster (two make test at once, from one checkout or two)
# stop it only when the last of them ends: each lease is DIR/leases/ID holding the start time
# of process ID, so a lease whose process died (kill -9) or whose pid was reused counts for
# nothing; DIR/leases/started marks a cluster an acquire started.
set -euo pipefail

usage="usage: pg-cluster.sh start|stop|url DIR, or acquire|release DIR ID"
cmd=${1:?$usage}
dir=${2:?$usage}
lease_id=
case "$cmd" in acquire | release) lease_id=${3:?$usage} ;; esac
# Only start and acquire create DIR: url, stop and release must not leave an empty cluster
# folder behind.
case "$cmd" in start | acquire) mkdir -p "$dir" ;; esac
[ -d "$dir" ] && dir=$(cd "$dir" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/pg-env.sh
. "$here/pg-env.sh"
db=${MEMHOST_PG_DB:-memhost}
is_root() { [ "$(id -u)" = 0 ]; }

# home is where data/ and run/ live: DIR, or the postgres-owned directory DIR/home names.
home=$dir
[ -f "$dir/home" ] && home=$(cat "$dir/home")
data=$home/data
run=$home/run

as_owner() {
  if is_root; then as_user postgres "$@"; else "$@"; fi
}
dbuser=$(if is_root; then echo postgres; else id -un; fi)
url() { printf 'postgres:///%s?host=%s&user=%s&sslmode=disable\n' "$db" "$run" "$dbuser"; }

pg_detect "$data"
bindir=$PG_BINDIR

# lock serialises starts, leases and releases on DIR.lock: flock where util-linux has it, else an
# atomic mkdir whose holder's pid lets a later caller break a lock left by a killed one. It is
# taken once per run of this script and held until it exits.
locked=0
lock() {
  [ $locked = 1 ] && return
  locked=1
  if command -v flock >/dev/null 2>&1; then
    exec 9>"$dir.lock"
    flock 9
    return
  fi
  lockdir=$dir.lock.d
  until mkdir "$lockdir" 2>/dev/null; do
    if [ -f "$lockdir/pid" ] && ! kill -0 "$(cat "$lockdir/pid" 2>/dev/null)" 2>/dev/null; then
      rm -rf "$lockdir"
      continue
    fi
    sleep 0.2
  done
  echo $$ >"$lockdir/pid"
  trap 'rm -rf "$lockdir"' EXIT
}

stop_cluster() {
  if [ -f "$data/postmaster.pid" ] && [ -n "$bindir" ]; then
    as_owner "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  fi
}

# started_at PID prints when process PID started (empty when it is gone): a lease names its
# process by both, so a pid the system reused does not keep a dead run's lease alive.
started_at() {
  if [ -r "/proc/$1/stat" ]; then
    # Field 22 of stat, counted after the command name, which may hold spaces.
    sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20
  else
    ps -o lstart= -p "$1" 2>/dev/null | tr -s ' ' || true
  fi
}

# live_leases prints the leases whose process still runs, removing the others.
live_leases() {
  local f id
  for f in "$dir"/leases/*; do
    [ -f "$f" ] || continue
    id=${f##*/}
    [ "$id" = started ] && continue
    if [ -n "$(started_at "$id")" ] && [ "$(started_at "$id")" = "$(cat "$f" 2>/dev/null)" ]; then
      echo "$id"
    else
      rm -f "$f"
    fi
  done
}

case "$cmd" in
url) url; exit 0 ;;
stop) stop_cluster; exit 0 ;;
release)
  [ -d "$dir/leases" ] || exit 0
  lock
  rm -f "$dir/leases/$lease_id"
  if [ -z "$(live_leases)" ] && [ -f "$dir/leases/started" ]; then
    stop_cluster
    rm -f "$dir/leases/started"
    echo "pg-cluster.sh: stopped the test cluster in $dir (the last run using it ended)" >&2
  fi
  exit 0 ;;
start | acquire) ;;
*) echo "pg-cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac

MEMHOST_PG_DATADIR=$data "$here/ensure-postgres.sh"
pg_detect "$data"
bindir=$PG_BINDIR
[ -n "$bindir" ] || { echo "pg-cluster.sh: PostgreSQL ${PG_MAJOR:-14-18} is not installed" >&2; exit 1; }
lock
if is_root; then
  id postgres >/dev/null 2>&1 || useradd --system --home /var/lib/postgresql --shell /bin/bash postgres
  if [ "$home" = "$dir" ]; then
    chown postgres "$dir"
    if ! as_owner test -w "$dir"; then
      # The postgres user cannot reach DIR through its parents (a checkout under /root): the
      # cluster lives where it can, and no parent directory's permissions change.
      home=/var/lib/memhost/pg-$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
      mkdir -p "$home"
      chown postgres "$home"
      chmod 0700 "$home"
      echo "$home" >"$dir/home"
      data=$home/data run=$home/run
      echo "pg-cluster.sh: postgres cannot reach $dir; the cluster lives in $home" >&2
    fi
  fi
fi
if [ ! -f "$data/PG_VERSION" ]; then
  as_owner mkdir -p "$data" "$run"
  # C.UTF-8 where the C library has it (glibc), else the first UTF-8 locale (macOS has no
  # C.UTF-8), so case folding and character classes know non-ASCII letters.
  locale=$(locale -a 2>/dev/null | grep -i -m1 -E '^C\.utf-?8$' || locale -a 2>/dev/null | grep -i -m1 -E '^en_US\.utf-?8$' || echo C)
  as_owner "$bindir/initdb" -D "$data" --auth=trust --encoding=UTF8 --locale="$locale" >"$dir/initdb.log" 2>&1 || {
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
# the planner what the OS cache holds. wal_compression (lz4 from PostgreSQL 15): after each checkpoint a write's first
# change to a page logs the whole page, and at 1M memories most writes touch pages no write has
# touched since, so most commits flush several such images; lz4 shrinks them for little CPU.
ram_kb=$(ram_kb)
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
wal_compression = $(if [ "$PG_MAJOR" -ge 15 ]; then echo lz4; else echo on; fi)
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
  [ "$("$bindir/psql" -h "$run" -U "$dbuser" -d postgres -Atqc "select pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes('$shared_buffers') and current_setting('shared_preload_libraries') ~ 'pg_prewarm'")" != t ]; then
  as_owner "$bindir/pg_ctl" -D "$data" -m fast -w stop >/dev/null
fi
started=0
if ! as_owner "$bindir/pg_ctl" -D "$data" status >/dev/null 2>&1; then
  # fd 9 (the lock) and our stdio must not leak into the postmaster, or it would hold them forever.
  as_owner "$bindir/pg_ctl" -D "$data" -l "$home/postgres.log" -w -t 60 start </dev/null >/dev/null 2>&1 9>&- || {
    tail -20 "$home/postgres.log" >&2; exit 1; }
  started=1
fi
mkdir -p "$dir/leases"
if [ "$cmd" = acquire ]; then
  # A cluster running before the first lease was someone else's: it is left running.
  if [ $started = 1 ] || { [ -f "$dir/leases/started" ] && [ -z "$(live_leases)" ]; }; then
    touch "$dir/leases/started"
  fi
  started_at "$lease_id" >"$dir/leases/$lease_id"
else
  # A plain start (make run, a developer's go test) wants the cluster to outlive any lease.
  rm -f "$dir/leases/started"
fi
if [ "$("$bindir/psql" -h "$run" -U "$dbuser" -d postgres -Atqc "select 1 from pg_database where datname='$db'")" != 1 ]; then
  "$bindir/psql" -h "$run" -U "$dbuser" -d postgres -qc "create database \"$db\"" >/dev/null
fi
# Created here, under the lock, so processes that share the cluster never race on it.
"$bindir/psql" -h "$run" -U "$dbuser" -d "$db" -q -c "set client_min_messages = warning" \
  -c "create extension if not exists vector with schema public" >/dev/null
url
