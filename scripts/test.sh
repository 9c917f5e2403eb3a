#!/usr/bin/env bash
# The test command: brings Node >= 24 (and PostgreSQL's server binaries) if needed, installs once, then type check + jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
# The PostgreSQL journal's tests start a throwaway cluster from Debian's server binaries.
bash scripts/ensure-postgres.sh
[ -d node_modules/isolated-vm ] || npm ci --loglevel=warn
npm test
