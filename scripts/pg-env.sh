# shellcheck shell=bash disable=SC2034 # PG_MAJOR and PG_BINDIR are this library's results
# pg-env.sh is sourced by ensure-postgres.sh and pg-cluster.sh: it finds the PostgreSQL server
# (14-18) this machine has or offers, and knows how each platform installs it and pgvector.
#
# pg_detect [DATADIR] sets
#   PG_MAJOR   the major version to use ("" when none is installed or offered)
#   PG_BINDIR  its bin directory (postgres, initdb, pg_ctl, pg_config), "" when not installed
# In order: PG_CONFIG (a pg_config to use), PG_MAJOR (a major to use), DATADIR's PG_VERSION (a
# cluster runs only on the major that made it), pg_config on PATH, the highest major installed
# under Debian's /usr/lib/postgresql or Homebrew's opt/postgresql@NN, then what the package
# manager offers (Debian/Ubuntu's default `postgresql` package; Homebrew: postgresql@17, which
# its pgvector formula is built for).
#
# MEMHOST_PG_LIBROOT replaces /usr/lib/postgresql (tests point it at scratch directories).

PG_SUPPORTED="18 17 16 15 14"
pg_libroot=${MEMHOST_PG_LIBROOT:-/usr/lib/postgresql}

pg_supported() {
  case " $PG_SUPPORTED " in *" $1 "*) return 0 ;; esac
  return 1
}

# pg_config_major PG_CONFIG prints the major version a pg_config reports.
pg_config_major() { "$1" --version 2>/dev/null | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p'; }

pg_server_in() { [ -n "$1" ] && [ -x "$1/postgres" ] && [ -x "$1/initdb" ] && [ -x "$1/pg_ctl" ]; }

brew_prefix() {
  command -v brew >/dev/null 2>&1 || return 1
  brew --prefix 2>/dev/null
}

# pg_bindir_for MAJOR prints the bin directory of an installed server of that major.
pg_bindir_for() {
  local m=$1 d p
  if command -v pg_config >/dev/null 2>&1 && [ "$(pg_config_major pg_config)" = "$m" ]; then
    d=$(pg_config --bindir 2>/dev/null)
    pg_server_in "$d" && { echo "$d"; return 0; }
  fi
  d=$pg_libroot/$m/bin
  pg_server_in "$d" && { echo "$d"; return 0; }
  if p=$(brew_prefix); then
    d=$p/opt/postgresql@$m/bin
    pg_server_in "$d" && { echo "$d"; return 0; }
  fi
  return 1
}

# pg_offered prints the major the package manager would install.
pg_offered() {
  if command -v apt-cache >/dev/null 2>&1; then
    # The distribution's default: the `postgresql` metapackage depends on postgresql-NN.
    local m
    m=$(apt-cache depends postgresql 2>/dev/null | sed -n 's/^ *Depends: postgresql-\([0-9][0-9]*\)$/\1/p' | head -n1)
    if [ -n "$m" ] && pg_supported "$m"; then echo "$m"; return 0; fi
    return 1
  fi
  if brew_prefix >/dev/null; then echo 17; return 0; fi
  return 1
}

pg_detect() {
  local datadir=${1:-} m
  PG_BINDIR=
  if [ -n "${PG_CONFIG:-}" ]; then
    PG_MAJOR=$(pg_config_major "$PG_CONFIG")
    PG_BINDIR=$("$PG_CONFIG" --bindir)
    return 0
  fi
  if [ -z "${PG_MAJOR:-}" ] && [ -n "$datadir" ] && [ -f "$datadir/PG_VERSION" ]; then
    PG_MAJOR=$(cat "$datadir/PG_VERSION")
  fi
  if [ -n "${PG_MAJOR:-}" ]; then
    PG_BINDIR=$(pg_bindir_for "$PG_MAJOR") || PG_BINDIR=
    return 0
  fi
  if command -v pg_config >/dev/null 2>&1; then
    m=$(pg_config_major pg_config)
    if pg_supported "$m" && pg_server_in "$(pg_config --bindir 2>/dev/null)"; then
      PG_MAJOR=$m PG_BINDIR=$(pg_config --bindir)
      return 0
    fi
  fi
  for m in $PG_SUPPORTED; do
    if PG_BINDIR=$(pg_bindir_for "$m"); then PG_MAJOR=$m; return 0; fi
  done
  PG_BINDIR=
  PG_MAJOR=$(pg_offered) || PG_MAJOR=
}

# pg_has_vector BINDIR: pgvector is installed for that server (vector.so; vector.dylib on macOS
# from PostgreSQL 16).
pg_has_vector() {
  local cfg=$1/pg_config share lib
  [ -x "$cfg" ] || return 1
  share=$("$cfg" --sharedir) lib=$("$cfg" --pkglibdir)
  [ -f "$share/extension/vector.control" ] && { [ -f "$lib/vector.so" ] || [ -f "$lib/vector.dylib" ]; }
}

# pg_install_hint MAJOR prints the command that installs what is missing, for the user to run.
pg_install_hint() {
  local m=$1 here
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  if brew_prefix >/dev/null; then
    echo "brew install postgresql@$m pgvector"
  else
    echo "sudo $here/ensure-postgres.sh${m:+ (installs postgresql-$m and pgvector: postgresql-$m-pgvector where apt has it, else built from source)}"
  fi
}

# as_user USER CMD... runs CMD as USER (root only): runuser where util-linux has it, else su.
as_user() {
  local u=$1
  shift
  if command -v runuser >/dev/null 2>&1; then
    runuser -u "$u" -- "$@"
  else
    # shellcheck disable=SC2016 # expanded by the user's shell, not ours
    su "$u" -s /bin/sh -c '"$0" "$@"' -- "$@"
  fi
}

# ram_kb prints the machine's memory in kB: /proc/meminfo on Linux, sysctl hw.memsize on macOS
# and the BSDs, 4 GB when neither answers.
ram_kb() {
  local b
  if [ -r /proc/meminfo ]; then
    awk '/^MemTotal:/ {print $2}' /proc/meminfo
  elif b=$(sysctl -n hw.memsize 2>/dev/null || sysctl -n hw.physmem 2>/dev/null) && [ -n "$b" ]; then
    echo $((b / 1024))
  else
    echo 4194304
  fi
}
