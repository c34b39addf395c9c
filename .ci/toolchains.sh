#!/usr/bin/env bash
# The toolchain matrix: for the .0 and the newest patch release of every Go release line
# goweave supports (runtimepatch/versions.go, TestedVersions; TestCIToolchains keeps this list
# equal to it), run the runtime patch's conformance tests (the runtimepatch package's tests)
# and the one-run corpus acceptance check (record + analyze: cmd/goweave TestCorpus with
# GOWEAVE_ACCEPTANCE=analyze) with that toolchain, as the go command downloads it
# (GOTOOLCHAIN; cached in the module cache). The test binaries are built once with the
# installed Go. TOOLCHAIN_JOBS (default 2) toolchains run at once; GOWEAVE_TOOLCHAINS
# overrides the list. Called from .ci/run; runs alone too: bash .ci/toolchains.sh
#
# bash .ci/toolchains.sh bench: instead, BENCHMARKS.md's per-release figures in one run: for the
# newest tested patch release of each line, one at a time, the cost of recording per event
# (runtimepatch BenchmarkRecord*, best of 5 child runs) and a cold overlay build (std
# recompiled with the overlay: BenchmarkOverlayBuildCold).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

tested="go1.25.0 go1.25.14 go1.26.0 go1.26.11 go1.27.0 go1.27.4"
versions=${GOWEAVE_TOOLCHAINS:-$tested}
jobs=${TOOLCHAIN_JOBS:-2}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# bash .ci/toolchains.sh download: only download the toolchains (.ci/run starts this first, in
# the background).
if [ "${1:-}" = download ]; then
  for v in $versions; do
    GOTOOLCHAIN=$v go version
  done
  exit 0
fi

if [ "${1:-}" = bench ]; then
  newest=$(printf '%s\n' $tested | sort -t. -k2,2n -k3,3n | awk -F. '{last[$2]=$0} END {for (m in last) print last[m]}' | sort -t. -k2,2n)
  go test -c -o "$work/runtimepatch.test" ./runtimepatch
  for v in $newest; do
    GOTOOLCHAIN=$v go version >/dev/null
    echo "=== $v"
    (cd runtimepatch && GOTOOLCHAIN=$v "$work/runtimepatch.test" -test.run='^$' -test.bench='^BenchmarkRecord' -test.benchtime=5x -test.count=1 &&
      GOTOOLCHAIN=$v "$work/runtimepatch.test" -test.run='^$' -test.bench='^BenchmarkOverlayBuildCold$' -test.benchtime=1x -test.count=1) |
      grep -E '^Benchmark'
  done
  exit 0
fi

echo "toolchains: $versions ($jobs at once)"
for v in $versions; do
  # Downloads the toolchain into the module cache the first time (about 15 s each).
  GOTOOLCHAIN=$v go version >/dev/null
done

go test -c -o "$work/runtimepatch.test" ./runtimepatch
corpus=""
if [ -d ../shared/corpus ]; then
  corpus=1
  go test -c -o "$work/goweave.test" ./cmd/goweave
else
  echo "no ../shared/corpus beside the checkout: corpus checks skipped"
fi

# one VERSION: both checks for one toolchain, output in $work/VERSION.log, a summary line.
one() {
  local v=$1 log="$work/$1.log" start status=ok
  start=$(date +%s)
  {
    echo "=== $v: runtime patch conformance"
    (cd "$root/runtimepatch" && GOTOOLCHAIN=$v "$work/runtimepatch.test" -test.count=1 -test.timeout=20m) || status=FAIL
    if [ -n "$corpus" ]; then
      echo "=== $v: corpus, one recorded run per kernel"
      (cd "$root/cmd/goweave" && GOWEAVE_ACCEPTANCE=analyze GOWEAVE_ACCEPTANCE_GOTOOLCHAIN=$v \
        "$work/goweave.test" -test.run='^TestCorpus$' -test.count=1 -test.timeout=15m -test.v | grep -v '^=== RUN') || status=FAIL
    fi
  } >"$log" 2>&1
  printf '%-10s %-4s %4ds\n' "$v" "$status" $(( $(date +%s) - start ))
  [ "$status" = ok ]
}
export -f one
export work root corpus

failed=0
printf '%s\n' $versions | xargs -P "$jobs" -I{} bash -c 'one {}' || failed=1
for v in $versions; do
  if grep -q -e '^--- FAIL' -e '^FAIL' "$work/$v.log"; then
    echo; echo "--- $v failed:"; cat "$work/$v.log"
  fi
done
grep -h 'wants met' "$work"/*.log || true
exit $failed
