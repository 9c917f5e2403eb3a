#!/usr/bin/env bash
# Runs one example from a clone: brings Node >= 24 if needed, installs once, then runs the
# file with `ptc-runtime` resolved to this checkout's TypeScript sources.
#   bash scripts/example.sh examples/shop/run-scenarios.ts
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh >/dev/null 2>&1
[ -d node_modules/isolated-vm ] || npm ci --loglevel=warn
exec node --no-node-snapshot --conditions=ptc-source --disable-warning=ExperimentalWarning "$@"
