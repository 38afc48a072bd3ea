#!/usr/bin/env bash
# Renders a report's HTML in headless Chromium and saves a PNG, to check what a finance reader sees.
#   scripts/screenshot-report.sh REPORT.html [OUT.png]
# Get the HTML with `npm run --silent tally -- report daily --date YYYY-MM-DD --format html --out REPORT.html`
# or from GET /api/reports/<id>.html. Installs Debian's chromium when it is missing (needs root).
set -euo pipefail
html=${1:?usage: scripts/screenshot-report.sh REPORT.html [OUT.png]}
out=${2:-${html%.html}.png}
if ! command -v chromium >/dev/null; then
  echo "installing chromium (Debian package)…" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
  --disable-component-update --disable-sync --user-data-dir="$profile" --hide-scrollbars \
  --window-size=1280,1600 --screenshot="$(realpath -m "$out")" "file://$(realpath "$html")" 2>/dev/null
echo "$out"
