#!/usr/bin/env bash
# Runs each argument (a command line) at the same time. The last one's output streams as it
# comes; the others' outputs are kept and printed after it, in the order given, so their
# reports never interleave with it or with each other. Fails if any failed, naming which.
# `npm test` runs the type check and the API docs check (single-threaded, about 25 s) this
# way beside jest, whose files spend part of their time waiting.
set -u
if [ "$#" -eq 0 ]; then
  echo "usage: side-by-side.sh 'command' ... 'command whose output streams'" >&2
  exit 2
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
last=$(($# - 1))
pids=()
n=0
for command in "${@:1:$last}"; do
  bash -c "$command" >"$dir/$n.out" 2>&1 &
  pids+=($!)
  n=$((n + 1))
done
failed=()
bash -c "${!#}"
rc=$?
[ "$rc" -eq 0 ] || failed+=("${!#} (exit $rc)")
n=0
for command in "${@:1:$last}"; do
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
