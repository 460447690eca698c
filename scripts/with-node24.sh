#!/usr/bin/env bash
# Runs a command under Node >= 24 (the repository's development runtime). On a machine
# with an older Node it installs Node 24 from the npm registry once, into
# $UNDERSTUDY_NODE24_PREFIX (default ~/.node24), and puts it first on PATH.
set -euo pipefail
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  prefix="${UNDERSTUDY_NODE24_PREFIX:-$HOME/.node24}"
  if ! "$prefix/bin/node" --version 2>/dev/null | grep -q '^v24\.'; then
    echo "jest-understudy: installing Node 24 into $prefix (the machine has Node $(node --version))" >&2
    npm install --global --prefix "$prefix" node@24 --no-audit --no-fund >&2
  fi
  export PATH="$prefix/bin:$PATH"
fi
exec "$@"
