#!/usr/bin/env bash
# Whole campaigns at two revisions, in turns: `goweave fuzz -fresh -json` on a few of the
# project's example programs (and any module given in EXTRA), race detector on and off. For
# each invocation: the runs the JSON reports, the test's seconds, and the CPU time of goweave
# and everything it waited for (builds, test processes, analysis) from /usr/bin/time.
# BENCHMARKS.md "Runtime patch hot paths: cost of session 3's additions".
#
#   bash .ci/bench-hotpaths-runs.sh [OLD [NEW]]   (defaults: 3b23338, HEAD)
#
# ROUNDS=3; BUDGET="-time 20s" (runs per second: noisy on a loaded machine) or e.g.
# BUDGET="-runs 100" (a fixed amount of work: CPU per run is the steadier figure);
# RACE="true false"; EXTRA="name|dir|test regexp|package ..." adds programs (a real module
# checked out outside the project, e.g. "semaphore|/work/real/sync|^TestWeighted\$|./semaphore/").
# Prints per program and race setting the medians of runs/s and CPU ms per run of each
# revision and the medians of the per-round ratios new/old.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
old=${1:-3b23338}
new=${2:-HEAD}
rounds=${ROUNDS:-3}
budget=${BUDGET:--time 20s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for rev in "$old" "$new"; do
  git -C "$root" worktree add -q --detach "$work/src-$rev" "$rev"
  (cd "$work/src-$rev" && go build -o "$work/goweave-$rev" ./cmd/goweave)
  git -C "$root" worktree remove --force "$work/src-$rev"
done
cp -r "$root/examples" "$work/ex"
cp -r "$root/testdata/examples" "$work/tex"
programs=(
  "metrics|$work/ex|^TestWorkersReportToCollector\$|./metrics/"
  "inventory|$work/ex|^TestAddAndRestockConcurrently\$|./inventory/"
  "lockhandoff|$work/tex|^TestHandOff\$|./lockhandoff/"
  "nbselect|$work/tex|^TestNotify\$|./nbselect/"
)
for e in ${EXTRA:-}; do programs+=("$e"); done
med() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
# one NAME DIR RE PKG RACE REV: runs/s and CPU ms per run of one invocation
one() {
  local out=$work/$1-$5-$6
  # -fresh: nothing carried over from the last invocation; exit 1 (findings) is expected
  (cd "$2" && /usr/bin/time -f '%U %S' -o "$out.time" "$work/goweave-$6" fuzz -fresh -json -q -race="$5" $budget \
    -run "$3" -o "$work/o-$6" "$4" >"$out.json" 2>"$out.err") || true
  python3 - "$out.json" "$out.time" <<'EOF'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
runs = sum(t.get("runs", 0) for t in tests)
secs = sum(t.get("seconds", 0) for t in tests)
u, s = open(sys.argv[2]).read().split()[-2:]
print(f"{runs / secs:.2f} {1000 * (float(u) + float(s)) / max(runs, 1):.2f}")
EOF
}
echo "budget: $budget; load average at start $(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
for race in ${RACE:-true false}; do
  for p in "${programs[@]}"; do
    IFS='|' read -r name dir re pkg <<<"$p"
    # warm the build cache of both revisions first: the rounds time campaigns, not compiles
    for rev in "$old" "$new"; do one "$name" "$dir" "$re" "$pkg" "$race" "$rev" >/dev/null; done
    : >"$work/r"
    for _ in $(seq "$rounds"); do
      o=$(one "$name" "$dir" "$re" "$pkg" "$race" "$old")
      n=$(one "$name" "$dir" "$re" "$pkg" "$race" "$new")
      echo "$o $n" >>"$work/r"
    done
    # columns: old runs/s, old cpu ms/run, new runs/s, new cpu ms/run
    printf '%-12s race=%-5s runs/s old %6.1f new %6.1f (ratio %.3f)  cpu ms/run old %6.1f new %6.1f (ratio %.3f)  load %s\n' \
      "$name" "$race" "$(awk '{print $1}' "$work/r" | med)" "$(awk '{print $3}' "$work/r" | med)" \
      "$(awk '{print $3/$1}' "$work/r" | med)" "$(awk '{print $2}' "$work/r" | med)" \
      "$(awk '{print $4}' "$work/r" | med)" "$(awk '{print $4/$2}' "$work/r" | med)" \
      "$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')"
  done
done
