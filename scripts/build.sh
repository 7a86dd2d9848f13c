#!/usr/bin/env bash
# build.sh compiles the host and every plugin in one `go build` (the workspace lets one
# invocation span all modules, so shared packages compile once, in parallel, and Go's build
# cache serves everything unchanged), then names the binaries as plugin discovery expects:
#
#   OUT/memhost
#   OUT/plugins/memhost-<kind>-<name>
#
#   build.sh OUT              for this machine
#   GOOS=darwin GOARCH=arm64 build.sh OUT   cross-compiled (pure Go: CGO_ENABLED=0)
#
# The version, commit and date are stamped in with -ldflags -X (memhost --version):
# VERSION (default: scripts/version.sh), the commit, and the commit's date
# (or SOURCE_DATE_EPOCH), so two builds of one commit are identical.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:?usage: build.sh OUT}
mkdir -p "$out/plugins"
out=$(cd "$out" && pwd)
cd "$root"
GO=${GO:-go}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

# Each plugin directory and the binary name its kind gives it.
plugins="embed-bm25:memhost-embedder-bm25 provider-claude:memhost-provider-claude provider-codex:memhost-provider-codex
provider-gemini:memhost-provider-gemini worker-agentcli:memhost-worker-agentcli worker-openaicompat:memhost-worker-openaicompat
embed-openaicompat:memhost-embedder-openaicompat"

commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
VERSION=$(scripts/version.sh)
if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
  date=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ 2>/dev/null || date -u -r "$SOURCE_DATE_EPOCH" +%Y-%m-%dT%H:%M:%SZ)
else
  date=$(TZ=UTC git log -1 --date=format-local:%Y-%m-%dT%H:%M:%SZ --format=%cd 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)
fi
pkg=github.com/memhost/memhost/host/internal/daemon/server
ldflags="-s -w -X $pkg.Version=$VERSION -X $pkg.Commit=$commit -X $pkg.BuildDate=$date"

targets=./host/cmd/memhost
for p in $plugins; do targets="$targets ./plugins/${p%%:*}"; done
target=${GOOS:-$("$GO" env GOOS)}/${GOARCH:-$("$GO" env GOARCH)}
count=$(echo "$plugins" | wc -w | tr -d ' ')
echo "build: memhost $VERSION for $target: host and $count plugins in one go build" >&2
echo "build: (the first build downloads the modules from the Go module proxy and compiles ~600 packages; later builds reuse Go's cache)" >&2

# go build links into a staging folder kept between builds: it skips relinking a binary that is
# already up to date there (most of a warm build's time), and only changed binaries are copied.
stage=$root/bin/.stage/${target%/*}-${target#*/}
mkdir -p "$stage"
# go build -v names each package it compiles (none when the cache has them): shown one line per
# module, so a cold build says what it is doing. Anything else (compile errors) passes through.
# shellcheck disable=SC2086 # targets is a list of package paths without spaces
CGO_ENABLED=0 "$GO" build -v -trimpath -ldflags "$ldflags" -o "$stage/" $targets 2>&1 | awk '
  /^[^ :]+$/ {
    n = split($0, e, "/")
    if (e[1] !~ /\./) mod = "the Go standard library"
    else if ($0 ~ /^github\.com\/memhost\/memhost\//) mod = "memhost " e[4] (e[4] == "plugins" ? "/" e[5] : "")
    else if (e[1] ~ /^(github\.com|gitlab\.com|golang\.org|bitbucket\.org)$/) mod = e[1] "/" e[2] "/" e[3]
    else mod = e[1] "/" e[2]
    if (!(mod in seen)) { seen[mod] = 1; printf "build:   compiling %s\n", mod > "/dev/stderr" }
    next
  }
  { print > "/dev/stderr" }'
# place SRC DST: replaced by rename, never rewritten in place, so a running binary is untouched.
place() {
  cmp -s "$1" "$2" 2>/dev/null && return
  cp -p "$1" "$2.new" && mv -f "$2.new" "$2"
}
place "$stage/memhost" "$out/memhost"
for p in $plugins; do
  place "$stage/${p%%:*}" "$out/plugins/${p#*:}"
done
echo "build: wrote $out/memhost and $out/plugins/" >&2
