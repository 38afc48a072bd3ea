#!/usr/bin/env bash
# npm's pretest step: the console's browser test drives Debian's chromium; install it when it is missing
# (as scripts/screenshot-report.sh does), so `npm test` alone passes on a fresh machine. Needs root or sudo.
set -euo pipefail
command -v chromium >/dev/null && exit 0
echo "installing chromium (Debian package) for the console's browser test…" >&2
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
run apt-get update -qq
run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
