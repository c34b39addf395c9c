#!/usr/bin/env bash
# linux/arm64 on this amd64 machine: the runtime patch's conformance tests (the runtimepatch
# package's tests) with their test programs cross-built for arm64 with the overlay (cgo with the
# aarch64 cross compiler, which -race needs) and run under qemu-user (GOWEAVE_TEST_EMULATOR=
# qemu-aarch64); the test binary itself runs natively. Skipped there, with the reason: the -race
# builds (ThreadSanitizer does not run under qemu-user) and the time-limit signal (qemu maps the
# guest's real-time signals onto others). The toolchain is the newest release of the matrix
# (.ci/toolchains.sh), GOWEAVE_ARM64_TOOLCHAIN overrides it. Needs qemu-user and
# gcc-aarch64-linux-gnu (Debian packages; .ci/run installs them when it runs as root).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(go env GOHOSTARCH)" = arm64 ]; then
  echo "arm64 machine: go test ./runtimepatch runs these tests natively"
  exit 0
fi
for tool in qemu-aarch64 aarch64-linux-gnu-gcc; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "no $tool: install qemu-user and gcc-aarch64-linux-gnu (apt-get install qemu-user gcc-aarch64-linux-gnu)"
    exit 1
  fi
done
tested=$(sed -n 's/^tested="\(.*\)"$/\1/p' .ci/toolchains.sh)
toolchain=${GOWEAVE_ARM64_TOOLCHAIN:-${tested##* }}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go test -c -o "$work/runtimepatch.test" ./runtimepatch
echo "linux/arm64 under qemu-aarch64 with $toolchain"
cd runtimepatch
status=0
GOTOOLCHAIN=$toolchain GOARCH=arm64 CGO_ENABLED=1 CC=aarch64-linux-gnu-gcc \
  QEMU_LD_PREFIX=/usr/aarch64-linux-gnu GOWEAVE_TEST_EMULATOR=qemu-aarch64 \
  "$work/runtimepatch.test" -test.count=1 -test.timeout=20m -test.v >"$work/log" 2>&1 || status=$?
# The failures with their messages, the skips with their reasons, the verdict.
grep -v -E '^(=== (RUN|PAUSE|CONT|NAME)|\s*--- PASS)' "$work/log" | grep -E -v '^\s*$' | tail -n 200
echo "linux/arm64: $(grep -c -E '^--- PASS' "$work/log") passed, $(grep -c -E '^--- SKIP' "$work/log") skipped, $(grep -c -E '^--- FAIL' "$work/log") failed"
exit $status
