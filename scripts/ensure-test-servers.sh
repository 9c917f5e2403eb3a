#!/usr/bin/env bash
# The servers some tests start from Debian packages, installed with apt-get when missing:
# PostgreSQL's server binaries (throwaway clusters for the PostgreSQL journal's tests,
# test/support/postgres-cluster.ts) and nginx (the deployment guide's load balancer,
# test/deployment/nginx-two-servers.test.ts) and Chromium (the approvals page's browser
# test drives Debian's browser; nothing is downloaded by the test). Idempotent.
set -euo pipefail
missing=()
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing+=(nginx)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-test-servers: installing ${missing[*]} (apt-get)" >&2
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo -n)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { echo "ensure-test-servers: no initdb after installing postgresql" >&2; exit 1; }
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || { echo "ensure-test-servers: no nginx after installing it" >&2; exit 1; }
[ -x /usr/bin/chromium ] || { echo "ensure-test-servers: no /usr/bin/chromium after installing chromium" >&2; exit 1; }
