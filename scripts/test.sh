#!/usr/bin/env bash
# The test command: brings Node >= 24 (and the PostgreSQL and nginx packages some tests start) if needed, installs once, then type check + jest.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/ensure-node.sh
# PostgreSQL and nginx for the tests that start them (Debian packages, apt-get when missing).
bash scripts/ensure-test-servers.sh
[ -d node_modules/isolated-vm ] || npm ci --loglevel=warn
# The esbuild crash output the compile tests keep (PTC_ESBUILD_CRASH_DIR, the jest script): this run's only.
rm -rf .build-test/esbuild-crashes
npm test
