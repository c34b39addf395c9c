# Sourced by the .ci scripts that unpack packages of a newer Debian suite (nvim-matrix.sh,
# clients.sh).

# archive_uri prints the Debian archive this machine's apt uses.
archive_uri() {
  local uri
  uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -1 || true)
  [ -n "$uri" ] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' | grep -v security | head -1 || true)
  echo "${uri:-http://deb.debian.org/debian}"
}
