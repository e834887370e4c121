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

CACHE="$HERE/.cache/tiktoken_cache"
check_tiktoken() {
  TIKTOKEN_CACHE_DIR="$CACHE" "$HERE/.venv/bin/python" -c \
    'import tiktoken; assert len(tiktoken.get_encoding("o200k_base").encode("hello world")) == 2' 2>/dev/null
}
# The shared script checks tiktoken's sha256 of the file; rebuild only when the cache does not load.
if ! check_tiktoken; then
  BASE="$HERE/.cache" bash "$TIKTOKEN_SCRIPT"
  check_tiktoken
fi
echo "benchmarks env ready: $HERE/.venv (TIKTOKEN_CACHE_DIR=$CACHE)"
