#!/usr/bin/env bash
# The test command: brings Node >= 24 if needed, installs once, then type check + jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
[ -d node_modules/isolated-vm ] || npm ci --loglevel=warn
npm test
