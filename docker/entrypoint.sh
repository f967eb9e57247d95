#!/bin/sh
# The container's entrypoint, also runnable as a plain process from a checkout (test/docker tests it so):
# `serve` (the default) and `engine` run the servers, which migrate before they listen; anything else is a
# linkhop command (`migrate`, `org create ...`, `key create ...`). exec: the server is PID 1's child no
# more, so SIGTERM from `docker stop` reaches it and it flushes its clicks before it exits.
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- serve; fi
# The servers run with npm start's node flags (docs/operations.md, "Memory": young generation capped at
# 4 MB a semi-space, about 50 MB less under load for no measurable CPU a request).
case "$1" in
  serve | engine) exec node --max-semi-space-size=4 dist/cli/main.js "$@" ;;
  *) exec node dist/cli/main.js "$@" ;;
esac
