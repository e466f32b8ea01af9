#!/usr/bin/env bash
# Makes a fresh machine ready, then runs the given command.
#   scripts/bootstrap.sh pnpm dev    # the dev server with the example agents
#   scripts/bootstrap.sh pnpm test   # every test plus the type-check
# Node 24 and the pinned pnpm come from the npm registry into .tools/ when the
# system Node is older; dependencies install from the lockfile. `pnpm test` then checks the
# Debian packages the tests use (scripts/ensure-system-packages.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION=24.21.0
PNPM_VERSION=10.34.9
TOOLS="$ROOT/.tools"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

want=("pnpm@$PNPM_VERSION")
need_node=0
if [ "$(node_major node)" -lt 24 ]; then want+=("node@$NODE_VERSION"); need_node=1; fi

have_pnpm="$("$TOOLS/node_modules/.bin/pnpm" -v 2>/dev/null || true)"
have_node="$("$TOOLS/node_modules/.bin/node" -v 2>/dev/null || true)"
if [ "$have_pnpm" != "$PNPM_VERSION" ] || { [ "$need_node" = 1 ] && [ "$have_node" != "v$NODE_VERSION" ]; }; then
  echo "bootstrap: installing ${want[*]} into .tools/ from the npm registry" >&2
  # The node package's preinstall fetches its platform binary: scripts must stay enabled.
  npm install --prefix "$TOOLS" --no-audit --no-fund --loglevel=error --ignore-scripts=false "${want[@]}" >&2
fi
export PATH="$TOOLS/node_modules/.bin:$PATH"
cd "$ROOT"
pnpm install --frozen-lockfile --reporter=append-only >&2
if [ "$#" -gt 0 ]; then exec "$@"; fi
