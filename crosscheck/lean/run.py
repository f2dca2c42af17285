"""Run one Lean process on one file and collect its diagnostics (``--json`` mode)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ToolchainError
from .toolchain import Toolchain


@dataclass
class Diagnostic:
    severity: str  # "error" | "warning" | "information"
    file: str
    line: int
    col: int
    message: str

    def format(self) -> str:
        msg = self.message.rstrip()
        return f"{self.file}:{self.line}:{self.col}: {self.severity}: {msg}"

    @property
    def is_sorry(self) -> bool:
        return ("declaration uses `sorry`" in self.message
                or "declaration uses 'sorry'" in self.message)


@dataclass
class LeanRun:
    returncode: int
    seconds: float
    diagnostics: list[Diagnostic] = field(default_factory=list)
    timed_out: bool = False
    stderr_tail: str = ""

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.severity == "error" or d.is_sorry]

    @property
    def infos(self) -> list[str]:
        return [d.message for d in self.diagnostics if d.severity == "information"]


def run_lean(tc: Toolchain, rel_file: str, cwd: Path, search_path: list[Path],
             olean_out: Path | None = None, timeout: float = 900.0) -> LeanRun:
    """Elaborate ``cwd/rel_file`` (and kernel-check it); write ``olean_out`` if given."""
    argv = list(tc.argv_prefix) + ["--json"]
    if olean_out is not None:
        olean_out.parent.mkdir(parents=True, exist_ok=True)
        argv += ["-o", str(olean_out)]
    argv.append(rel_file)
    start = time.monotonic()
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=tc.env(search_path), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
    except OSError as exc:
        raise ToolchainError(f"cannot start Lean ({argv[0]}): {exc.strerror}") from None
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        out, err = proc.communicate()
    secs = time.monotonic() - start
    run = LeanRun(proc.returncode if not timed_out else -1, secs, timed_out=timed_out)
    for line in (out or "").splitlines():
        if not line.startswith("{"):
            continue
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(msg, dict) or "severity" not in msg:
            continue
        pos = msg.get("pos") or {}
        run.diagnostics.append(Diagnostic(
            str(msg.get("severity")), str(msg.get("fileName", rel_file)),
            int(pos.get("line") or 0), int(pos.get("column") or 0), str(msg.get("data", ""))))
    tail = [e for e in (err or "").splitlines()
            if e.strip() and "[DEBUG" not in e and not e.startswith("  ")]
    run.stderr_tail = "\n".join(tail[-5:])
    return run
