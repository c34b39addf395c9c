#!/usr/bin/env bash
# Time from opening a test file to goweave's first diagnostic in the real VS Code (code-server),
# Neovim (the newest release of .ci/nvim-matrix.sh) and Emacs 30 (lsp-mode, beside gopls), in one
# run (issue 22; BENCHMARKS.md "First diagnostic in three editors"). Per editor: cold (empty Go
# and goweave caches, nothing saved), a warm-up (first open of a kept project with this binary),
# then N opens with nothing changed (the last campaign's findings) and N after an edit on disk
# (the build, a run and its analysis first).
#
#   bash .ci/bench-first-diagnostic.sh        (N=3; EDITORS="vscode nvim emacs" for a subset)
#
# Uses the installs of .ci/run (the clients download, the Neovim matrix, VS Code's install.sh);
# prints one line per open: editor, mode, seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
n=${N:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/goweave
go build -o "$bin" ./cmd/goweave
(cd editors/vscode && npm ci --no-audit --no-fund >/dev/null && npx --no-install vsce package --out "$work/goweave.vsix" >/dev/null 2>&1)
bash .ci/clients.sh download >/dev/null
gopls=$(bash .ci/clients.sh gopls-path)
eval "$(bash .ci/clients.sh emacs-env)"
nvim=$(bash .ci/nvim-matrix.sh 2>/dev/null | tail -1)
load() { cut -d' ' -f1 /proc/loadavg; }

modes() {
  echo cold warmup
  for _ in $(seq "$n"); do echo unchanged; done
  for _ in $(seq "$n"); do echo edited; done
}

# open EDITOR MODE: prints the seconds to the first diagnostic.
open() {
  local editor=$1 mode=$2 cache=warm
  [ "$mode" = cold ] && cache=cold
  case $editor in
  vscode)
    [ "$mode" = edited ] && echo "// edit" >>"$work/vscode/metrics/metrics_test.go"
    local folder=$work/vscode cold=()
    [ "$mode" = cold ] && folder=$work/vscode-cold cold=(COLD=1)
    env ONLY_FIRST_DIAGNOSTIC=1 FOLDER="$folder" "${cold[@]}" \
      bash editors/vscode/test/real/run.sh "$bin" "$work/goweave.vsix" 2>&1 |
      sed -n 's/^timings: .*"firstDiagnosticS":\([0-9.]*\).*/\1/p' | head -1
    ;;
  nvim)
    [ "$mode" = edited ] && echo "// edit" >>"$work/nvim/readings_test.go"
    GOWEAVE_BIN=$bin GOWEAVE_BENCH_CACHE=$cache GOWEAVE_BENCH_MODULE=$work/nvim \
      "$nvim" --headless -u NONE -i NONE -n -c "luafile $root/editors/nvim/test/first_diagnostic.lua" 2>&1 |
      sed -n 's/^first diagnostic: \([0-9]*\) ms.*/\1/p' | awk '{printf "%.2f\n", $1/1000}'
    ;;
  emacs)
    [ "$mode" = edited ] && echo "// edit" >>"$work/emacs/readings_test.go"
    PATH=$(dirname "$gopls"):$PATH GOWEAVE_BIN=$bin GOWEAVE_EMACS_LOAD_PATH=$GOWEAVE_EMACS_LOAD_PATH \
      GOWEAVE_BENCH_CACHE=$cache GOWEAVE_BENCH_MODULE=$work/emacs \
      timeout 700 "$EMACS" --batch -l "$root/editors/emacs/test/first_diagnostic.el" 2>&1 |
      sed -n 's/^first diagnostic: \([0-9]*\) ms.*/\1/p' | awk '{printf "%.2f\n", $1/1000}'
    ;;
  esac
}

for editor in ${EDITORS:-vscode nvim emacs}; do
  for mode in $(modes); do
    s=$(open "$editor" "$mode" || true)
    printf '%s\t%s\t%s s\tload %s\n' "$editor" "$mode" "${s:-FAILED}" "$(load)"
  done
done
