# shellcheck shell=bash
# Sourced by the .ci scripts that unpack packages of a newer Debian suite (nvim-matrix.sh,
# clients.sh).

# archive_uri prints the Debian archive this machine's apt uses.
archive_uri() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}

# suite_init SUITE DIR: a private apt state for SUITE under DIR/apt (DIR/debs and DIR/root made
# too), its package lists fetched; sets suite_apt, the apt-get/apt-cache options that use it.
# No root needed: nothing of the system's apt is touched.
suite_init() {
  local suite=$1 dir=$2
  mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial" "$dir/debs" "$dir/root"
  echo "deb $(archive_uri) $suite main" >"$dir/apt/sources.list"
  suite_apt=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$dir/apt/lists" -o "Dir::Cache=$dir/apt" -o Debug::NoLocking=1)
  apt-get "${suite_apt[@]}" -qq update
}

# suite_unpack DIR PKG...: downloads the packages (after suite_init) into DIR/debs and unpacks
# each into DIR/root.
suite_unpack() {
  local dir=$1
  shift
  (cd "$dir/debs" && apt-get "${suite_apt[@]}" -qq download "$@") 2>&1 | grep -v 'unsandboxed' >&2 || true
  local deb
  for deb in "$dir"/debs/*.deb; do
    dpkg-deb -x "$deb" "$dir/root"
  done
}
