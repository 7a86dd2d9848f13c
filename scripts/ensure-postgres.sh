#!/usr/bin/env bash
# ensure-postgres.sh makes sure a PostgreSQL server (14-18) and pgvector for it are installed.
#
# It uses what the machine has (scripts/pg-env.sh says how it looks) and otherwise installs the
# version the system offers: on Debian/Ubuntu the distribution's own postgresql-NN, with
# pgvector from postgresql-NN-pgvector where apt has it and built from source against that
# server's headers where it does not (Debian 12); on macOS Homebrew's postgresql@17 + pgvector.
# Idempotent: a machine that has both is left untouched. apt needs root; when we are not root
# the script prints the command to run and stops. What it installs that was not there before is
# recorded (install-record.sh), so uninstall offers to remove that and nothing else.
#
#   ensure-postgres.sh            install what is missing
#   ensure-postgres.sh --detect   print PG_MAJOR=.. PG_BINDIR=.. VECTOR=yes|no and change nothing
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=scripts/pg-env.sh
. "$here/pg-env.sh"
# shellcheck source=scripts/install-record.sh
. "$here/install-record.sh"
log() { echo "ensure-postgres: $*" >&2; }

pg_detect "${MEMHOST_PG_DATADIR:-}"
if [ "${1:-}" = --detect ]; then
  vec=no
  [ -n "$PG_BINDIR" ] && pg_has_vector "$PG_BINDIR" && vec=yes
  echo "PG_MAJOR=$PG_MAJOR PG_BINDIR=$PG_BINDIR VECTOR=$vec"
  exit 0
fi
if [ -n "$PG_BINDIR" ] && pg_has_vector "$PG_BINDIR"; then
  exit 0
fi
if [ -z "$PG_MAJOR" ]; then
  log "no PostgreSQL 14-18 is installed and no package manager here offers one (apt-get or Homebrew)."
  log "Install PostgreSQL 14-18 with pgvector yourself, or point memhost at a database: MEMHOST_DATABASE_URL=postgres://... make run"
  exit 1
fi
if ! pg_supported "$PG_MAJOR"; then
  log "PostgreSQL $PG_MAJOR is not supported (memhost runs on $PG_SUPPORTED)"
  exit 1
fi

# macOS (or Linux) with Homebrew and no apt: brew installs as the user, never as root.
if ! command -v apt-get >/dev/null 2>&1; then
  if brew_prefix >/dev/null; then
    if [ "$(id -u)" = 0 ]; then
      log "Homebrew does not run as root; run make run as your own user"
      exit 1
    fi
    log "installing postgresql@$PG_MAJOR and pgvector with Homebrew (brew install postgresql@$PG_MAJOR pgvector)"
    formulas=()
    for f in "postgresql@$PG_MAJOR" pgvector; do brew list --versions "$f" >/dev/null 2>&1 || formulas+=("$f"); done
    brew install "postgresql@$PG_MAJOR" pgvector
    for f in "${formulas[@]+"${formulas[@]}"}"; do record_installed brew "$f"; done
    PG_BINDIR=$(pg_bindir_for "$PG_MAJOR") || { log "brew installed postgresql@$PG_MAJOR but its bin directory is not where expected"; exit 1; }
    pg_has_vector "$PG_BINDIR" || {
      log "Homebrew's pgvector is not built for postgresql@$PG_MAJOR (its formula builds for postgresql@17 and @18);"
      log "run: PG_MAJOR=17 make run   (after brew install postgresql@17)"
      exit 1
    }
    exit 0
  fi
  log "PostgreSQL $PG_MAJOR + pgvector are missing and neither apt-get nor Homebrew is here to install them"
  exit 1
fi

if [ "$(id -u)" != 0 ]; then
  missing="pgvector for PostgreSQL $PG_MAJOR"
  [ -z "$PG_BINDIR" ] && missing="PostgreSQL $PG_MAJOR and pgvector"
  log "$missing: not installed, and installing needs root. Run once:"
  log "  $(pg_install_hint "$PG_MAJOR")"
  log "then make run again as yourself (the cluster runs as you, in ./.memhost)."
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt_updated=0
apt_update() { if [ $apt_updated = 0 ]; then log "apt-get update"; apt-get update -qq; apt_updated=1; fi; }

if [ -z "$PG_BINDIR" ]; then
  log "installing postgresql-$PG_MAJOR (apt)"
  apt_update
  new=$(apt_missing "postgresql-$PG_MAJOR")
  apt-get install -y -qq "postgresql-$PG_MAJOR" >/dev/null
  for p in $new; do record_installed apt "$p"; done
  PG_BINDIR=$(pg_bindir_for "$PG_MAJOR") || { log "postgresql-$PG_MAJOR installed but $pg_libroot/$PG_MAJOR/bin has no server"; exit 1; }
fi
pg_has_vector "$PG_BINDIR" && exit 0

if apt-cache show "postgresql-$PG_MAJOR-pgvector" >/dev/null 2>&1 || { apt_update; apt-cache show "postgresql-$PG_MAJOR-pgvector" >/dev/null 2>&1; }; then
  log "installing postgresql-$PG_MAJOR-pgvector (apt)"
  apt_update
  new=$(apt_missing "postgresql-$PG_MAJOR-pgvector")
  apt-get install -y -qq "postgresql-$PG_MAJOR-pgvector" >/dev/null
  for p in $new; do record_installed apt "$p"; done
else
  # Debian 12 packages no pgvector: build Debian trixie's source package against this server's
  # headers (a few seconds of compile). The deb-src list stays for the next build; README,
  # "Uninstall", says how to remove it.
  log "building pgvector from Debian trixie's source package against postgresql-server-dev-$PG_MAJOR"
  src_list=/etc/apt/sources.list.d/memhost-trixie-src.sources
  if [ ! -f "$src_list" ]; then
    cat >"$src_list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    record_installed file "$src_list"
    apt_updated=0
  fi
  apt_update
  new=$(apt_missing "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev)
  apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev >/dev/null
  for p in $new; do record_installed apt "$p"; done
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  # Quiet when it works; on failure, again with its output for the log.
  if ! (cd "$work" && apt-get source -qq --download-only pgvector >/dev/null 2>&1); then
    (cd "$work" && apt-get source --download-only pgvector)
  fi
  (cd "$work" && dpkg-source -x --no-check ./pgvector_*.dsc src >/dev/null)
  make -s -C "$work/src" PG_CONFIG="$PG_BINDIR/pg_config" >/dev/null
  make -s -C "$work/src" PG_CONFIG="$PG_BINDIR/pg_config" install >/dev/null
  record_installed pgvector-source "$PG_BINDIR/pg_config"
fi
pg_has_vector "$PG_BINDIR" || { log "pgvector installation finished but vector is not installed for PostgreSQL $PG_MAJOR"; exit 1; }
log "pgvector installed for PostgreSQL $PG_MAJOR"
