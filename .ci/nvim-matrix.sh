#!/usr/bin/env bash
# The Neovim releases the plugin is tested on, for .ci/run: prints their commands on stdout,
# one a line, for editors/test.sh's GOWEAVE_NVIM (progress goes to stderr):
#   - `nvim` on PATH (Debian bookworm's 0.7.2 on the CI machine: the plugin's floor),
#   - the latest 0.10 (Debian trixie's neovim package),
#   - the latest release (Debian sid's).
# trixie's and sid's Neovim are unpacked from their .debs with the libraries they link, and
# started through that suite's own dynamic loader (their glibc is newer than the machine's),
# so nothing is installed system-wide. They are cached in $GOWEAVE_CI_CACHE (default
# ~/.cache/goweave-ci), outside the clone, and fetched again when older than
# GOWEAVE_NVIM_MAX_AGE_DAYS (default 7) so that "latest" stays true; a failed refresh keeps
# the cached one. Needs apt-get and dpkg-deb (any Debian or Ubuntu), not root.
set -euo pipefail

cache=${GOWEAVE_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/goweave-ci}
max_age_days=${GOWEAVE_NVIM_MAX_AGE_DAYS:-7}
mkdir -p "$cache"

log() { printf '%s\n' "$*" >&2; }

# shellcheck source=debian.sh
. "$(dirname "${BASH_SOURCE[0]}")/debian.sh"

# unpack SUITE DIR: downloads neovim and what it links from SUITE into DIR (which must
# not exist) and writes DIR/nvim, a wrapper that starts it.
unpack() {
  local suite=$1 dir=$2
  suite_init "$suite" "$dir"
  # The shared libraries neovim depends on in that suite, plus the loader and libgcc.
  local deps
  deps=$(apt-cache "${suite_apt[@]}" depends --no-recommends --no-suggests neovim |
    awk '/Depends:/ {print $2}' | tr -d '<>' | sort -u)
  # shellcheck disable=SC2086 # deps is a list of package names
  suite_unpack "$dir" neovim neovim-runtime libc6 libgcc-s1 $deps
  local lib=$dir/root/usr/lib/x86_64-linux-gnu
  cat >"$dir/nvim" <<EOF
#!/bin/sh
# Neovim from Debian $suite, started with that suite's loader and libraries.
export VIM=$dir/root/usr/share/nvim
exec $lib/ld-linux-x86-64.so.2 --library-path $lib:$lib/lua/5.1 $dir/root/usr/bin/nvim "\$@"
EOF
  chmod +x "$dir/nvim"
  rm -rf "$dir/debs" "$dir/apt/archives"
}

# fetch SUITE: prints the command of SUITE's Neovim, from the cache when it is fresh.
fetch() {
  local suite=$1
  local dir=$cache/nvim-$suite
  (
    # One fetch per suite at a time, also across CI runs sharing the cache.
    flock 9
    if [ -x "$dir/nvim" ] && [ -z "$(find "$dir/stamp" -mtime +"$max_age_days" 2>/dev/null)" ] &&
      [ -e "$dir/stamp" ] && "$dir/nvim" --version >/dev/null 2>&1; then
      exit 0
    fi
    # The final path is in the wrapper, so unpack in place and keep the old copy aside
    # until the new one runs.
    rm -rf "$dir.old"
    [ -d "$dir" ] && mv "$dir" "$dir.old"
    log "nvim-matrix: fetching Neovim from Debian $suite into $dir"
    if unpack "$suite" "$dir" && "$dir/nvim" --version >/dev/null 2>&1; then
      touch "$dir/stamp"
      rm -rf "$dir.old"
    elif [ -d "$dir.old" ]; then
      log "nvim-matrix: fetching $suite's Neovim failed; using the cached one"
      rm -rf "$dir" && mv "$dir.old" "$dir"
    else
      log "nvim-matrix: fetching $suite's Neovim failed"
      exit 1
    fi
  ) 9>"$cache/nvim-$suite.lock" || return 1
  echo "$dir/nvim"
}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# The two downloads run at once: they wait on the network, not the CPU.
fetch trixie >"$out/trixie" &
trixie=$!
fetch sid >"$out/sid" &
sid=$!
status=0
wait "$trixie" || status=1
wait "$sid" || status=1

if command -v nvim >/dev/null 2>&1; then
  echo nvim
  log "nvim-matrix: nvim on PATH: $(nvim --version | head -1)"
fi
for suite in trixie sid; do
  if [ -s "$out/$suite" ]; then
    cat "$out/$suite"
    log "nvim-matrix: Debian $suite: $("$(cat "$out/$suite")" --version | head -1)"
  fi
done
exit $status
