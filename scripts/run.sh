#!/usr/bin/env bash
# run.sh starts memhost from the checkout (make run). It provides PostgreSQL 15 + pgvector,
# starts a private cluster under ./.memhost unless MEMHOST_DATABASE_URL is set, and writes
# ./.memhost/memhost.toml so that bin/memhost commands run from the checkout (token, migrate,
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
cat >"$cfg" <<TOML
# Written by make run. bin/memhost finds this file when run from the checkout.
[database]
url = "$url"

[plugins]
dirs = ["$root/bin/plugins"]
TOML
chmod 600 "$cfg"

bin/memhost migrate >/dev/null
cat <<MSG

memhost is starting on http://${MEMHOST_SERVER__LISTEN:-127.0.0.1:7420} (MCP at /mcp, REST at /api/v1).
Create a token for your agents, in another terminal from this directory:

  bin/memhost token create --name my-agents --scopes memory:read,memory:write

Then connect a CLI (README: "Connect your CLI"). Stop with Ctrl-C.

MSG
exec bin/memhost serve --config "$cfg"
