#!/usr/bin/env bash
# Create (once) the project virtualenv .venv and install the project into it.
# Sourced by ci/test.sh and ci/verify.sh; safe to run repeatedly.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${PLGA_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
  echo "[setup] creating virtualenv $VENV"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.plga-installed"
if [ ! -f "$stamp" ] || [ "$ROOT/pyproject.toml" -nt "$stamp" ]; then
  echo "[setup] installing the project and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null
  "$VENV/bin/python" -m pip install --quiet -e "$ROOT[plot,dev]"
  touch "$stamp"
fi
export PATH="$VENV/bin:$PATH"
