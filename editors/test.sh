#!/usr/bin/env bash
# Tests of the editor clients, run by .ci/run: builds goweave once, then for VS Code runs
# npm ci, tsc, the unit tests, the protocol end-to-end test against `goweave serve` and
# vsce package; for Neovim the unit tests and the headless end-to-end test.
# Prints "editors: N passed, M failed" last and exits non-zero on any failure.
#
# Environment: GOWEAVE_VSCODE_REAL=1 adds the real-editor test of the VS Code extension
# (editors/vscode/test/real/run.sh). CI=true turns a missing tool (node, npm, nvim) into a
# failure instead of a skip. GOWEAVE_BIN=/path/to/goweave skips the build; GOWEAVE_NVIM="nvim /path/to/nvim..."
# picks the Neovims to test with (default: nvim on PATH), GOWEAVE_NVIM_JOBS how many at once.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
editors="$root/editors"

passed=0
failed=0
skipped=0
failures=()
tmp=$(mktemp -d "${TMPDIR:-/tmp}/goweave-editors.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# step NAME COMMAND...: runs one step with its output indented, records the outcome.
step() {
  local name=$1
  shift
  printf '\n--- %s\n' "$name"
  local start=$SECONDS
  if "$@" 2>&1 | sed 's/^/    /'; then
    passed=$((passed + 1))
    printf -- '--- ok   %s (%ds)\n' "$name" $((SECONDS - start))
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf -- '--- FAIL %s (%ds)\n' "$name" $((SECONDS - start))
  fi
}

# missing TOOL STEP: a required tool is absent: a failure under CI, else a skip.
missing() {
  if [ "${CI:-}" = true ]; then
    failed=$((failed + 1))
    failures+=("$2 ($1 not installed)")
    printf -- '--- FAIL %s: %s is not installed (required when CI=true)\n' "$2" "$1"
  else
    skipped=$((skipped + 1))
    printf -- '--- SKIP %s: %s is not installed\n' "$2" "$1"
  fi
}

finish() {
  echo
  if [ ${#failures[@]} -gt 0 ]; then
    printf 'failed: %s\n' "${failures[@]}"
  fi
  local skips=""
  [ "$skipped" -gt 0 ] && skips=", $skipped skipped"
  echo "editors: $passed passed, $failed failed$skips"
  [ "$failed" -eq 0 ]
  exit $?
}

if [ -n "${GOWEAVE_BIN:-}" ]; then
  bin=$GOWEAVE_BIN
else
  bin="$tmp/goweave"
  step "go build ./cmd/goweave" go build -o "$bin" ./cmd/goweave
  [ -x "$bin" ] || finish
fi
export GOWEAVE_BIN=$bin

# --- VS Code
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  vscode="$editors/vscode"
  before=$failed
  step "vscode: npm ci" npm --prefix "$vscode" ci --no-audit --no-fund
  if [ "$failed" -eq "$before" ]; then
    step "vscode: tsc, esbuild bundle" bash -c "npm --prefix '$vscode' run --silent compile && npm --prefix '$vscode' run --silent bundle"
    step "vscode: unit tests (node --test)" timeout 120 node --test "$vscode/out/test/unit/"
    step "vscode: protocol e2e against goweave serve" timeout 900 node --test "$vscode/out/test/e2e/"
    # The .vsix holds the bundle and the manifest files only (no node_modules, no sources).
    step "vscode: vsce package (bundled)" bash -c "cd '$vscode' && npx --no-install vsce package --out '$tmp/goweave.vsix' && test -s '$tmp/goweave.vsix' && diff <(npx --no-install vsce ls | sort) <(printf '%s\n' LICENSE README.md dist/extension.js package.json)"
    # --- VS Code in a real editor (GOWEAVE_VSCODE_REAL=1, set by .ci/run): code-server in
    # headless Chromium with the .vsix just packaged, installed as users install it, and
    # goweave.path pointing at the plain binary; with GOPLS=path (.ci/run sets it), gopls runs
    # beside it (gopls-companion/). Installs (cached under ~/.cache/goweave-ci)
    # and all its steps: editors/vscode/test/real/. Prints where its screenshots are.
    if [ "${GOWEAVE_VSCODE_REAL:-}" = 1 ] && [ "$failed" -eq "$before" ]; then
      step "vscode: real VS Code (code-server $(sed -n 's/^code_server_version=//p' "$vscode/test/real/install.sh"), Chromium): diagnostics, quick fixes, lens, timeline" \
        timeout 2400 bash "$vscode/test/real/run.sh" "$bin" "$tmp/goweave.vsix"
    fi
  fi
else
  missing "node/npm" "vscode"
fi

# --- Neovim
# GOWEAVE_NVIM lists the Neovim commands to test with, separated by spaces or newlines
# (.ci/nvim-matrix.sh prints the CI's three). Each runs the unit tests then the e2e test;
# the Neovims run at the same time (GOWEAVE_NVIM_JOBS=1: one after the other) and their
# outputs are shown in list order when all are done.
read -r -d '' -a nvims <<<"${GOWEAVE_NVIM:-nvim}" || true
nvim_jobs=${GOWEAVE_NVIM_JOBS:-${#nvims[@]}}

# nvim_test NVIM FILE: runs one test file; a deprecation warning anywhere in its output
# (Neovim prints them once, outside the test's own checks) fails it too.
nvim_test() {
  local out status
  out=$(timeout 300 "$1" --headless -u NONE -i NONE -n -c "luafile $2" </dev/null 2>&1)
  status=$?
  printf '%s\n' "$out"
  if grep -qi 'deprecated' <<<"$out"; then
    echo "FAIL: Neovim printed a deprecation warning (above)"
    return 1
  fi
  return $status
}

# nvim_suite NVIM DIR: the unit then the e2e test of one Neovim, each leaving its output,
# exit status and seconds in DIR.
nvim_suite() {
  local test start
  for test in unit e2e; do
    start=$SECONDS
    nvim_test "$1" "$editors/nvim/test/$test.lua" >"$2/$test.out" 2>&1
    echo $? >"$2/$test.status"
    echo $((SECONDS - start)) >"$2/$test.seconds"
  done
}

# nvim_report NAME DIR TEST: reports a finished test as step would.
nvim_report() {
  local name=$1 dir=$2 test=$3
  printf '\n--- %s\n' "$name"
  sed 's/^/    /' "$dir/$test.out"
  if [ "$(cat "$dir/$test.status")" = 0 ]; then
    passed=$((passed + 1))
    printf -- '--- ok   %s (%ss)\n' "$name" "$(cat "$dir/$test.seconds")"
  else
    failed=$((failed + 1))
    failures+=("$name")
    printf -- '--- FAIL %s (%ss)\n' "$name" "$(cat "$dir/$test.seconds")"
  fi
}

nvim_found=()
for i in "${!nvims[@]}"; do
  if ! command -v "${nvims[$i]}" >/dev/null 2>&1; then
    missing "${nvims[$i]}" "nvim"
    continue
  fi
  nvim_found+=("$i")
  mkdir -p "$tmp/nvim-$i"
  while [ "$(jobs -rp | wc -l)" -ge "$nvim_jobs" ]; do
    wait -n
  done
  nvim_suite "${nvims[$i]}" "$tmp/nvim-$i" &
done
wait
for i in "${nvim_found[@]}"; do
  version=$("${nvims[$i]}" --version | head -1)
  nvim_report "nvim: unit tests ($version)" "$tmp/nvim-$i" unit
  nvim_report "nvim: e2e against goweave serve ($version)" "$tmp/nvim-$i" e2e
done
if [ ${#nvim_found[@]} -gt 0 ] && command -v luacheck >/dev/null 2>&1; then
  step "nvim: luacheck" bash -c "cd '$editors/nvim' && luacheck --no-color -q lua test"
fi

finish
