#!/usr/bin/env bash
# ensure-postgres.sh installs PostgreSQL 15 and pgvector when they are missing.
#
# pgvector is not packaged for Debian bookworm, so we build Debian trixie's source package
# against bookworm's postgresql-server-dev-15 (a few seconds of compile). Idempotent: a machine
# that already has both is left untouched. Must run as root (it calls apt-get).
set -euo pipefail

PG_MAJOR=${PG_MAJOR:-15}
log() { echo "ensure-postgres: $*" >&2; }

pg_bindir() { echo "/usr/lib/postgresql/${PG_MAJOR}/bin"; }
have_server() { [ -x "$(pg_bindir)/postgres" ] && [ -x "$(pg_bindir)/initdb" ]; }
have_vector() { [ -f "/usr/share/postgresql/${PG_MAJOR}/extension/vector.control" ] && [ -f "/usr/lib/postgresql/${PG_MAJOR}/lib/vector.so" ]; }

if have_server && have_vector; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  log "PostgreSQL ${PG_MAJOR} and/or pgvector are missing and installing them needs root"
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() { if [ $apt_updated = 0 ]; then apt-get update -qq; apt_updated=1; fi; }

if ! have_server; then
  log "installing postgresql-${PG_MAJOR}"
  apt_update
  apt-get install -y -qq "postgresql-${PG_MAJOR}" >/dev/null
fi

if ! have_vector; then
  log "building pgvector from Debian trixie's source package"
  src_list=/etc/apt/sources.list.d/memhost-trixie-src.sources
  if [ ! -f "$src_list" ]; then
    cat >"$src_list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt_updated=0
  fi
  apt_update
  apt-get install -y -qq "postgresql-server-dev-${PG_MAJOR}" build-essential dpkg-dev >/dev/null
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  (cd "$work" && apt-get source -qq --download-only pgvector >/dev/null 2>&1 || apt-get source --download-only pgvector)
  (cd "$work" && dpkg-source -x --no-check ./pgvector_*.dsc src >/dev/null)
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" >/dev/null
  make -s -C "$work/src" PG_CONFIG="/usr/lib/postgresql/${PG_MAJOR}/bin/pg_config" install >/dev/null
  have_vector || { log "pgvector build finished but vector.so is not installed"; exit 1; }
  log "pgvector installed"
fi
