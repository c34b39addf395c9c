#!/usr/bin/env bash
# Time from the command's start to the blocking findings, and runs per budget on a test that
# deadlocks in one run in three: goweave at two revisions, run in turns (issue 20;
# BENCHMARKS.md "Stuck runs told by the program's state").
#
#   bash .ci/bench-stuck.sh [BEFORE [AFTER]]   (defaults: 0307aff, HEAD; N=3 rounds; KERNELS="k1 k2" for a subset)
#
# Needs the acceptance corpus at ../shared/corpus. Prints one line per kernel and revision
# with the median and the maximum wall time of `goweave fuzz -fresh -q -until-wants -time 30s`
# (build included), then the runs of a 30 s campaign on testdata/bench/onein3.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
before=${1:-0307aff}
after=${2:-HEAD}
rounds=${N:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for rev in "$before" "$after"; do
  git -C "$root" worktree add -q --detach "$work/src-$rev" "$rev"
  (cd "$work/src-$rev" && go build -o "$work/goweave-$rev" ./cmd/goweave)
  git -C "$root" worktree remove --force "$work/src-$rev"
done
cp -r "$root/../shared/corpus" "$work/corpus"
kernels="${KERNELS:-cyclic_deadlock_abba mixed_deadlock_lock_chan rwmutex_recursive_rlock leak_chan_buffered_full leak_chan_timeout leak_cond leak_mutex leak_nil_chan leak_select leak_waitgroup}"
stats() { sort -n | awk '{v[NR]=$1} END {printf "median %.1f s, max %.1f s", v[int((NR+1)/2)], v[NR]}'; }
for k in $kernels; do
  for rev in "$before" "$after"; do : >"$work/$k-$rev"; done
  for _ in $(seq "$rounds"); do
    for rev in "$before" "$after"; do
      t0=$(date +%s.%N)
      (cd "$work/corpus" && "$work/goweave-$rev" fuzz -fresh -q -until-wants -time 30s -o "$work/out-$rev" "./$k/" >/dev/null 2>&1) || true
      echo "$(date +%s.%N) - $t0" | bc >>"$work/$k-$rev"
    done
  done
  for rev in "$before" "$after"; do echo "$k $rev: $(stats <"$work/$k-$rev")"; done
done
for rev in "$before" "$after"; do
  # goweave fuzz exits 1: the test's deadlock is found
  (cd "$root/testdata/bench/onein3" && "$work/goweave-$rev" fuzz -fresh -json -time 30s -o "$work/out-$rev" ./ >"$work/onein3-$rev.json" 2>/dev/null) || true
  runs=$(python3 -c 'import json,sys; print(sum(t.get("runs",0) for t in json.load(sys.stdin)["tests"]))' <"$work/onein3-$rev.json")
  echo "onein3 $rev: $runs runs in a 30 s budget"
done
