#!/usr/bin/env bash
# uninstall.sh is make uninstall / memhost uninstall: it removes what memhost created for this
# checkout (or unpacked archive) and prints what setup installed that it leaves, with the
# commands that remove it. Without --yes it only lists.
#
# Removed: the user service, the running host and private cluster, .memhost (configuration,
# the private cluster's data, benchmark clusters), a cluster home under /var/lib/memhost (root's
# clusters the postgres user could not reach in place), the test cluster of make test, and
# memhost's caches (tokens, the MCP tool list, the real-CLI cache of make e2e-cli).
# Left (shared with other software): PostgreSQL and pgvector, their build tools, the postgres
# user, the deb-src list, Node.js.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/scripts
# shellcheck source=scripts/pg-env.sh
. "$here/pg-env.sh"
state=${MEMHOST_STATE_DIR:-$root/.memhost}
yes=0
[ "${1:-}" = --yes ] && yes=1

case "$(uname -s)" in
Darwin) cache=$HOME/Library/Caches/memhost ;;
*) cache=${XDG_CACHE_HOME:-$HOME/.cache}/memhost ;;
esac
remove=()
for p in "$state" "$cache" "${TMPDIR:-/tmp}/memhost-test-pg-$(id -u)" "${TMPDIR:-/tmp}/memhost-cli-cache"; do
  [ -e "$p" ] && remove+=("$p")
done
for h in "$state"/*/home; do
  [ -f "$h" ] && remove+=("$(cat "$h")")
done

if [ $yes = 0 ]; then
  echo "memhost uninstall would stop memhost, remove its user service (if installed) and delete:"
  for p in "${remove[@]+"${remove[@]}"}"; do echo "  $p"; done
  echo "(the private cluster's memories go with .memhost: export projects first, bin/memhost export --project KEY)"
  echo "Run with --yes to do it: bin/memhost uninstall --yes (or make uninstall)."
else
  if [ -x "$root/bin/memhost" ]; then "$root/bin/memhost" service uninstall || true; fi
  "$here/stop.sh"
  "$here/pg-cluster.sh" stop "${TMPDIR:-/tmp}/memhost-test-pg-$(id -u)" 2>/dev/null || true
  for d in "$state"/*/; do
    [ -f "$d/data/PG_VERSION" ] || [ -f "$d/home" ] || continue
    "$here/pg-cluster.sh" stop "$d" 2>/dev/null || true
  done
  for p in "${remove[@]+"${remove[@]}"}"; do
    rm -rf "$p"
    echo "removed $p"
  done
fi

echo
echo "Left in place (other software may use them); to remove them too:"
echo "  CLIs wired with memhost connect: before uninstalling, $root/bin/memhost connect --undo claude (codex, gemini)"
pg_detect ""
if [ -n "$PG_BINDIR" ] && command -v dpkg >/dev/null 2>&1; then
  pkgs="postgresql-$PG_MAJOR"
  dpkg -s "postgresql-$PG_MAJOR-pgvector" >/dev/null 2>&1 && pkgs="$pkgs postgresql-$PG_MAJOR-pgvector"
  dpkg -s "postgresql-server-dev-$PG_MAJOR" >/dev/null 2>&1 && pkgs="$pkgs postgresql-server-dev-$PG_MAJOR"
  echo "  PostgreSQL packages:    sudo apt-get purge $pkgs   (and sudo apt-get autoremove)"
  if ! dpkg -s "postgresql-$PG_MAJOR-pgvector" >/dev/null 2>&1 && pg_has_vector "$PG_BINDIR"; then
    share=$("$PG_BINDIR/pg_config" --sharedir) lib=$("$PG_BINDIR/pg_config" --pkglibdir)
    echo "  pgvector built from source: sudo rm -rf $lib/vector.so $lib/bitcode/vector $lib/bitcode/vector.index.bc $share/extension/vector.control $share/extension/vector--*.sql $("$PG_BINDIR/pg_config" --includedir-server)/extension/vector"
  fi
  [ -f /etc/apt/sources.list.d/memhost-trixie-src.sources ] &&
    echo "  deb-src list (pgvector's source): sudo rm /etc/apt/sources.list.d/memhost-trixie-src.sources && sudo apt-get update"
  echo "  build tools for pgvector:  sudo apt-get purge build-essential dpkg-dev   (if nothing else needs them)"
  id postgres >/dev/null 2>&1 &&
    echo "  the postgres system user: removed with the packages (purge); if it stays, sudo deluser --system postgres"
  command -v node >/dev/null 2>&1 && echo "  Node.js (make test, make e2e-cli): sudo apt-get purge nodejs npm"
elif brew_prefix >/dev/null; then
  echo "  Homebrew packages: brew uninstall pgvector postgresql@${PG_MAJOR:-17}"
else
  echo "  PostgreSQL ${PG_MAJOR:-} and pgvector, if you installed them for memhost"
fi
