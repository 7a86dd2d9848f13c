#!/usr/bin/env bash
# ensure-node.sh installs Node.js and npm from Debian's packages when they are missing: the Node
# example plugin (sdk/examples/embed-node) and the real-CLI tests (make e2e-cli) need them.
set -euo pipefail
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  exit 0
fi
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/install-record.sh
. "$here/install-record.sh"
echo "ensure-node: installing Node.js and npm (Debian packages)" >&2
apt-get update -qq
new=$(apt_missing nodejs npm)
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null
# Recorded, so uninstall offers to remove them, and only them.
for p in $new; do record_installed apt "$p"; done
