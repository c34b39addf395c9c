#!/usr/bin/env bash
# Checks docs/ci.md's CI examples (.ci/run runs it): actionlint on the GitHub Actions
# workflow (with shellcheck on its run: scripts), then .ci/docscheck's tests, which decode
# the Kubernetes manifests into their API types and run the documented commands of both
# examples on a copy of examples/ with a goweave built from this checkout.
# GOWEAVE_BIN=/path/to/goweave skips the build.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

actionlint_version=v1.7.12

# actionlint runs shellcheck on each run: script when it finds it.
if ! command -v shellcheck >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq shellcheck >/dev/null
fi
command -v shellcheck >/dev/null 2>&1 || echo "ci-docs: shellcheck not installed: run: scripts are not checked"

echo "ci-docs: actionlint $actionlint_version docs/ci/github-actions.yml"
go run "github.com/rhysd/actionlint/cmd/actionlint@$actionlint_version" docs/ci/github-actions.yml

tmp=$(mktemp -d "${TMPDIR:-/tmp}/goweave-ci-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
if [ -z "${GOWEAVE_BIN:-}" ]; then
  go build -o "$tmp/goweave" ./cmd/goweave
  GOWEAVE_BIN=$tmp/goweave
fi
export GOWEAVE_BIN

echo "ci-docs: the examples' commands on examples/ (.ci/docscheck)"
cd "$root/.ci/docscheck"
CI=true go test -count=1 -timeout 20m -v ./... 2>&1 | grep -v '^=== \(RUN\|PAUSE\|CONT\)'
