#!/usr/bin/env bash
# The suite on a busy machine: fresh clones of this checkout's HEAD run `.ci/run` beside
# six busy loops (nice 0), as a loaded CI machine would. `RUNS=2` (the default) starts two
# clones at once, so each also sees the other whole suite; `RUNS=1` runs one.
# Usage: bash scripts/ci-under-load.sh [workdir]   (logs: <workdir>/run-N.log, exit codes: run-N.done)
set -u
cd "$(dirname "$0")/.."
work=${1:-$(mktemp -d "${TMPDIR:-/tmp}/ptc-under-load-XXXXXX")}
mkdir -p "$work"
runs=${RUNS:-2}
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || {
  echo "ci-under-load: RUNS must be a whole number of runs, 1 or more (got '$runs')" >&2
  exit 2
}
loops=()
for _ in 1 2 3 4 5 6; do
  bash -c 'while :; do :; done' &
  loops+=($!)
done
trap 'kill "${loops[@]}" 2>/dev/null' EXIT
pids=()
for n in $(seq 1 "$runs"); do
  rm -rf "$work/clone-$n"
  git clone -q . "$work/clone-$n"
  (
    start=$SECONDS
    (cd "$work/clone-$n" && bash .ci/run) >"$work/run-$n.log" 2>&1
    echo "exit $? after $((SECONDS - start)) s" >"$work/run-$n.done"
  ) &
  pids+=($!)
done
wait "${pids[@]}"
failed=0
for n in $(seq 1 "$runs"); do
  echo "run $n: $(cat "$work/run-$n.done") ($work/run-$n.log)"
  grep -q '^exit 0 ' "$work/run-$n.done" || failed=1
done
exit "$failed"
