#!/usr/bin/env bash
# The test command: installs what it needs, then runs the whole suite, including the
# Lean check and the axiom audit of Formal/ (the Lean toolchain installs on first use).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/setup.sh"
cd "$ROOT"
if ! ruff check pyref crosscheck tests benchmarks; then
  echo "[test] ruff found problems: run 'ruff check --fix' (then fix the rest by hand)"
  exit 1
fi
start=$(date +%s)
set +e
python -m pytest -ra --durations=15 "$@" tests
rc=$?
set -e
echo "[test] pytest finished in $(( $(date +%s) - start )) s (exit $rc)"
if [ "$rc" -eq 5 ]; then echo "[test] no tests were collected: failing"; exit 1; fi
exit "$rc"
