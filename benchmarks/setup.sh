#!/usr/bin/env bash
# Create benchmarks/.venv with the pinned requirements and build tiktoken's
# o200k_base cache offline into benchmarks/.cache. Safe to run again.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY="${PYTHON:-python3}"
TIKTOKEN_SCRIPT="${TIKTOKEN_SCRIPT:-$HERE/../../shared/tools/setup_tiktoken_cache.sh}"
[ -f "$TIKTOKEN_SCRIPT" ] || TIKTOKEN_SCRIPT=/work/shared/tools/setup_tiktoken_cache.sh

[ -x "$HERE/.venv/bin/python" ] || "$PY" -m venv "$HERE/.venv"
# pip skips what is already installed at the pinned version.
"$HERE/.venv/bin/python" -m pip install -q --disable-pip-version-check -r "$HERE/requirements.txt"

check_tiktoken() {
  TIKTOKEN_CACHE_DIR="$CACHE" "$HERE/.venv/bin/python" -c \
    'import tiktoken; assert len(tiktoken.get_encoding("o200k_base").encode("hello world")) == 2' 2>/dev/null
}
# The tests' cached o200k_base (scripts/fetch_specs tiktoken) when it loads (baseline.py prefers it too),
# else benchmarks/.cache's: the shared script checks tiktoken's sha256 of the file; built only when missing.
CACHE="$HERE/../.cache/tiktoken/tiktoken_cache"
if ! check_tiktoken; then
  CACHE="$HERE/.cache/tiktoken_cache"
  if ! check_tiktoken; then
    BASE="$HERE/.cache" bash "$TIKTOKEN_SCRIPT"
    check_tiktoken
  fi
fi
# The GitHub task benchmark's upstream is the tests' pinned Prism (npm ci into .cache/prism, once).
if command -v npm >/dev/null; then
  (cd "$HERE/.." && "$HERE/.venv/bin/python" -c 'from scripts.sweep import oracle_upstream; oracle_upstream.install_prism()') \
    || echo "Prism did not install: the GitHub task benchmark cannot run" >&2
else
  echo "npm is missing (apt-get install npm): the GitHub task benchmark needs Prism" >&2
fi
# The replicas are compared with FastMCP behind one haproxy; without it that row is not measured.
if ! command -v haproxy >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  apt-get install -y -q haproxy >/dev/null || echo "haproxy did not install: the replica row is skipped" >&2
fi
echo "benchmarks env ready: $HERE/.venv (TIKTOKEN_CACHE_DIR=$CACHE)"
