#!/usr/bin/env bash
# version.sh prints the version make build and make dist stamp: $VERSION when set, else the
# nearest git tag (git describe), else 0.0.0-<commit>; -dirty when the work tree has changes.
set -euo pipefail
if [ -n "${VERSION:-}" ]; then
  echo "$VERSION"
  exit 0
fi
cd "$(dirname "$0")/.."
if v=$(git describe --tags --dirty 2>/dev/null); then
  echo "$v"
  exit 0
fi
v=0.0.0-$(git rev-parse --short HEAD 2>/dev/null || echo src)
if git rev-parse HEAD >/dev/null 2>&1 && ! git diff --quiet HEAD 2>/dev/null; then
  v=$v-dirty
fi
echo "$v"
