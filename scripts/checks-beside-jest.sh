#!/usr/bin/env bash
# `npm test`: jest, with the static checks (lint, type check, API docs) run beside it. They
# need about one core for half a minute, which jest's waits on child processes leave free.
# Their output follows jest's; either failing fails the command.
set -uo pipefail
cd "$(dirname "$0")/.."
mkdir -p .build-test
log=.build-test/static-checks.log
(npm run -s lint && npm run -s typecheck && npm run -s docs:check) > "$log" 2>&1 &
checks=$!
npm run -s jest -- "$@"
jest_status=$?
wait "$checks"
checks_status=$?
cat "$log"
if [ "$checks_status" -ne 0 ]; then
  echo "npm test: the static checks failed (lint, typecheck or docs:check; output above)" >&2
fi
[ "$jest_status" -eq 0 ] && [ "$checks_status" -eq 0 ]
