#!/usr/bin/env bash
# uninstall.sh is make uninstall / memhost uninstall: it removes what memhost created for this
# checkout (or unpacked archive) and prints what setup installed that it leaves, with the
# commands that remove it. Without --yes it only lists.
#
# First: CLIs wired with memhost connect start this memhost from their own settings, and only
# it can take that out again (from the backups in ~/.config/memhost/connect/): uninstall names
# them and asks for `memhost connect --undo CLI` before it removes anything (--yes refuses
# while one is connected).
# Removed: the user service, the running host and private cluster, .memhost (configuration,
# the private cluster's data, benchmark clusters), a cluster home under /var/lib/memhost (root's
# clusters the postgres user could not reach in place), the test cluster of make test,
# memhost's caches (tokens, the MCP tool list, the real-CLI cache of make e2e-cli) and connect's
# empty folder.
# Left (other software may use it): what setup installed, and only what it recorded installing
# (install-record.sh): PostgreSQL and pgvector packages, pgvector built from source, the deb-src
# list, build tools, Node.js; a PostgreSQL that was there before is never offered for removal.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
here=$root/scripts
# shellcheck source=scripts/install-record.sh
. "$here/install-record.sh"
state=${MEMHOST_STATE_DIR:-$root/.memhost}
yes=0
[ "${1:-}" = --yes ] && yes=1

case "$(uname -s)" in
Darwin) cache=$HOME/Library/Caches/memhost connect=$HOME/Library/Application\ Support/memhost/connect ;;
*) cache=${XDG_CACHE_HOME:-$HOME/.cache}/memhost connect=${XDG_CONFIG_HOME:-$HOME/.config}/memhost/connect ;;
esac
# The CLIs memhost connect wired: one folder each, with its backups and record.
connected=()
for d in "$connect"/*/; do
  [ -d "$d" ] && connected+=("$(basename "$d")")
done
if [ ${#connected[@]} -gt 0 ]; then
  echo "Before uninstalling, take memhost out of the CLIs connected to it: their settings start"
  echo "$root/bin/memhost, which uninstall removes, and only it can undo them (from its backups in $connect/):"
  for c in "${connected[@]}"; do echo "  $root/bin/memhost connect --undo $c"; done
  if [ $yes = 1 ]; then
    echo "memhost uninstall: nothing removed; still connected: ${connected[*]}. Run the commands above, then uninstall again"
    echo "(to leave them connected to a memhost that is gone, delete $connect/ first)."
    exit 1
  fi
  echo
else
  echo "No CLI is connected with memhost connect (it keeps its backups in $connect/)."
fi
remove=()
for p in "$state" "$cache" "${TMPDIR:-/tmp}/memhost-test-pg-$(id -u)" "${TMPDIR:-/tmp}/memhost-cli-cache"; do
  [ -e "$p" ] && remove+=("$p")
done
# connect's folder only once no CLI is connected: it holds the backups undo restores from.
[ ${#connected[@]} = 0 ] && [ -e "$connect" ] && remove+=("$connect")
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
echo "Left in place (other software may use it); what setup installed for memhost, and the commands that remove it:"
records=()
while read -r f; do records+=("$f"); done < <(install_records)
if [ ${#records[@]} = 0 ]; then
  echo "  nothing: setup recorded installing no PostgreSQL, pgvector, build tools or Node.js here"
  echo "  (they were here before, or were installed before memhost kept this record: if one was only"
  echo "  for memhost, remove it with your package manager)"
  exit 0
fi
apt=() brew=() files=()
while read -r kind what; do
  case "$kind" in
  apt) apt+=("$what") ;;
  brew) brew+=("$what") ;;
  file) [ -e "$what" ] && files+=("$what") ;;
  pgvector-source)
    if [ -x "$what" ]; then
      share=$("$what" --sharedir) lib=$("$what" --pkglibdir) inc=$("$what" --includedir-server)
      echo "  pgvector built from source: sudo rm -rf $lib/vector.so $lib/bitcode/vector $lib/bitcode/vector.index.bc $share/extension/vector.control $share/extension/vector--*.sql $inc/extension/vector"
    fi
    ;;
  esac
done < <(sort -u "${records[@]}")
installed=()
for p in "${apt[@]+"${apt[@]}"}"; do
  dpkg -s "$p" >/dev/null 2>&1 && installed+=("$p")
done
if [ ${#installed[@]} -gt 0 ]; then
  echo "  packages:   sudo apt-get purge ${installed[*]}   (and sudo apt-get autoremove)"
  case " ${installed[*]} " in *" postgresql-"[0-9]*) id postgres >/dev/null 2>&1 &&
    echo "  the postgres system user: removed with the packages (purge); if it stays, sudo deluser --system postgres" ;;
  esac
fi
[ ${#brew[@]} -gt 0 ] && echo "  Homebrew:   brew uninstall ${brew[*]}"
for f in "${files[@]+"${files[@]}"}"; do
  echo "  $f: sudo rm $f && sudo apt-get update"
done
echo "  the record itself: rm ${records[*]}   (sudo for /var/lib/memhost)"
