#!/usr/bin/env bash
# The editor clients beyond VS Code and Neovim (editors/emacs, helix, kakoune), for .ci/run:
#   bash .ci/clients.sh download   fetch what the checks need into the cache (.ci/run starts
#                                  this in the background);
#   bash .ci/clients.sh gopls-path prints where the download puts gopls (the real VS Code test
#                                  runs it beside goweave);
#   bash .ci/clients.sh emacs-env  prints EMACS=... and GOWEAVE_EMACS_LOAD_PATH=... of the
#                                  download (for editors/emacs/test/first_diagnostic.el);
#   bash .ci/clients.sh            fetch if needed, then run the checks:
#     - Emacs: editors/emacs/goweave.el byte-compiles without warnings, and
#       editors/emacs/test/e2e.el in batch mode (lsp-mode with goweave as an add-on client
#       beside gopls: diagnostic, replay code action, fuzz this test);
#     - Helix: `hx --health go` with editors/helix/languages.toml: the file parses and both
#       gopls and goweave are configured for Go and found; then a real session, keys typed
#       into hx in a terminal (script's pty): the diagnostic of the background campaign,
#       the "Replay this bug" code action reproducing the bug;
#     - Kakoune: editors/kakoune/goweave.kak sourced by kak, a Go buffer opened: the
#       lsp_servers it sets runs gopls and `goweave serve`; goweave-stop asks kakoune-lsp's
#       lsp-execute-command for goweave.stop on the buffer.
#     - traces: what Helix and Emacs sent goweave at initialize still equals the traces in
#       editors/clients/testdata, which the Go test editors/clients (part of go test ./...)
#       replays against goweave serve.
# What it fetches, into $GOWEAVE_CI_CACHE (default ~/.cache/goweave-ci), outside the clone:
#   - Emacs 30 (emacs-nox), hx (Helix) and kakoune from Debian trixie, unpacked from their .debs
#     with the libraries they link and started through trixie's own dynamic loader (its glibc
#     is newer than bookworm's), as .ci/nvim-matrix.sh does for Neovim; nothing is installed
#     system-wide;
#   - lsp-mode, go-mode and the packages they require from trixie's elpa-* packages (their
#     sources, loaded by the test with their autoloads);
#   - gopls through the module proxy (gopls_version below; the newest gopls needs Go 1.27).
# Fetched again when older than GOWEAVE_CLIENTS_MAX_AGE_DAYS (default 30). Needs apt-get and
# dpkg-deb, not root. GOWEAVE_BIN=/path/to/goweave skips building goweave.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

suite=trixie
gopls_version=v0.21.1
cache=${GOWEAVE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goweave-ci}
max_age_days=${GOWEAVE_CLIENTS_MAX_AGE_DAYS:-30}
dir=$cache/clients-$suite
mkdir -p "$cache"
if [ "${1:-}" = gopls-path ]; then
  echo "$cache/gopls-$gopls_version/gopls"
  exit 0
fi
if [ "${1:-}" = emacs-env ]; then
  echo "EMACS=$dir/emacs"
  echo "GOWEAVE_EMACS_LOAD_PATH=$(find "$dir/root/usr/share/emacs/site-lisp/elpa-src" -mindepth 1 -maxdepth 1 -type d | tr '\n' ':')"
  exit 0
fi

log() { printf '%s\n' "$*" >&2; }

# shellcheck source=debian.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# unpack: downloads emacs-nox, elpa-lsp-mode, elpa-go-mode, hx, kakoune and, recursively, the
# libraries and elpa packages they depend on in $suite into $dir (which must not exist);
# writes the wrappers $dir/emacs, $dir/hx and $dir/kak.
unpack() {
  suite_init "$suite" "$dir"
  # Runtime libraries and elisp only: no compilers, headers or sanitizers (libgccjit0 pulls
  # them in; Emacs links libgccjit but only calls it to compile natively, which we do not).
  local pkgs
  pkgs=$(apt-cache "${suite_apt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances emacs-nox elpa-lsp-mode elpa-go-mode hx kakoune | grep -v '^ ' | sort -u |
    grep -E '^(emacs-nox|emacs-bin-common|emacs-common|elpa-.*|hx|kakoune|lib.*)$' |
    grep -vE -- '-dev$|^lib(asan|hwasan|lsan|tsan|ubsan|gcc-[0-9]+-dev|c-dev-bin|isl|mpc|mpfr|binutils|ctf|gprofng|sframe)')
  # shellcheck disable=SC2086 # pkgs is a list of package names
  suite_unpack "$dir" $pkgs
  local lib=$dir/root/usr/lib/x86_64-linux-gnu version
  version=$(ls "$dir/root/usr/share/emacs" | grep -E '^[0-9]+\.[0-9]+' | head -1)
  local share=$dir/root/usr/share/emacs/$version libexec=$dir/root/usr/libexec/emacs/$version/x86_64-linux-gnu
  # The dump of the preloaded lisp is found by a compiled-in path too: name it.
  local dump
  dump=$(ls "$libexec"/*.pdmp | head -1)
  cat >"$dir/emacs" <<WRAPPER
#!/bin/sh
# Emacs $version from Debian $suite, started with that suite's loader and libraries, reading its
# own lisp and data directories (the binary has /usr/share/emacs/... compiled in).
export EMACSLOADPATH=$share/lisp
export EMACSDATA=$share/etc
export EMACSDOC=$share/etc
export EMACSPATH=$libexec
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $dir/root/usr/bin/emacs-nox --dump-file=$dump "\$@"
WRAPPER
  cat >"$dir/hx" <<WRAPPER
#!/bin/sh
# Helix from Debian $suite, with its runtime (queries, themes).
export HELIX_RUNTIME=$dir/root/usr/lib/hx/runtime
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $dir/root/usr/bin/hx "\$@"
WRAPPER
  cat >"$dir/kak" <<WRAPPER
#!/bin/sh
# Kakoune from Debian $suite.
exec $lib/ld-linux-x86-64.so.2 --library-path $lib $dir/root/usr/bin/kak "\$@"
WRAPPER
  chmod +x "$dir/emacs" "$dir/hx" "$dir/kak"
  rm -rf "$dir/debs" "$dir/apt/archives"
}

# fetch_emacs: unpacks Emacs and the elisp packages into $dir unless a fresh copy is there.
fetch_emacs() {
  (
    # One fetch at a time, also across CI runs sharing the cache.
    flock 9
    if [ -x "$dir/emacs" ] && [ -x "$dir/hx" ] && [ -x "$dir/kak" ] && [ -e "$dir/stamp" ] &&
      [ -z "$(find "$dir/stamp" -mtime +"$max_age_days" 2>/dev/null)" ] &&
      "$dir/emacs" --batch --eval '(kill-emacs 0)' >/dev/null 2>&1; then
      exit 0
    fi
    # The final path is in the wrapper, so unpack in place and keep the old copy aside
    # until the new one runs.
    rm -rf "$dir.old"
    [ -d "$dir" ] && mv "$dir" "$dir.old"
    log "clients: fetching Emacs, lsp-mode, Helix and Kakoune from Debian $suite into $dir"
    if unpack && "$dir/emacs" --batch --eval '(kill-emacs 0)' >/dev/null 2>&1 &&
      "$dir/hx" --version >/dev/null 2>&1 && "$dir/kak" -version >/dev/null 2>&1; then
      touch "$dir/stamp"
      rm -rf "$dir.old"
    elif [ -d "$dir.old" ]; then
      log "clients: fetching from $suite failed; using the cached copy"
      rm -rf "$dir" && mv "$dir.old" "$dir"
    else
      log "clients: fetching from $suite failed"
      exit 1
    fi
  ) 9>"$cache/clients-$suite.lock"
}

# fetch_gopls: builds gopls $gopls_version into the cache unless it is there.
fetch_gopls() {
  local bin=$cache/gopls-$gopls_version
  (
    flock 9
    [ -x "$bin/gopls" ] && exit 0
    log "clients: go install golang.org/x/tools/gopls@$gopls_version"
    rm -rf "$bin.tmp"
    GOBIN="$bin.tmp" GOFLAGS= go install "golang.org/x/tools/gopls@$gopls_version" && mv "$bin.tmp" "$bin"
  ) 9>"$cache/gopls.lock"
}

# The two downloads run at once: one waits on the network, the other mostly on the CPU.
fetch_gopls &
gopls_pid=$!
status=0
fetch_emacs || status=1
wait "$gopls_pid" || status=1
[ $status = 0 ] || exit 1
if [ "${1:-}" = download ]; then
  exit 0
fi

gopls=$cache/gopls-$gopls_version/gopls
if [ -z "${GOWEAVE_BIN:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  go build -o "$tmp/goweave" ./cmd/goweave
  export GOWEAVE_BIN=$tmp/goweave
fi
# The editors find gopls and goweave on PATH, as the snippets expect.
bin=$(mktemp -d)
# goweave on PATH copies what the editor sends it into $GOWEAVE_CAPTURE when that is set, and
# what it answers into $GOWEAVE_CAPTURE.out: the checks follow a session there, and the
# captures are compared with editors/clients/testdata (traces_current below).
cat >"$bin/goweave" <<WRAPPER
#!/bin/sh
if [ -n "\${GOWEAVE_CAPTURE:-}" ]; then
  tee -a "\$GOWEAVE_CAPTURE" | "$GOWEAVE_BIN" "\$@" | tee -a "\$GOWEAVE_CAPTURE.out"
else
  exec "$GOWEAVE_BIN" "\$@"
fi
WRAPPER
chmod +x "$bin/goweave"
ln -s "$gopls" "$bin/gopls"
export PATH="$bin:$PATH"
captures=$(mktemp -d)
trap 'rm -rf "$bin" "$captures" ${tmp:+"$tmp"}' EXIT

failed=0
# result NAME STATUS: prints the outcome of one check.
result() {
  if [ "$2" = 0 ]; then
    echo "--- ok   $1"
  else
    echo "--- FAIL $1"
    failed=$((failed + 1))
  fi
}

# Emacs: the end-to-end test, in batch mode.
emacs_e2e() {
  "$dir/emacs" --version | head -1
  gopls version | head -1
  # The elisp packages' source directories (lsp-mode, go-mode and what they require).
  local load_path
  load_path=$(find "$dir/root/usr/share/emacs/site-lisp/elpa-src" -mindepth 1 -maxdepth 1 -type d | tr '\n' ':')
  # goweave.el byte-compiles with no warning (into a copy: nothing is written in the clone).
  local work dirs=()
  work=$(mktemp -d)
  cp "$root/editors/emacs/goweave.el" "$work/"
  for d in ${load_path//:/ }; do dirs+=(-L "$d"); done
  "$dir/emacs" --batch "${dirs[@]}" --eval '(setq native-comp-jit-compilation nil
      native-comp-enable-subr-trampolines nil byte-compile-error-on-warn t)' \
    -f batch-byte-compile "$work/goweave.el" </dev/null && [ -f "$work/goweave.elc" ] &&
    echo "goweave.el byte-compiles without warnings" || { rm -rf "$work"; return 1; }
  rm -rf "$work"
  GOWEAVE_CAPTURE=$captures/emacs-lsp-mode GOWEAVE_BIN=$bin/goweave GOWEAVE_EMACS_LOAD_PATH=$load_path \
    timeout 900 "$dir/emacs" --batch -l "$root/editors/emacs/test/e2e.el" </dev/null
}

# Helix: hx --health go with the snippet as the user's languages.toml. hx exits 0 even when
# the file does not parse (it falls back to its defaults), so its report is read.
helix_health() {
  local config out
  config=$(mktemp -d)
  mkdir -p "$config/helix"
  cp "$root/editors/helix/languages.toml" "$config/helix/"
  "$dir/hx" --version
  out=$(XDG_CONFIG_HOME=$config "$dir/hx" --health go 2>&1 | sed 's/\x1b\[[0-9;]*m//g')
  printf '%s\n' "$out"
  if grep -qi 'error' <<<"$out" || ! grep -q "✓ gopls: $bin/gopls" <<<"$out" ||
    ! grep -q "✓ goweave: $bin/goweave" <<<"$out"; then
    rm -rf "$config"
    return 1
  fi
  rm -rf "$config"
}

# wait_for FILE PATTERN: waits (up to 5 minutes: a hang guard) until FILE holds PATTERN.
wait_for() {
  local i
  for i in $(seq 3000); do
    grep -q "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "timed out waiting for $2 in $1"
  return 1
}

# Helix for real: hx in a terminal (script's pty), keys typed into it. It opens the test
# file (goweave's background campaign finds the bug), opens metrics.go, selects the line
# of the send and runs the "Replay this bug" code action from its menu (space a, then up
# three times: Helix lists gopls's actions first, goweave's three on a diagnostic last);
# the replay must reproduce the bug. What hx sends at initialize is kept for
# traces_current. Each key waits for what it depends on in goweave's captured traffic.
helix_session() {
  local config work pid keys capture=$captures/helix status=1
  config=$(mktemp -d)
  mkdir -p "$config/helix"
  cp "$root/editors/helix/languages.toml" "$config/helix/"
  work=$(mktemp -d)
  cp -r "$root/examples" "$work/"
  keys=$work/keys
  mkfifo "$keys"
  (cd "$work/examples" && TERM=xterm-256color XDG_CONFIG_HOME=$config GOWEAVE_CAPTURE=$capture \
    exec timeout 600 script -qec "stty cols 160 rows 50; exec $dir/hx metrics/metrics_test.go" /dev/null \
    <"$keys" >"$work/screen" 2>&1) &
  pid=$!
  exec 7>"$keys"
  if wait_for "$capture.out" 'publishDiagnostics.*metrics/metrics.go.*"source":"goweave"'; then
    echo "goweave's diagnostic reached hx"
    printf ':open metrics/metrics.go\r' >&7
    wait_for "$capture" 'didOpen.*metrics/metrics.go' &&
      printf ':%s\rx a' "$(grep -n 'c.samples <- ' "$work/examples/metrics/metrics.go" | cut -d: -f1)" >&7 &&
      wait_for "$capture.out" '"title":"Replay this bug"' && sleep 1 &&
      printf '\x10\x10\x10\r' >&7 &&
      wait_for "$capture" '"command":"goweave.replay"' && echo "hx ran goweave.replay" &&
      wait_for "$capture.out" '"reproduced":true' && echo "the replay reproduced the bug" && status=0
  fi
  # Escape closes a menu left open; a pause, or hx reads escape and ':' as Alt-:.
  printf '\x1b' >&7
  sleep 1
  printf ':q!\r' >&7
  local i
  for i in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  exec 7>&-
  wait "$pid" 2>/dev/null || true
  rm -rf "$config" "$work"
  return $status
}

# The captures of Helix and Emacs still equal the traces the Go test replays.
traces_current() {
  GOWEAVE_CLIENT_CAPTURES="helix=$captures/helix emacs-lsp-mode=$captures/emacs-lsp-mode" \
    go test -count=1 -short -run 'TestTracesAreCurrent' -v ./editors/clients
}

# Kakoune: the snippet sourced, a Go buffer opened; the lsp_servers option kakoune-lsp
# would read must start gopls and goweave serve. (kakoune-lsp itself is not packaged by
# Debian: its side is the initialize trace in editors/clients.)
kakoune_config() {
  local work out
  work=$(mktemp -d)
  cat >"$work/check.kak" <<KAK
declare-option str lsp_servers
try %{ source $root/editors/kakoune/goweave.kak } catch %{ echo -to-file $work/out "error: %val{error}"; quit! 1 }
edit $work/x.go
set-option buffer filetype go
echo -to-file $work/out %opt{lsp_servers}
define-command -override lsp-execute-command -params 2 %{ echo -to-file $work/cmd %arg{@} }
goweave-stop
quit!
KAK
  "$dir/kak" -version
  timeout 60 "$dir/kak" -n -ui dummy -e "source $work/check.kak" </dev/null
  out=$(cat "$work/out" 2>/dev/null)
  local cmd want
  cmd=$(cat "$work/cmd" 2>/dev/null)
  want="goweave.stop [{uri = \"file://$work/x.go\"}]"
  rm -rf "$work"
  printf '%s\n' "$out" "goweave-stop runs: $cmd"
  [ "$cmd" = "$want" ] || { echo "want: $want"; return 1; }
  # gopls and goweave each a section; goweave's runs `goweave serve`.
  grep -qx '[[:space:]]*\[gopls\]' <<<"$out" &&
    grep -qx '[[:space:]]*\[goweave\]' <<<"$out" &&
    sed -n '/^[[:space:]]*\[goweave\]/,/^[[:space:]]*\[/p' <<<"$out" | grep -q 'command = "goweave"' &&
    sed -n '/^[[:space:]]*\[goweave\]/,/^[[:space:]]*\[/p' <<<"$out" | grep -q 'args = \["serve"\]'
}

for check in emacs_e2e helix_health helix_session kakoune_config traces_current; do
  echo "--- $check"
  # A failing check is reported, not the end of the script (set -e, pipefail).
  if "$check" 2>&1 | sed 's/^/    /'; then
    result "$check" 0
  else
    result "$check" 1
  fi
done
echo "clients: $((5 - failed)) passed, $failed failed"
[ "$failed" = 0 ]
