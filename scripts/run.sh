#!/usr/bin/env bash
# run.sh starts memhost from the checkout (make run). It provides PostgreSQL 15 + pgvector,
# starts a private cluster under ./.memhost unless MEMHOST_DATABASE_URL is set, and writes
# ./.memhost/memhost.toml once (never again: it is the operator's to edit) so that bin/memhost commands run from the checkout (token, migrate,
# plugins, status, config check) use the same database and plugins without extra flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
state=$root/.memhost
mkdir -p "$state"

if [ -z "${MEMHOST_DATABASE_URL:-}" ]; then
  url=$(scripts/pg-cluster.sh start "$state/pg" | tail -n1)
else
  url=$MEMHOST_DATABASE_URL
fi

cfg=$state/memhost.toml
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
  echo "make run: wrote $cfg"
else
  echo "make run: using $cfg (yours; not rewritten)"
fi
if [ -n "${MEMHOST_DATABASE_URL:-}" ] && ! grep -qF "$MEMHOST_DATABASE_URL" "$cfg"; then
  echo "make run: MEMHOST_DATABASE_URL overrides database.url in $cfg; set it for other bin/memhost commands too" >&2
fi
bin/memhost migrate --config "$cfg" >/dev/null
cat <<MSG

memhost is starting (server.listen in $cfg; MCP at /mcp, REST at /api/v1).
In another terminal, from your project's directory, start a CLI with the project's memory:

  export MEMHOST_CONFIG=$cfg
  $root/bin/memhost run claude        (or codex, gemini)

or wire plain CLIs once with \`$root/bin/memhost connect claude\` (README: "Start your CLI with
the project's memory"). For agents configured by hand, create a token:

  bin/memhost token create --name my-agents --scopes memory:read,memory:write

Stop with Ctrl-C.

MSG
exec bin/memhost serve --config "$cfg"
