#!/usr/bin/env bash
# The main job: installs what it needs, then `plga verify` (Lean check + axiom audit
# + cross-check), writing reports/.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$ROOT/ci/setup.sh"
cd "$ROOT"
exec plga verify "$@"
