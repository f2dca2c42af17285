#!/usr/bin/env bash
# CI entry point: axiom audit + statement lock (see crosscheck/lean/axioms.py).
# Pass --update-lock to rewrite ci/statement-lock.json after an intended statement change.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/setup.sh"
cd "$ROOT"
exec plga lean audit "$@"
