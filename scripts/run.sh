#!/usr/bin/env bash
# run.sh starts memhost from a checkout (make run, after make build) or an unpacked release
# archive (bin/memhost up): it provides PostgreSQL 14-18 + pgvector, starts the private cluster
# in .memhost/pg unless a database is named (MEMHOST_DATABASE_URL, or database.url in
# .memhost/memhost.toml pointing elsewhere), writes .memhost/memhost.toml once (never again: it
# is the operator's to edit) so that bin/memhost commands run from here (token, migrate,
# plugins, status, config check) use the same database and plugins without extra flags,
# applies migrations and serves in the foreground.
#
# Ctrl-C, SIGTERM (make stop, memhost stop, a service manager) or the host exiting stop the
# host, its plugins and the private cluster this run started: nothing is left running.
# MEMHOST_STATE_DIR replaces .memhost (tests run beside a real one).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
state=${MEMHOST_STATE_DIR:-$root/.memhost}
mkdir -p "$state"
state=$(cd "$state" && pwd)
say() { echo "memhost up: $*" >&2; }

if [ -f "$state/memhost.pid" ] && kill -0 "$(cat "$state/memhost.pid")" 2>/dev/null; then
  say "memhost is already running from $state (pid $(cat "$state/memhost.pid")); stop it first: bin/memhost stop"
  exit 1
fi

cfg=$state/memhost.toml
cluster=$state/pg
private=$(scripts/pg-cluster.sh url "$cluster")
url=${MEMHOST_DATABASE_URL:-}
if [ -z "$url" ] && [ -f "$cfg" ]; then
  # A database.url the operator set to another database wins over the private cluster.
  configured=$(sed -n 's/^url = "\(.*\)"$/\1/p' "$cfg" | head -n1)
  [ -n "$configured" ] && [ "$configured" != "$private" ] && url=$configured
fi

private_cluster=0
if [ -z "$url" ]; then
  say "[1/3] PostgreSQL + pgvector: the private cluster in $cluster"
  private_cluster=1
  url=$(scripts/pg-cluster.sh start "$cluster" | tail -n1)
else
  say "[1/3] PostgreSQL: using the database named by ${MEMHOST_DATABASE_URL:+MEMHOST_DATABASE_URL}${MEMHOST_DATABASE_URL:-database.url in $cfg}"
fi

listen=${MEMHOST_SERVER__LISTEN:-127.0.0.1:7420}
# The file is the operator's: written once with what make run knows, never rewritten, so edits
# (an embedder choice, another port) survive restarts. Delete it to have it written afresh.
if [ ! -f "$cfg" ]; then
  cat >"$cfg" <<TOML
# memhost configuration for this checkout. Written once by make run; edit freely, it is never
# rewritten (delete it to regenerate). bin/memhost finds it when run from the checkout.
# Every key: bin/memhost config example. MEMHOST_* environment variables override it.
[server]
listen = "$listen"

[database]
url = "$url"

[plugins]
dirs = ["$root/bin/plugins"]
TOML
  chmod 600 "$cfg"
  say "wrote $cfg"
else
  say "using $cfg (yours; not rewritten)"
fi
if [ -n "${MEMHOST_DATABASE_URL:-}" ] && ! grep -qF "$MEMHOST_DATABASE_URL" "$cfg"; then
  say "MEMHOST_DATABASE_URL overrides database.url in $cfg; set it for other bin/memhost commands too"
fi

# The private cluster is this checkout's alone (tests and benchmarks use their own), so it stops
# with the host.
stop_cluster() {
  if [ $private_cluster = 1 ]; then
    say "stopping the private cluster"
    scripts/pg-cluster.sh stop "$cluster"
  fi
}

say "[2/3] migrating the database"
if ! bin/memhost migrate --config "$cfg" >/dev/null; then
  stop_cluster
  exit 1
fi
cat >&2 <<MSG

memhost is starting (server.listen in $cfg; MCP at /mcp, REST at /api/v1).
In another terminal, from your project's directory, start a CLI with the project's memory:

  export MEMHOST_CONFIG=$cfg
  $root/bin/memhost run claude        (or codex, gemini)

or wire plain CLIs once with \`$root/bin/memhost connect claude\` (README: "Start your CLI with
the project's memory"). For agents configured by hand, create a token:

  bin/memhost token create --name my-agents --scopes memory:read,memory:write

Stop with Ctrl-C (or bin/memhost stop from another terminal).

MSG
say "[3/3] serving"
# The host runs as our child, not in our place, so that when it ends — on Ctrl-C, SIGTERM or by
# itself — this script is still here to stop the cluster. A background job ignores the
# terminal's SIGINT, so the trap passes it on as SIGTERM (the host's graceful stop).
bin/memhost serve --config "$cfg" &
host=$!
echo "$host" >"$state/memhost.pid"
trap 'kill -TERM "$host" 2>/dev/null || true' INT TERM HUP
status=0
# wait returns early when a trapped signal arrives; wait again until the host has exited.
while kill -0 "$host" 2>/dev/null; do
  wait "$host" || status=$?
done
rm -f "$state/memhost.pid"
trap - INT TERM HUP
stop_cluster
exit "$status"
