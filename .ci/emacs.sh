#!/usr/bin/env bash
# The Emacs end-to-end test of editors/emacs (lsp-mode with goweave as an add-on client beside
# gopls), for .ci/run:
#   bash .ci/emacs.sh download   fetch what the test needs into the cache (.ci/run starts this
#                                in the background);
#   bash .ci/emacs.sh            fetch if needed, then run editors/emacs/test/e2e.el in batch mode.
# What it fetches, into $GOWEAVE_CI_CACHE (default ~/.cache/goweave-ci), outside the clone:
#   - Emacs 30 (emacs-nox) from Debian trixie, unpacked from its .debs with the libraries it links
#     and started through trixie's own dynamic loader (its glibc is newer than bookworm's), as
#     .ci/nvim-matrix.sh does for Neovim; nothing is installed system-wide;
#   - lsp-mode and the packages it requires from trixie's elpa-* packages (their sources:
#     added to load-path by the test, byte-compiled once here);
#   - gopls through the module proxy (gopls_version below; the newest gopls needs Go 1.27).
# Fetched again when older than GOWEAVE_EMACS_MAX_AGE_DAYS (default 30). Needs apt-get and
# dpkg-deb, not root. GOWEAVE_BIN=/path/to/goweave skips building goweave.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

suite=trixie
gopls_version=v0.21.1
cache=${GOWEAVE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goweave-ci}
max_age_days=${GOWEAVE_EMACS_MAX_AGE_DAYS:-30}
dir=$cache/emacs-$suite
mkdir -p "$cache"

log() { printf '%s\n' "$*" >&2; }

# archive_uri prints the Debian archive this machine's apt uses.
archive_uri() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# unpack: downloads emacs-nox, elpa-lsp-mode, elpa-go-mode and, recursively, the libraries and elpa packages
# they depend on in $suite into $dir (which must not exist); writes $dir/emacs, a wrapper.
unpack() {
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs" "$dir/root"
  echo "deb $(archive_uri) $suite main" >"$dir/apt/sources.list"
  local apt=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt" -o Debug::NoLocking=1)
  apt-get "${apt[@]}" -qq update
  # Runtime libraries and elisp only: no compilers, headers or sanitizers (libgccjit0 pulls
  # them in; Emacs links libgccjit but only calls it to compile natively, which we do not).
  local pkgs
  pkgs=$(apt-cache "${apt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
    --no-breaks --no-replaces --no-enhances emacs-nox elpa-lsp-mode elpa-go-mode | grep -v '^ ' | sort -u |
    grep -E '^(emacs-nox|emacs-bin-common|emacs-common|elpa-.*|lib.*)$' |
    grep -vE -- '-dev$|^lib(asan|hwasan|lsan|tsan|ubsan|gcc-[0-9]+-dev|c-dev-bin|isl|mpc|mpfr|binutils|ctf|gprofng|sframe)')
  # shellcheck disable=SC2086 # pkgs is a list of package names
  (cd "$dir/debs" && apt-get "${apt[@]}" -qq download $pkgs) 2>&1 | grep -v 'unsandboxed' >&2 || true
  local deb
  for deb in "$dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$dir/root"
  done
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
  chmod +x "$dir/emacs"
  rm -rf "$dir/debs" "$dir/apt/archives"
}

# fetch_emacs: unpacks Emacs and the elisp packages into $dir unless a fresh copy is there.
fetch_emacs() {
  (
    # One fetch at a time, also across CI runs sharing the cache.
    flock 9
    if [ -x "$dir/emacs" ] && [ -e "$dir/stamp" ] &&
      [ -z "$(find "$dir/stamp" -mtime +"$max_age_days" 2>/dev/null)" ] &&
      "$dir/emacs" --batch --eval '(kill-emacs 0)' >/dev/null 2>&1; then
      exit 0
    fi
    # The final path is in the wrapper, so unpack in place and keep the old copy aside
    # until the new one runs.
    rm -rf "$dir.old"
    [ -d "$dir" ] && mv "$dir" "$dir.old"
    log "emacs: fetching Emacs and lsp-mode from Debian $suite into $dir"
    if unpack && "$dir/emacs" --batch --eval '(kill-emacs 0)' >/dev/null 2>&1; then
      touch "$dir/stamp"
      rm -rf "$dir.old"
    elif [ -d "$dir.old" ]; then
      log "emacs: fetching $suite's Emacs failed; using the cached one"
      rm -rf "$dir" && mv "$dir.old" "$dir"
    else
      log "emacs: fetching $suite's Emacs failed"
      exit 1
    fi
  ) 9>"$cache/emacs-$suite.lock"
}

# fetch_gopls: builds gopls $gopls_version into the cache unless it is there.
fetch_gopls() {
  local bin=$cache/gopls-$gopls_version
  (
    flock 9
    [ -x "$bin/gopls" ] && exit 0
    log "emacs: go install golang.org/x/tools/gopls@$gopls_version"
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

"$dir/emacs" --version | head -1
gopls=$cache/gopls-$gopls_version/gopls
"$gopls" version | head -1
if [ -z "${GOWEAVE_BIN:-}" ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  go build -o "$tmp/goweave" ./cmd/goweave
  export GOWEAVE_BIN=$tmp/goweave
fi
# The elisp packages' source directories (lsp-mode, go-mode and what they require).
load_path=$(find "$dir/root/usr/share/emacs/site-lisp/elpa-src" -mindepth 1 -maxdepth 1 -type d | tr '\n' ':')
GOWEAVE_EMACS_LOAD_PATH=$load_path PATH="$(dirname "$gopls"):$PATH" \
  timeout 900 "$dir/emacs" --batch -l "$root/editors/emacs/test/e2e.el" </dev/null
