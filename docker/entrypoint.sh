#!/bin/sh
# The container's entrypoint, also runnable as a plain process from a checkout (test/docker tests it so):
# `serve` (the default) and `engine` run the servers, which migrate before they listen; anything else is a
# linkhop command (`migrate`, `org create ...`, `key create ...`). exec: the server is PID 1's child no
# more, so SIGTERM from `docker stop` reaches it and it flushes its clicks before it exits.
set -eu
cd "$(dirname "$0")/.."
if [ "$#" -eq 0 ]; then set -- serve; fi
exec node dist/cli/main.js "$@"
