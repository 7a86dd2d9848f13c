#!/usr/bin/env bash
# test-scripts.sh tests the setup scripts' branches this machine can run (part of make test):
#   - PostgreSQL detection: a pg_config on PATH, a cluster's own major, Debian's
#     /usr/lib/postgresql, what apt offers, Homebrew (stand-in brew), with stand-in servers;
#   - a normal user (nobody, when we are root) with PostgreSQL installed: no root needed, a
#     cluster in its own folder on a unix socket, no parent directory changed; one without
#     PostgreSQL told the exact command to run;
#   - make dist for linux/amd64, unpacked into a clean folder: --version stamped, every
#     bundled plugin listed; from there, as that user, memhost up serves; Ctrl-C (SIGINT to the
#     process group, as a terminal sends it) and memhost stop leave no process and the cluster
#     stopped; memhost up with MEMHOST_DATABASE_URL uses that database and starts no cluster;
#   - uninstall removes what memhost created;
#   - the test cluster's leases: make test stops the cluster it started on success, failure
#     and Ctrl-C, never one another run still uses or one that was running before it;
#   - shellcheck over scripts/.
# Everything runs in scratch folders, on its own sockets and port: nothing shared is touched.
# The normal user gets a TMPDIR of its own in scratch (plugins make their sockets there).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
GO=${GO:-go}
fails=0
t0=$SECONDS
# section NAME: says what runs next and how long the tests have run.
section() { echo "-- $1 (at $((SECONDS - t0))s)"; }
pass() { echo "ok   $1"; }
fail() { echo "FAIL $1: $2" >&2; fails=$((fails + 1)); }
check() { # check NAME WHY-IF-NOT COMMAND...
  local name=$1 why=$2
  shift 2
  if "$@"; then pass "$name"; else fail "$name" "$why"; fi
}
expect() { # expect NAME WANT GOT
  case "$3" in *"$2"*) pass "$1" ;; *) fail "$1" "want [$2] in [$3]" ;; esac
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/memhost-scripts-test.XXXXXX")
chmod 755 "$scratch"
cleanup() {
  # Whatever a failed case left running in scratch is stopped here.
  for d in "$scratch"/app/*/.memhost/pg "$scratch"/cluster; do
    [ -f "$d/data/postmaster.pid" ] && as_user "$root/scripts/pg-cluster.sh" stop "$d" >/dev/null 2>&1
  done
  rm -rf "$scratch"
}
trap cleanup EXIT

# The normal user: ourselves, or nobody when we are root (setpriv: util-linux, Debian's base).
# Its TMPDIR is its own: ours (a make test run with TMPDIR=/some/root-only/folder) may be closed
# to it, and plugins make their sockets there.
mkdir -p "$scratch/home" "$scratch/usertmp"
if [ "$(id -u)" = 0 ]; then
  user=nobody
  # The scratch folder is the user's, as a checkout is (clusters lock beside their folder).
  chown nobody "$scratch" "$scratch/home" "$scratch/usertmp"
  user_cmd=(setpriv "--reuid=$(id -u nobody)" "--regid=$(id -g nobody)" --clear-groups env "HOME=$scratch/home" "TMPDIR=$scratch/usertmp")
else
  user=$(id -un)
  user_cmd=(env "HOME=$scratch/home" "TMPDIR=$scratch/usertmp")
fi
as_user() { "${user_cmd[@]}" "$@"; }
# mine DIR: DIR belongs to the normal user.
mine() { mkdir -p "$1"; [ "$user" != nobody ] || chown -R nobody "$1"; }

# A stand-in PostgreSQL: bin/{postgres,initdb,pg_ctl,pg_config} reporting MAJOR, with pgvector
# when VECTOR=yes.
fake_pg() { # fake_pg DIR MAJOR VECTOR
  local d=$1 m=$2
  mkdir -p "$d/bin" "$d/share/extension" "$d/lib"
  for b in postgres initdb pg_ctl; do printf '#!/bin/sh\nexit 0\n' >"$d/bin/$b"; done
  cat >"$d/bin/pg_config" <<SH
#!/bin/sh
case "\$1" in
--version) echo "PostgreSQL $m.2" ;;
--bindir) echo "$d/bin" ;;
--sharedir) echo "$d/share" ;;
--pkglibdir) echo "$d/lib" ;;
esac
SH
  chmod +x "$d/bin/"*
  if [ "$3" = yes ]; then touch "$d/share/extension/vector.control" "$d/lib/vector.so"; fi
}
# A PATH holding only the tools the scripts use, so the machine's own PostgreSQL, apt and
# brew are out of sight; stand-ins are added to it per case.
sandbox=$scratch/sandbox
mkdir -p "$sandbox"
for t in bash sh env sed awk head cat id dirname uname grep cut mkdir touch rm ls sort tr chmod; do
  ln -s "$(command -v "$t")" "$sandbox/$t"
done
detect() { env -i PATH="$1" HOME="$scratch/home" "${@:2}" "$root/scripts/ensure-postgres.sh" --detect; }

section "PostgreSQL detection"
# --- detection --------------------------------------------------------------------------
fake_pg "$scratch/pg16" 16 yes
mkdir -p "$scratch/pathpg" && ln -s "$scratch/pg16/bin/pg_config" "$scratch/pathpg/pg_config"
expect "detect: pg_config on PATH" "PG_MAJOR=16 PG_BINDIR=$scratch/pg16/bin VECTOR=yes" \
  "$(detect "$scratch/pathpg:$sandbox" MEMHOST_PG_LIBROOT="$scratch/none")"

libroot=$scratch/libroot
fake_pg "$libroot/14" 14 yes
fake_pg "$libroot/17" 17 no
expect "detect: the highest major under /usr/lib/postgresql" "PG_MAJOR=17 PG_BINDIR=$libroot/17/bin VECTOR=no" \
  "$(detect "$sandbox" MEMHOST_PG_LIBROOT="$libroot")"
mkdir -p "$scratch/data14" && echo 14 >"$scratch/data14/PG_VERSION"
expect "detect: a cluster keeps the major that made it" "PG_MAJOR=14 PG_BINDIR=$libroot/14/bin VECTOR=yes" \
  "$(detect "$scratch/pathpg:$sandbox" MEMHOST_PG_LIBROOT="$libroot" MEMHOST_PG_DATADIR="$scratch/data14")"
expect "detect: PG_MAJOR chooses" "PG_MAJOR=17 PG_BINDIR=$libroot/17/bin" \
  "$(detect "$scratch/pathpg:$sandbox" MEMHOST_PG_LIBROOT="$libroot" PG_MAJOR=17)"

mkdir -p "$scratch/apt"
cat >"$scratch/apt/apt-cache" <<'SH'
#!/bin/sh
if [ "$1 $2" = "depends postgresql" ]; then
  printf 'postgresql\n  Depends: postgresql-17\n  Depends: postgresql-common\n'
fi
SH
printf '#!/bin/sh\necho "apt-get $*" >>%s/apt.log\n' "$scratch" >"$scratch/apt/apt-get"
chmod +x "$scratch/apt/"*
expect "detect: the major apt offers when none is installed" "PG_MAJOR=17 PG_BINDIR= VECTOR=no" \
  "$(detect "$scratch/apt:$sandbox" MEMHOST_PG_LIBROOT="$scratch/none")"
# Not root, nothing installed: the exact command, and apt never called.
if out=$(as_user env -i PATH="$scratch/apt:$sandbox" HOME="$scratch/home" MEMHOST_PG_LIBROOT="$scratch/none" \
  "$root/scripts/ensure-postgres.sh" 2>&1); then
  fail "non-root without PostgreSQL" "exit 0"
fi
expect "non-root without PostgreSQL: says the command" "PostgreSQL 17 and pgvector: not installed, and installing needs root. Run once:
ensure-postgres:   sudo $root/scripts/ensure-postgres.sh (installs postgresql-17 and pgvector" "$out"
check "non-root without PostgreSQL: apt-get not run" "apt-get ran" test ! -e "$scratch/apt.log"

# Homebrew (macOS): brew --prefix finds keg-only postgresql@NN; brew install is run as the
# user when missing, and its result is checked.
brewp=$scratch/brew
mine "$brewp"
mkdir -p "$scratch/brewbin"
declare -f fake_pg >"$scratch/fakepg.sh"
cat >"$scratch/brewbin/brew" <<SH
#!/usr/bin/env bash
case "\$1" in
--prefix) echo "$brewp" ;;
install) echo "brew \$*" >>"$brewp/brew.log"; . "$scratch/fakepg.sh"; fake_pg "$brewp/opt/postgresql@17" 17 yes ;;
esac
SH
chmod +x "$scratch/brewbin/brew"
expect "detect: Homebrew offers postgresql@17" "PG_MAJOR=17 PG_BINDIR= VECTOR=no" \
  "$(detect "$scratch/brewbin:$sandbox" MEMHOST_PG_LIBROOT="$scratch/none")"
out=$(as_user env -i PATH="$scratch/brewbin:$sandbox" HOME="$scratch/home" MEMHOST_PG_LIBROOT="$scratch/none" \
  "$root/scripts/ensure-postgres.sh" 2>&1) || fail "brew install" "$out"
expect "Homebrew: installs postgresql@17 and pgvector as the user" "brew install postgresql@17 pgvector" "$(cat "$brewp/brew.log" 2>/dev/null)"
expect "detect: Homebrew's keg-only postgresql@17" "PG_MAJOR=17 PG_BINDIR=$brewp/opt/postgresql@17/bin VECTOR=yes" \
  "$(detect "$scratch/brewbin:$sandbox" MEMHOST_PG_LIBROOT="$scratch/none")"

# --- a normal user's cluster with the machine's PostgreSQL -------------------------------
section "$user's cluster"
# shellcheck disable=SC2012 # two known paths; ls -ld is the portable way to read mode and owner
parent_modes() { ls -ld "$scratch" "$(dirname "$scratch")" | awk '{print $1, $3}'; }
before=$(parent_modes)
mine "$scratch/cluster"
chmod 700 "$scratch/cluster"
url=$(as_user env MEMHOST_PG_DB=memhost "$root/scripts/pg-cluster.sh" start "$scratch/cluster" | tail -n1)
expect "$user's cluster: on a unix socket in its folder, as $user" "postgres:///memhost?host=$scratch/cluster/run&user=$user" "$url"
bindir=$(env MEMHOST_PG_DATADIR="$scratch/cluster/data" "$root/scripts/ensure-postgres.sh" --detect | sed 's/.*PG_BINDIR=\([^ ]*\).*/\1/')
expect "$user's cluster: pgvector created" "vector" \
  "$(as_user "$bindir/psql" "$url" -Atqc "select extname from pg_extension where extname = 'vector'")"
expect "$user's cluster: the server runs as $user" "$user" \
  "$(as_user "$bindir/psql" "$url" -Atqc "select current_user")"
check "$user's cluster: no parent directory changed" "$before -> $(parent_modes)" test "$(parent_modes)" = "$before"
as_user "$root/scripts/pg-cluster.sh" stop "$scratch/cluster"
check "$user's cluster: stopped" "postmaster.pid remains" test ! -f "$scratch/cluster/data/postmaster.pid"

# --- make dist, unpacked into a clean folder ---------------------------------------------
section "make dist for linux/$("$GO" env GOARCH) (builds the host and every plugin)"
dist_t0=$SECONDS
DIST_TARGETS=linux/$("$GO" env GOARCH) VERSION=9.8.7-test GO=$GO scripts/dist.sh "$scratch/dist" 2>/dev/null
echo "     (make dist for one target: $((SECONDS - dist_t0))s)"
sums_ok() { (cd "$scratch/dist" && sha256sum -c SHA256SUMS >/dev/null); }
check "dist: SHA256SUMS" "SHA256SUMS does not match" sums_ok
app=$scratch/app
mkdir -p "$app"
tar -C "$app" -xzf "$scratch"/dist/memhost-9.8.7-test-linux-*.tar.gz
app=$(echo "$app"/memhost-9.8.7-test-linux-*)
mine "$scratch/app"
for f in README.md LICENSE bin/memhost scripts/run.sh; do
  [ -e "$app/$f" ] || fail "dist: layout" "$f missing"
done
expect "dist: --version stamped" "memhost 9.8.7-test (commit $(git rev-parse HEAD), built 20" "$(cd "$app" && as_user bin/memhost --version)"
expect "dist: version command" "memhost 9.8.7-test" "$(cd "$app" && as_user bin/memhost version)"
plugins=$(cd "$app" && as_user env MEMHOST_SERVER__LISTEN=127.0.0.1:1 bin/memhost plugins 2>&1)
for p in "embedder  bm25-v1-384" "embedder  openaicompat" "provider  claude" "provider  codex" "provider  gemini" "worker    agentcli" "worker    openaicompat"; do
  expect "dist: plugins lists $p" "$p" "$plugins"
done

# A TMPDIR the user cannot write: plugins cannot make their sockets, and the table says so
# (not go-plugin's "Unrecognized remote plugin message").
mkdir -p "$scratch/closed"
chmod 555 "$scratch/closed"
plugins=$(cd "$app" && as_user env TMPDIR="$scratch/closed" MEMHOST_SERVER__LISTEN=127.0.0.1:1 bin/memhost plugins 2>&1)
expect "an unwritable TMPDIR is named" "TMPDIR=$scratch/closed is not writable by this user" "$plugins"

# --- memhost up, Ctrl-C, memhost stop, an existing database -------------------------------
section "memhost up, Ctrl-C, memhost stop, an existing database"
# port: a free port, different for two runs started in the same second (awk's srand() seeds
# with the time in seconds, and two make test at once collided: one run's `memhost stop` found
# the other's host answering on its port).
port() {
  local p
  while :; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 20000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return; }
  done
}
wait_ready() { # wait_ready LISTEN LOG
  local i=0
  until curl -fsS "http://$1/readyz" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -gt 600 ] && { echo "--- $2" >&2; tail -20 "$2" >&2; return 1; }
    sleep 0.1
  done
}
# shellcheck disable=SC2009 # a fixed-string match on whole command lines, which pgrep -f takes as a regex
leftovers() { ps -eo pid=,args= | grep -F "$app" | grep -v grep || true; }

listen=127.0.0.1:$(port)
( cd "$app" && exec setsid "${user_cmd[@]}" MEMHOST_SERVER__LISTEN="$listen" bin/memhost up ) >"$scratch/up1.log" 2>&1 &
up=$!
if wait_ready "$listen" "$scratch/up1.log"; then
  pass "up: serves from the unpacked archive as $user"
  expect "up: says what it does" "[1/3] PostgreSQL + pgvector: the private cluster" "$(cat "$scratch/up1.log")"
  kill -INT -- "-$up"
  wait "$up" || true
  check "Ctrl-C: no process left" "$(leftovers)" test -z "$(leftovers)"
  check "Ctrl-C: the cluster is stopped" "cluster running" test ! -f "$app/.memhost/pg/data/postmaster.pid"
else
  fail "up" "no answer at $listen"
  kill -- "-$up" 2>/dev/null || true
fi

( cd "$app" && exec setsid "${user_cmd[@]}" MEMHOST_SERVER__LISTEN="$listen" bin/memhost up ) >"$scratch/up2.log" 2>&1 &
up=$!
if wait_ready "$listen" "$scratch/up2.log"; then
  out=$(cd "$app" && as_user bin/memhost stop 2>&1)
  expect "stop: says what it stops" "stopping the host" "$out"
  wait "$up" || true
  check "memhost stop: no process left" "$(leftovers)" test -z "$(leftovers)"
  check "memhost stop: the cluster is stopped" "cluster running" test ! -f "$app/.memhost/pg/data/postmaster.pid"
else
  fail "up (2)" "no answer at $listen"
  kill -- "-$up" 2>/dev/null || true
fi

# An existing database: the user's own cluster from above, named by URL.
as_user env MEMHOST_PG_DB=elsewhere "$root/scripts/pg-cluster.sh" start "$scratch/cluster" >/dev/null
ext_url=$(as_user env MEMHOST_PG_DB=elsewhere "$root/scripts/pg-cluster.sh" url "$scratch/cluster")
mine "$scratch/app-ext"
( cd "$app" && exec setsid "${user_cmd[@]}" MEMHOST_STATE_DIR="$scratch/app-ext" MEMHOST_DATABASE_URL="$ext_url" MEMHOST_SERVER__LISTEN="$listen" bin/memhost up ) >"$scratch/up3.log" 2>&1 &
up=$!
if wait_ready "$listen" "$scratch/up3.log"; then
  expect "existing database: used" "[1/3] PostgreSQL: using the database named by MEMHOST_DATABASE_URL" "$(cat "$scratch/up3.log")"
  check "existing database: no private cluster" "a cluster was made" test ! -d "$scratch/app-ext/pg"
  expect "existing database: migrated" "t" "$(as_user "$bindir/psql" "$ext_url" -Atqc "select to_regclass('public.memories') is not null")"
  kill -INT -- "-$up"
  wait "$up" || true
else
  fail "up (existing database)" "no answer at $listen"
  kill -- "-$up" 2>/dev/null || true
fi
as_user "$root/scripts/pg-cluster.sh" stop "$scratch/cluster"

# --- uninstall ----------------------------------------------------------------------------
section "uninstall"
mine "$scratch/tmp"
out=$(cd "$app" && as_user env TMPDIR="$scratch/tmp" bin/memhost uninstall 2>&1)
expect "uninstall: lists first" "$app/.memhost" "$out"
check "uninstall: without --yes nothing removed" "removed without --yes" test -d "$app/.memhost"
out=$(cd "$app" && as_user env TMPDIR="$scratch/tmp" bin/memhost uninstall --yes 2>&1)
expect "uninstall --yes: removes .memhost" "removed $app/.memhost" "$out"
expect "uninstall: says what it leaves" "Left in place" "$out"
check "uninstall --yes: .memhost gone" ".memhost remains" test ! -d "$app/.memhost"

# --- the test cluster's leases (make test) ------------------------------------------------
section "the test cluster's leases"
lc=$scratch/leased
mine "$lc"
running() { [ -f "$lc/data/postmaster.pid" ] || { [ -f "$lc/home" ] && [ -f "$(cat "$lc/home")/data/postmaster.pid" ]; }; }
# Two runs at once (two sleeps stand in for two make test): the first one out leaves the
# cluster to the second, the last one out stops it.
sleep 600 & run_a=$!
sleep 600 & run_b=$!
as_user "$root/scripts/pg-cluster.sh" acquire "$lc" $run_a >/dev/null
as_user "$root/scripts/pg-cluster.sh" acquire "$lc" $run_b >/dev/null
as_user "$root/scripts/pg-cluster.sh" release "$lc" $run_a
check "leases: the first run out leaves the cluster to the other" "stopped under a live lease" running
as_user "$root/scripts/pg-cluster.sh" release "$lc" $run_b 2>/dev/null
check "leases: the last run out stops the cluster a run started" "still running" test ! -f "$lc/data/postmaster.pid"
# A run killed with -9 holds nothing: the next run's release stops the cluster.
as_user "$root/scripts/pg-cluster.sh" acquire "$lc" $run_a >/dev/null
kill $run_a; wait $run_a 2>/dev/null || true
as_user "$root/scripts/pg-cluster.sh" acquire "$lc" $run_b >/dev/null
as_user "$root/scripts/pg-cluster.sh" release "$lc" $run_b 2>/dev/null
check "leases: a dead run's lease counts for nothing" "still running" test ! -f "$lc/data/postmaster.pid"
# A cluster running before the run (make run, a developer's go test) is left running.
as_user "$root/scripts/pg-cluster.sh" start "$lc" >/dev/null
as_user "$root/scripts/pg-cluster.sh" acquire "$lc" $run_b >/dev/null
as_user "$root/scripts/pg-cluster.sh" release "$lc" $run_b 2>/dev/null
check "leases: a cluster that was running before is left running" "stopped" running
as_user "$root/scripts/pg-cluster.sh" stop "$lc"
kill $run_b; wait $run_b 2>/dev/null || true

# make test itself ends its lease on failure and on Ctrl-C: a stand-in go whose vet fails, or
# hangs until the run is interrupted.
mkdir -p "$scratch/fakego" "$scratch/mt-tmp"
mine "$scratch/mt-tmp"
cat >"$scratch/fakego/go" <<'SH'
#!/bin/sh
[ "$1" = vet ] || exit 0
[ "${FAKE_VET:-}" = hang ] && exec sleep 600
echo "vet: a finding" >&2
exit 1
SH
chmod +x "$scratch/fakego/go"
mt_cluster=$scratch/mt-tmp/memhost-test-pg-$(as_user id -u)
mt() { as_user env -u TEST_DATABASE_URL TMPDIR="$scratch/mt-tmp" GO="$scratch/fakego/go" MEMHOST_TEST_TICK=1 "$@"; }
out=$(mt "$root/scripts/test.sh" 2>&1) && fail "make test with a failing vet" "exit 0"
expect "make test: says what runs, with its time" "== go vet ./... (sdk): FAILED (" "$out"
expect "make test: a failed run stops the cluster it started" "stopped the test cluster in $mt_cluster" "$out"
check "make test: nothing left running after a failure" "cluster running" test ! -f "$mt_cluster/data/postmaster.pid"
# --default-signal=INT: a job started with & in a script ignores SIGINT, and a shell cannot
# trap a signal ignored on entry; a terminal's make test does not ignore it.
( mt setsid env --default-signal=INT FAKE_VET=hang "$root/scripts/test.sh" >"$scratch/mt.log" 2>&1 ) &
mt_job=$!
i=0
until grep -q "still running" "$scratch/mt.log" 2>/dev/null && grep -q "pid [0-9]" "$scratch/mt.log"; do
  i=$((i + 1)); [ $i -gt 600 ] && break
  sleep 0.1
done
expect "make test: a silent step is named again while it runs" "... go vet ./... (sdk): still running (" "$(cat "$scratch/mt.log")"
check "make test: the cluster runs during the run" "not running" test -f "$mt_cluster/data/postmaster.pid"
# Ctrl-C: SIGINT to the run's process group, as a terminal sends it.
# setsid made the run a process group of its own, led by test.sh, which names its pid.
mt_pid=$(sed -n 's/.*leased by this run, pid \([0-9]*\).*/\1/p' "$scratch/mt.log")
if [ -n "$mt_pid" ] && kill -INT -- "-$mt_pid"; then
  wait $mt_job || true
else
  fail "make test: Ctrl-C" "no pid in $(cat "$scratch/mt.log")"
fi
check "make test: Ctrl-C stops the cluster it started" "$(tail -3 "$scratch/mt.log")" test ! -f "$mt_cluster/data/postmaster.pid"
lines=$(wc -l <"$scratch/mt.log")
sleep 2.5
check "make test: Ctrl-C leaves no ticker printing" "$(tail -2 "$scratch/mt.log")" test "$(wc -l <"$scratch/mt.log")" = "$lines"

# --- shellcheck ---------------------------------------------------------------------------
section "shellcheck"
if command -v shellcheck >/dev/null 2>&1; then
  if shellcheck -x scripts/*.sh .ci/run; then pass "shellcheck scripts/"; else fail "shellcheck" "findings above"; fi
else
  fail "shellcheck" "not installed (apt-get install shellcheck; make test installs it as root)"
fi

echo "test-scripts: $fails failure(s)"
[ $fails = 0 ]
