# shellcheck shell=bash
# install-record.sh is sourced by the scripts that install system software for memhost
# (ensure-postgres.sh, ensure-node.sh) and by uninstall.sh. The installers record each thing
# they put on the machine that was not there before, so uninstall offers to remove exactly that,
# never a PostgreSQL or Node.js that was there first.
#
# One line per thing: "apt PACKAGE", "brew FORMULA", "file PATH" (a file made outside memhost's
# folders), "pgvector-source PG_CONFIG" (pgvector built from source into that server). Root's
# installs (apt) go to /var/lib/memhost/installed, a user's (Homebrew) to
# ${XDG_STATE_HOME:-~/.local/state}/memhost/installed; MEMHOST_INSTALL_RECORD names one file
# for both (tests).

# install_record_file prints where this process records.
install_record_file() {
  if [ -n "${MEMHOST_INSTALL_RECORD:-}" ]; then
    echo "$MEMHOST_INSTALL_RECORD"
  elif [ "$(id -u)" = 0 ]; then
    echo /var/lib/memhost/installed
  else
    echo "${XDG_STATE_HOME:-$HOME/.local/state}/memhost/installed"
  fi
}

# record_installed KIND WHAT records one thing (once).
record_installed() {
  local f line="$1 $2"
  f=$(install_record_file)
  mkdir -p "$(dirname "$f")"
  grep -qxF -- "$line" "$f" 2>/dev/null || echo "$line" >>"$f"
}

# apt_missing PACKAGE... prints those dpkg does not have installed now: what an install is about
# to add, to record once it did.
apt_missing() {
  local p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done
}

# install_records prints every record file there is: root's and this user's, or
# MEMHOST_INSTALL_RECORD.
install_records() {
  local f
  if [ -n "${MEMHOST_INSTALL_RECORD:-}" ]; then
    [ -f "$MEMHOST_INSTALL_RECORD" ] && echo "$MEMHOST_INSTALL_RECORD"
    return 0
  fi
  for f in /var/lib/memhost/installed "${XDG_STATE_HOME:-$HOME/.local/state}/memhost/installed"; do
    [ -f "$f" ] && echo "$f"
  done
  return 0
}
