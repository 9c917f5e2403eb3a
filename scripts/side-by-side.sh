#!/usr/bin/env bash
# Runs each argument (a command line) at the same time, then prints each one's output in
# the order given, so two single-threaded checks (tsc, typedoc) share the machine's cores
# and their reports never interleave. Fails if any failed, naming which.
set -u
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pids=()
n=0
for command in "$@"; do
  bash -c "$command" >"$dir/$n.out" 2>&1 &
  pids+=($!)
  n=$((n + 1))
done
failed=()
n=0
for command in "$@"; do
  wait "${pids[$n]}"
  rc=$?
  cat "$dir/$n.out"
  [ "$rc" -eq 0 ] || failed+=("$command (exit $rc)")
  n=$((n + 1))
done
if [ "${#failed[@]}" -gt 0 ]; then
  printf 'failed: %s\n' "${failed[@]}" >&2
  exit 1
fi
