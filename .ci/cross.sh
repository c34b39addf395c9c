#!/usr/bin/env bash
# macOS on this Linux machine, cross-compiled (nothing here runs a Mac binary): goweave
# itself and its tests type-check and goweave links for darwin/arm64 and darwin/amd64
# (go vet, go build), and the patched runtime builds into test binaries for both
# (runtimepatch TestCrossBuild: the overlay as goweave prepares it on a Mac, go test -c with
# and without -race (macOS's race detector needs no cgo, so no Apple C toolchain is needed),
# each binary checked to be a Mach-O executable of the target's CPU holding the goweave
# runtime). With the installed Go: runtimepatch/testdata and the acceptance corpus
# (../shared/corpus, when beside the checkout; GOWEAVE_CROSS_CORPUS names another); with the newest release of the matrix
# (.ci/toolchains.sh; GOWEAVE_CROSS_TOOLCHAIN overrides it, "none" skips it): testdata only.
# windows/amd64 is not built: goweave refuses it (README: macOS and Windows).
set -euo pipefail
cd "$(dirname "$0")/.."

targets="darwin/arm64 darwin/amd64"
tested=$(sed -n 's/^tested="\(.*\)"$/\1/p' .ci/toolchains.sh)
second=${GOWEAVE_CROSS_TOOLCHAIN:-${tested##* }}
corpus=${GOWEAVE_CROSS_CORPUS:-}
if [ -z "$corpus" ] && [ -d ../shared/corpus ]; then
  corpus=$(cd ../shared/corpus && pwd)
elif [ -z "$corpus" ]; then
  echo "no ../shared/corpus beside the checkout: the corpus is not cross-built"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
t0=$SECONDS

for target in $targets; do
  if ! GOOS=${target%/*} GOARCH=${target#*/} go vet ./... ||
    ! GOOS=${target%/*} GOARCH=${target#*/} go build -o "$work/goweave-${target/\//-}" ./cmd/goweave; then
    echo "--- goweave does not build for $target"
    status=1
  fi
done
echo "goweave vet + build for $targets: $((SECONDS - t0)) s"

go test -c -o "$work/runtimepatch.test" ./runtimepatch
cd runtimepatch
t1=$SECONDS
echo "patched runtime, testdata${corpus:+ and the corpus}: $(go version | awk '{print $3}')"
GOWEAVE_CROSS=$targets GOWEAVE_CROSS_CORPUS=$corpus \
  "$work/runtimepatch.test" -test.run='^TestCrossBuild$' -test.count=1 -test.timeout=30m -test.v || status=1
echo "$(go version | awk '{print $3}'): $((SECONDS - t1)) s"
if [ "$second" != none ]; then
  t2=$SECONDS
  echo "patched runtime, testdata: $second"
  GOTOOLCHAIN=$second GOWEAVE_CROSS=$targets \
    "$work/runtimepatch.test" -test.run='^TestCrossBuild$' -test.count=1 -test.timeout=30m -test.v || status=1
  echo "$second: $((SECONDS - t2)) s"
fi
echo "cross builds: $((SECONDS - t0)) s in all"
exit $status
