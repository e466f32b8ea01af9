#!/usr/bin/env bash
# The whole test run: every package's jest tests (against sources) and the type-check of
# sources and tests, through turbo; then the summed closing line. Fails if anything failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The Debian packages the tests use (PostgreSQL, Chromium, ...): installed when missing and
# possible, else a one-line instruction and no test run.
bash scripts/ensure-system-packages.sh || exit 1
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
# Stale results must not count: a package whose tests crash must show up as missing.
find packages apps examples bench scripts -maxdepth 2 -name .jest-results.json -not -path '*/node_modules/*' -delete 2>/dev/null
rc=0
# Two tasks at a time on this 2-core machine: more only oversubscribes the CPU and makes the
# tests that spawn child processes miss their timeouts.
turbo run test typecheck typecheck:sources --continue --concurrency="${AGENTKIT_TEST_CONCURRENCY:-2}" --output-logs=errors-only "$@" || rc=$?
if [ "$rc" -ne 0 ]; then echo "turbo: a test or type-check task failed (see above)" >&2; fi
# Last line of the run: "N passed, N failed, N skipped".
node scripts/test-summary.mjs || rc=1
exit "$rc"
