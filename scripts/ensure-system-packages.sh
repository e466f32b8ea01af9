#!/usr/bin/env bash
# Makes sure the Debian packages the tests use are installed; `pnpm test` runs it first.
#   postgresql  the SQL session, vector-store and analytics tests start a throwaway cluster from
#               /usr/lib/postgresql/*/bin (the package's own cluster is never started)
#   chromium    computer use and the dev UI's browser tests drive /usr/bin/chromium
#   procps      ps (the CLI start-up test counts the server's child processes)
#   iproute2    ip (the MCP conformance client runs in a network namespace with only loopback up)
#   python3     the Python code-executor tests (skipped without it)
# Missing packages are installed with apt-get when running as root, or through `sudo -n` when
# that needs no password; otherwise the script stops with the one command to run.
# AGENTKIT_SKIP_SYSTEM_PACKAGES=1 skips the check (a machine that provides them another way).
set -euo pipefail

PACKAGES=(postgresql chromium procps iproute2 python3)
say() { echo "ensure-system-packages: $*" >&2; }

if [ "${AGENTKIT_SKIP_SYSTEM_PACKAGES:-}" = "1" ]; then exit 0; fi
if ! command -v dpkg >/dev/null 2>&1; then
  say "no dpkg: not a Debian system. The tests need ${PACKAGES[*]} (PostgreSQL server binaries under /usr/lib/postgresql/<version>/bin, Chromium at /usr/bin/chromium); provide them, then run with AGENTKIT_SKIP_SYSTEM_PACKAGES=1."
  exit 1
fi

missing=()
for p in "${PACKAGES[@]}"; do
  # `dpkg -s` also succeeds for a removed package whose configuration files remain.
  status="$(dpkg -s "$p" 2>/dev/null | sed -n 's/^Status: //p' || true)"
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
[ "${#missing[@]}" -eq 0 ] && exit 0

apt_install=(apt-get install -y -qq "${missing[@]}")
if [ "$(id -u)" = "0" ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
  sudo=(sudo -n)
else
  say "missing Debian packages: ${missing[*]}. Install them with: sudo apt-get install -y ${missing[*]}"
  exit 1
fi
say "installing ${missing[*]} with apt-get"
if ! { "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive "${apt_install[@]}"; } >&2; then
  say "apt-get could not install ${missing[*]} (see above)"
  exit 1
fi
