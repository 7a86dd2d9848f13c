#!/usr/bin/env bash
# dist.sh is make dist: release archives for each target (default: linux and darwin, amd64 and
# arm64), each unpacking to one folder laid out like a checkout after make build, so that
# bin/memhost up, bin/memhost plugins and plugins.dirs' default (bin/plugins) work from it:
#
#   memhost-VERSION-OS-ARCH/bin/memhost
#   memhost-VERSION-OS-ARCH/bin/plugins/memhost-<kind>-<name>   (every plugin)
#   memhost-VERSION-OS-ARCH/scripts/   (what memhost up, stop and uninstall run)
#   memhost-VERSION-OS-ARCH/README.md, LICENSE, docs/   (the README links into docs/)
#
# and dist/SHA256SUMS over the archives.
#
#   DIST_TARGETS="linux/amd64" dist.sh [OUT]   one target (the smoke test in make test)
#   dist.sh --list                            print what each archive holds besides bin/
set -euo pipefail
# payload is what each archive holds besides bin/, as paths in the checkout.
payload=(README.md LICENSE docs scripts/run.sh scripts/stop.sh scripts/uninstall.sh scripts/install-record.sh
  scripts/pg-cluster.sh scripts/pg-env.sh scripts/ensure-postgres.sh)
if [ "${1:-}" = --list ]; then
  printf '%s\n' "${payload[@]}"
  exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cd "$root"
targets=${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
VERSION=$(scripts/version.sh)
export VERSION

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
archives=()
for t in $targets; do
  os=${t%/*} arch=${t#*/}
  name=memhost-$VERSION-$os-$arch
  echo "dist: $name" >&2
  GOOS=$os GOARCH=$arch scripts/build.sh "$stage/$name/bin"
  for p in "${payload[@]}"; do
    mkdir -p "$stage/$name/$(dirname "$p")"
    cp -R "$p" "$stage/$name/$p"
  done
  # Owner and times from the commit, not from this machine: the same commit gives the same archive.
  tar -C "$stage" -czf "$out/$name.tar.gz" --owner=0 --group=0 --numeric-owner --sort=name \
    --mtime="$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" 2>/dev/null ||
    tar -C "$stage" -czf "$out/$name.tar.gz" "$name" # BSD tar (macOS) has none of GNU tar's options
  archives+=("$name.tar.gz")
done
(
  cd "$out"
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "${archives[@]}"; else shasum -a 256 "${archives[@]}"; fi
) >"$out/SHA256SUMS"
echo "dist: wrote ${archives[*]} and SHA256SUMS to $out" >&2
