#!/bin/sh
# Starts one Procfile role by name. `exec` makes node PID 1, so SIGTERM reaches Tally's own shutdown
# (stop taking requests and jobs, finish the current ones, close the pool) with no init in between.
set -eu
cd /app

role="${1:-web}"
[ "$#" -gt 0 ] && shift

case "$role" in
  release | web | worker | clock)
    exec node "src/processes/$role.ts" "$@"
    ;;
  tally)
    # One-off commands: `tally export …`, `tally replay …` (see `tally help`).
    exec node src/cli/main.ts "$@"
    ;;
  healthcheck)
    if grep -qs 'src/processes/[w]eb[.]ts' /proc/[0-9]*/cmdline; then
      exec node -e '
        fetch(`http://127.0.0.1:${process.env.PORT || 3000}/readyz`, { signal: AbortSignal.timeout(4000) })
          .then((res) => process.exit(res.ok ? 0 : 1), () => process.exit(1));'
    fi
    exit 0
    ;;
  *)
    exec "$role" "$@"
    ;;
esac
