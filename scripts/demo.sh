#!/usr/bin/env bash
# The main job: brings Node >= 24 if needed, installs once, then runs `ptc demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
[ -d node_modules/isolated-vm ] || npm ci --loglevel=warn
node --no-node-snapshot bin/ptc.js demo "$@"
