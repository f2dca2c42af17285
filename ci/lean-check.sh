#!/usr/bin/env bash
# CI entry point: kernel-check every module of Formal/ (see crosscheck/lean/check.py).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/setup.sh"
cd "$ROOT"
exec plga lean check --no-cache "$@"
