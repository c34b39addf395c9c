#!/usr/bin/env bash
# The real-editor end-to-end test of the VS Code extension: VS Code (code-server) in headless
# Chromium, driven by playwright-core (drive.js), with the .vsix installed exactly as users
# install it (code-server --install-extension) and goweave.path in the User settings pointing
# at the plain goweave binary. It opens a copy of examples/ as the folder, then what drive.js
# says; it fails on any goweave error notification or extension-host error.
#
#   run.sh GOWEAVE_BIN VSIX
#
# Env: GOWEAVE_CI_CACHE (installs, see install.sh), GOWEAVE_ARTIFACTS (where the screenshot
# directory goes; default $GOWEAVE_CI_CACHE/artifacts), COLD=1 (fresh Go build cache and
# goweave cache for the server: cold timings), ONLY_FIRST_DIAGNOSTIC=1 (stop at the first
# diagnostic: BENCHMARKS.md's measurement), TIMEOUT_SCALE (multiplies drive.js's waits),
# KEEP=1 (keep the work dir), DRIVE_TIMEOUT (seconds, default 900), FOLDER=DIR (open DIR, a
# copy of examples/ made on its first use and kept, instead of a new copy: the same project
# opened again, whose last campaign's findings the server shows at once), GOPLS=PATH (gopls:
# also install gopls-companion/, a stand-in for the Go extension's gopls client, and check
# goweave beside gopls; needs editors/vscode's node_modules for its bundle).
# Prints "screenshots: DIR" first and "timings: {...}" (JSON) at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
bin=$(realpath "${1:?usage: run.sh GOWEAVE_BIN VSIX}")
vsix=$(realpath "${2:?usage: run.sh GOWEAVE_BIN VSIX}")
cache=${GOWEAVE_CI_CACHE:-$HOME/.cache/goweave-ci}
artifacts=${GOWEAVE_ARTIFACTS:-$cache/artifacts}
shots=$artifacts/vscode-real-$(date +%Y%m%d-%H%M%S)-$$
mkdir -p "$shots"
echo "screenshots: $shots"

eval "$(GOWEAVE_CI_CACHE=$cache "$here/install.sh")"

work=$(mktemp -d "${TMPDIR:-/tmp}/goweave-vscode-real.XXXXXX")
cs_pid=
cleanup() {
  # code-server runs in its own session: end its whole process group (extension host,
  # file watcher, goweave serve and the tests it runs), only it.
  if [ -n "$cs_pid" ]; then
    kill -TERM -- "-$cs_pid" 2>/dev/null || true
    for _ in $(seq 1 20); do kill -0 -- "-$cs_pid" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$cs_pid" 2>/dev/null || true
  fi
  # The logs are artifacts too.
  [ -d "$work/ud/logs" ] && cp -r "$work/ud/logs" "$shots/vscode-logs" 2>/dev/null || true
  if [ "${KEEP:-}" = 1 ]; then echo "work dir kept: $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT

ud=$work/ud ext=$work/ext folder=${FOLDER:-$work/examples}
mkdir -p "$ud/User" "$ext" "$work/home"
[ -d "$folder" ] || cp -r "$repo/examples" "$folder"
# User settings, as a user writes them. goweave.path is a User setting on purpose: code-server
# is a remote window, where VS Code ignores User settings of machine scopes.
cat > "$ud/User/settings.json" <<JSON
{
  "goweave.path": "$bin",
  "goweave.trace.server": "messages",
  "goweave.budgetPerTest": "10s",
  "goweave.runsPerTest": 0,
  "security.workspace.trust.enabled": false,
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "extensions.ignoreRecommendations": true,
  "update.mode": "none",
  "chat.disableAIFeatures": true,
  "window.commandCenter": false,
  "files.autoSave": "off"
}
JSON

cs_env=(env PATH="$(dirname "$NODE24"):$PATH" XDG_CONFIG_HOME="$work/xdg-config" XDG_DATA_HOME="$work/xdg-data")
if [ "${COLD:-}" = 1 ]; then
  # A fresh Go build cache and goweave cache: what a first start on a new machine costs.
  cs_env+=(XDG_CACHE_HOME="$work/cache" GOCACHE="$work/cache/go-build")
fi

# The extension, as users install it.
"${cs_env[@]}" "$CODE_SERVER" --user-data-dir "$ud" --extensions-dir "$ext" --install-extension "$vsix" >"$shots/install-extension.log" 2>&1 ||
  { cat "$shots/install-extension.log"; exit 1; }

# gopls beside it: the companion bundled with editors/vscode's esbuild and vscode-languageclient.
if [ -n "${GOPLS:-}" ]; then
  gopls_bin=$(realpath "$GOPLS")
  companion=$work/gopls-companion
  cp -r "$here/gopls-companion" "$companion"
  NODE_PATH="$repo/editors/vscode/node_modules" "$repo/editors/vscode/node_modules/.bin/esbuild" "$here/gopls-companion/extension.js" --bundle --platform=node \
    --format=cjs --target=node20 --external:vscode --outfile="$companion/dist/extension.js" --log-level=warning
  (cd "$companion" && rm extension.js && "$repo/editors/vscode/node_modules/.bin/vsce" package --no-dependencies \
    --allow-missing-repository --skip-license --out "$work/gopls-companion.vsix") >"$shots/gopls-companion.log" 2>&1 ||
    { cat "$shots/gopls-companion.log"; exit 1; }
  "${cs_env[@]}" "$CODE_SERVER" --user-data-dir "$ud" --extensions-dir "$ext" --install-extension "$work/gopls-companion.vsix" \
    >>"$shots/install-extension.log" 2>&1 || { cat "$shots/install-extension.log"; exit 1; }
  cs_env+=(GOPLS="$gopls_bin")
fi

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"${cs_env[@]}" setsid "$CODE_SERVER" --auth none --bind-addr "127.0.0.1:$port" \
  --user-data-dir "$ud" --extensions-dir "$ext" \
  --disable-telemetry --disable-update-check --disable-workspace-trust \
  >"$shots/code-server.log" 2>&1 </dev/null &
cs_pid=$!
for i in $(seq 1 120); do
  curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && break
  kill -0 "$cs_pid" 2>/dev/null || { cat "$shots/code-server.log"; exit 1; }
  [ "$i" = 120 ] && { echo "code-server did not answer on port $port"; cat "$shots/code-server.log"; exit 1; }
  sleep 0.5
done

rc=0
NODE_PATH=$NODE_PATH_PLAYWRIGHT CHROMIUM=$CHROMIUM CS_URL="http://127.0.0.1:$port" FOLDER="$folder" SHOTS="$shots" \
  USER_DATA="$ud" GOWEAVE_BIN="$bin" GOPLS="${GOPLS:-}" \
  timeout "${DRIVE_TIMEOUT:-900}" node "$here/drive.js" || rc=$?
exit $rc
