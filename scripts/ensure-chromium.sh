#!/usr/bin/env bash
# ensure-chromium.sh installs Debian's chromium when no Chromium is on PATH: make e2e-console
# drives it headless (chromedp) against a real memhost serve. apt needs root, as on CI; run as
# yourself without it, the script prints the one command to run.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
  if command -v "$b" >/dev/null 2>&1; then
    exit 0
  fi
done
if [ "$(id -u)" != 0 ]; then
  echo "ensure-chromium: no chromium on PATH; install it: sudo apt-get install -y chromium" >&2
  exit 1
fi
echo "ensure-chromium: installing chromium (Debian package)" >&2
apt-get install -y -qq chromium >/dev/null 2>&1 || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
}
