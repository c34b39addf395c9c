#!/usr/bin/env bash
# The runtime patch's hot paths at two revisions, in turns: each benchmark of
# runtimepatch/testdata/bench (this tree's copy, so both revisions run the same
# program) built with each revision's overlay, race detector off and on, run
# recording with the stuck check armed (as a fuzz run is): the process's CPU
# time per op (cpu-ns/op, every thread's user+system time: steadier than ns/op
# on a loaded machine, where ns/op also counts the waits for a core).
# BENCHMARKS.md "Runtime patch hot paths: cost of session 3's additions".
#
#   bash .ci/bench-hotpaths.sh [OLD [NEW]]   (defaults: 3b23338, HEAD)
#
# ROUNDS=5 rounds (old, new, old, new, ... per benchmark and race setting);
# BENCH="Select2 RLockRUnlock" for a subset; WORK=dir keeps the binaries there
# (bench-REV.test, bench-REV-race.test) and the per-run figures.
# IR=1: instead, instructions per op under valgrind's cachegrind (Debian package
# valgrind; race off, 40000 iterations): those of the goweave functions (the
# recording, deterministic) and of the whole process (the scheduler's share
# varies with timing), one run per revision.
# STUCK=1: instead, time to the stuck verdict: runtimepatch/testdata/stuck's
# deadlocking tests (-race, as goweave builds) run ROUNDS times at each
# revision in turns: the process's wall time and the trace's META
# stuck.withinns (how soon after the stuck state formed the run ended).
# METRIC=user-ns/op: user time only (without the page faults of the trace's
# first writes to each page, which vary with the load).
# Prints per benchmark and race setting the median cpu-ns/op of each revision,
# the ratio new/old of the medians and the median of the per-round ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
old=${1:-3b23338}
new=${2:-HEAD}
rounds=${ROUNDS:-5}
metric=${METRIC:-cpu-ns/op}
if [ -n "${WORK:-}" ]; then
  work=$WORK
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
# name:iterations, sized so a run's trace stays below the event buffer
benches="${BENCH:-PingPong Select2 Select4Ready LockUnlock RLockRUnlock GoUnderLock TypedAtomicAdd TimerReset TickerNew}"
declare -A iters=([PingPong]=100000 [Select2]=300000 [Select4Ready]=300000 [LockUnlock]=500000
  [RLockRUnlock]=500000 [GoUnderLock]=100000 [TypedAtomicAdd]=500000 [TimerReset]=200000 [TickerNew]=200000)

rm -rf "$work/prog"
cp -r "$root/runtimepatch/testdata" "$work/prog"
for rev in "$old" "$new"; do
  src="$work/src-$rev"
  git -C "$root" worktree add -q --detach "$src" "$rev"
  # A throwaway command in the revision's tree builds the program with that
  # revision's overlay (runtimepatch.Prepare and its toolchain environment).
  mkdir -p "$src/cmd/zz-benchbuild"
  cat >"$src/cmd/zz-benchbuild/main.go" <<'EOF'
package main

import (
	"context"
	"log"
	"os"

	"github.com/goweave/goweave/runtimepatch"
)

// usage: zz-benchbuild DIR OUT [go test -c flags...]
func main() {
	ctx := context.Background()
	ov, err := runtimepatch.Prepare(ctx, os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	args := append([]string{"test", "-c", "-o", os.Args[2], "-overlay=" + ov.Path}, os.Args[3:]...)
	cmd := ov.Command(ctx, append(args, ".")...)
	cmd.Dir = os.Args[1]
	cmd.Env = append(cmd.Env, "GOFLAGS=", "GOWORK=off")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		log.Fatal(err)
	}
}
EOF
  (cd "$src" && go build -o "$work/benchbuild-$rev" ./cmd/zz-benchbuild)
  git -C "$root" worktree remove --force "$src"
  "$work/benchbuild-$rev" "$work/prog/bench" "$work/bench-$rev.test"
  "$work/benchbuild-$rev" "$work/prog/bench" "$work/bench-$rev-race.test" -race
done

# The stuck check is armed by the time limit's signal number, as goweave's runs arm it.
case "$(uname)" in
Linux) armed=62 ;;
Darwin) armed=29 ;;
*) armed= ;;
esac
cpuop() {
  local bin=$1 b=$2
  GOWEAVE_TRACE="$work/t.gwt" GOWEAVE_MODULE="$work/prog" GOWEAVE_TIMELIMIT=$armed \
    "$bin" -test.run='^$' -test.bench="^Benchmark$b\$" -test.benchtime="${iters[$b]}x" -test.count=1 |
    awk -v m="$metric" '{ for (i = 1; i < NF; i++) if ($(i+1) == m) print $i }'
}
if [ "${STUCK:-}" = 1 ]; then
  for rev in "$old" "$new"; do
    "$work/benchbuild-$rev" "$work/prog/stuck" "$work/stuck-$rev.test" -race
  done
  python3 - "$work" "$old" "$new" "$rounds" "$armed" <<'EOF'
import os, re, statistics, subprocess, sys, time
work, old, new, rounds, armed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
for test in ["TestStuckChanCycle", "TestStuckLockCycle", "TestStuckWaitGroupLeak", "TestStuckLeakBesideBusy"]:
    wall, within, verdicts = {old: [], new: []}, {old: [], new: []}, {old: set(), new: set()}
    for _ in range(rounds):
        for rev in (old, new):
            tr = f"{work}/stuck-{rev}.gwt"
            env = dict(os.environ, GORACE="atexit_sleep_ms=0", GOWEAVE_TRACE=tr, GOWEAVE_MODULE=f"{work}/prog",
                       GOWEAVE_TIMELIMIT=armed, GOWEAVE_PROGRESS=f"{work}/stuck.progress")
            t = time.monotonic()
            subprocess.run([f"{work}/stuck-{rev}.test", f"-test.run=^{test}$", "-test.count=1", "-test.timeout=60s"],
                           env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wall[rev].append(time.monotonic() - t)
            meta = open(tr, "rb").read().decode("latin1")
            if m := re.search(r"stuck\.withinns=(\d+)", meta):
                within[rev].append(int(m.group(1)) / 1e6)
            m = re.search(r"\bstuck=(\w+)", meta)
            verdicts[rev].add(m.group(1) if m else "none")
    for rev in (old, new):
        w = statistics.median(within[rev]) if within[rev] else float("nan")
        print(f"{test:24s} {rev:10s} process median {1000 * statistics.median(wall[rev]):6.1f} ms, "
              f"stuck.withinns median {w:6.1f} ms, verdict {','.join(sorted(verdicts[rev]))}")
EOF
  exit 0
fi
if [ "${IR:-}" = 1 ]; then
  n=40000
  for b in $benches; do
    for rev in "$old" "$new"; do
      GOWEAVE_TRACE="$work/t.gwt" GOWEAVE_MODULE="$work/prog" GOWEAVE_TIMELIMIT=$armed \
        valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$work/cg-$b-$rev" \
        "$work/bench-$rev.test" -test.run='^$' -test.bench="^Benchmark$b\$" -test.benchtime="${n}x" >/dev/null 2>&1
      # cg_annotate's function lines: "count  file:function"
      cg_annotate --show-percs=no --threshold=0 --auto=no "$work/cg-$b-$rev" | awk -v b="$b" -v rev="$rev" -v n=$n '
        $1 ~ /^[0-9,]+$/ { c = $1; gsub(",", "", c) }
        /PROGRAM TOTALS/ { all = c }
        $1 ~ /^[0-9,]+$/ && $NF ~ /:.*goweave/ { gw += c }
        END { printf "%-15s %-10s goweave functions %7.1f Ir/op, whole process (start-up included) %7.1f Ir/op\n", b, rev, gw / n, all / n }'
    done
  done
  exit 0
fi
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
load0=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
for b in $benches; do
  for race in "" -race; do
    : >"$work/$b$race.old"
    : >"$work/$b$race.new"
    : >"$work/$b$race.ratio"
    for _ in $(seq "$rounds"); do
      o=$(cpuop "$work/bench-$old$race.test" "$b")
      n=$(cpuop "$work/bench-$new$race.test" "$b")
      echo "$o" >>"$work/$b$race.old"
      echo "$n" >>"$work/$b$race.new"
      echo "$n $o" | awk '{printf "%.4f\n", $1/$2}' >>"$work/$b$race.ratio"
    done
    mo=$(med <"$work/$b$race.old")
    mn=$(med <"$work/$b$race.new")
    mr=$(med <"$work/$b$race.ratio")
    printf '%-15s race=%-3s old %8.1f %s  new %8.1f %s  new/old %.3f (median of round ratios %.3f), load %s\n' \
      "$b" "$([ -n "$race" ] && echo on || echo off)" "$mo" "$metric" "$mn" "$metric" "$(echo "$mn $mo" | awk '{print $1/$2}')" "$mr" "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
  done
done
echo "load average at start $load0, at end $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
