#!/usr/bin/env bash
# npm's pretest step: the tools some tests drive, installed when missing so `npm test` alone passes on a fresh
# machine. The console's browser test drives Debian's chromium (as scripts/screenshot-report.sh does; needs root
# or sudo). The alert rules are checked by promtool, from Debian's prometheus package: only that one binary is
# unpacked into .cache/promtool, so no Prometheus server is installed or started.
set -euo pipefail
cd "$(dirname "$0")/.."
run() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
updated=
update_once() { [ -n "$updated" ] || { run apt-get update -qq; updated=1; }; }

if ! command -v chromium >/dev/null; then
  echo "installing chromium (Debian package) for the console's browser test…" >&2
  update_once
  run env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  command -v chromium >/dev/null
fi

promtool=.cache/promtool/usr/bin/promtool
if ! command -v promtool >/dev/null && [ ! -x "$promtool" ]; then
  echo "unpacking promtool (Debian package prometheus) for the alert rules test…" >&2
  workdir=$(mktemp -d)
  trap 'rm -rf "$workdir"' EXIT
  (cd "$workdir" && apt-get download prometheus >/dev/null 2>&1) || { update_once; (cd "$workdir" && apt-get download prometheus >/dev/null); }
  dpkg -x "$workdir"/prometheus_*.deb "$workdir/unpacked"
  mkdir -p "$(dirname "$promtool")"
  cp "$workdir/unpacked/usr/bin/promtool" "$promtool"
  "$promtool" --version >/dev/null
fi
