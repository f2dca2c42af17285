"""Run pytest node ids against a (mutated) pyref snapshot, in a forked child.

The test-scored functions (:data:`.generate.TEST_SCORED`) are scored by the test suite: for each
of their mutants a child imports the mutated copy of pyref (:func:`.snapshot.import_mutated`),
runs ``pytest.main([node ids..., "-x", "-q", "-p", "no:cacheprovider"])`` in-process (so the
test modules' ``import pyref`` finds the mutated package already in ``sys.modules``) and checks
afterwards that every imported ``pyref`` module came from the copy. A mutant is killed when a
test fails or a test module fails to collect (e.g. the mutated pyref raises on import); it
survives when every test passes. The same run on the unmutated copy (``trace=True``) is the
baseline: it must pass with no skipped test, and records the pyref lines the tests execute.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from .generate import pyref_dir
from .snapshot import NotTheCopyError, foreign_pyref_modules, import_mutated

PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider")


def repo_root() -> Path:
    """The repository root (the parent of the ``pyref`` package): node ids are relative to it."""
    return pyref_dir().parent


def node_path(node_id: str, root: Path | None = None) -> str:
    """A node id as pytest's argument: absolute, ``tests/x.py::t`` -> ``<root>/tests/x.py::t``."""
    file, sep, rest = node_id.partition("::")
    path = Path(file) if Path(file).is_absolute() else (root or repo_root()) / file
    return f"{path}{sep}{rest}"


class _Outcomes:
    """pytest plugin: the outcome of every test phase and collection."""

    def __init__(self):
        self.passed: list[str] = []
        self.failed: list[list[str]] = []      # [node id, first line of the error]
        self.skipped: list[str] = []

    @staticmethod
    def _message(report) -> str:
        crash = getattr(report.longrepr, "reprcrash", None)
        text = crash.message if crash is not None else str(report.longrepr)
        lines = [ln for ln in text.splitlines() if ln.strip()]
        return (lines[0] if lines else "failed")[:300]

    def pytest_runtest_logreport(self, report):
        if report.failed:
            self.failed.append([report.nodeid, f"{report.when}: {self._message(report)}"])
        elif report.skipped:
            self.skipped.append(report.nodeid)
        elif report.when == "call":
            self.passed.append(report.nodeid)

    def pytest_collectreport(self, report):
        if report.failed:
            self.failed.append([report.nodeid or "<collection>",
                                f"collection: {self._message(report)}"])


def line_tracer(root: str, hits: set):
    """A global trace hook recording (file, line) of the frames under ``root`` only."""
    wanted: dict[str, bool] = {}

    def local(frame, event, arg):
        if event == "line":
            hits.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def hook(frame, event, arg):
        fn = frame.f_code.co_filename
        keep = wanted.get(fn)
        if keep is None:
            keep = wanted[fn] = fn.startswith(root)
        return local if keep else None
    return hook


def pytest_run(m, base: Path, work: Path, tests: tuple[str, ...], trace: bool = False,
               root: Path | None = None) -> dict:
    """(In a child) import the snapshot ``base`` with the mutant ``m`` applied (None: unmutated)
    and run the pytest node ids ``tests``. Returns {"exit": pytest's exit code, "passed": n,
    "failed": [[node id, message]], "skipped": [node ids], "lines": {file: [line]} (with
    ``trace``)}, or {"killed_by": "<import>", "why": ...} if the mutated pyref does not import."""
    root = repo_root() if root is None else root
    try:
        pyref = import_mutated(m, base, work, root / "tests")
    except NotTheCopyError:
        raise
    except Exception as exc:  # the mutated pyref does not even import: every test fails
        return {"killed_by": "<import>", "why": f"{type(exc).__name__}: {exc}"}
    dst = Path(pyref.__file__).parent
    outcomes = _Outcomes()
    hits: set[tuple[str, int]] = set()
    # the tests' tmp_path under the child's own work directory (removed with it), not the shared
    # /tmp/pytest-of-<user> whose numbered directories concurrent sessions prune
    args = [node_path(t, root) for t in tests] + list(PYTEST_ARGS) + [
        f"--rootdir={root}", f"--basetemp={work / 'pytest-tmp'}"]
    if trace:
        sys.settrace(line_tracer(str(dst) + os.sep, hits))
    try:
        code = pytest.main(args, plugins=[outcomes])
    finally:
        sys.settrace(None)
    foreign = foreign_pyref_modules(dst)
    if foreign:
        raise NotTheCopyError(f"the tests imported pyref modules from outside the copy: "
                           f"{', '.join(foreign)}")
    lines: dict[str, list[int]] = defaultdict(list)
    for fn, line in sorted(hits):
        lines[fn[len(str(dst)) + 1:].replace(os.sep, "/")].append(line)
    return {"exit": int(code), "passed": len(outcomes.passed), "failed": outcomes.failed,
            "skipped": outcomes.skipped, "lines": lines, "pyref": str(pyref.__file__)}


def baseline_ok(res: dict) -> str | None:
    """None if a baseline run (unmutated pyref) passed cleanly, else why not."""
    if "error" in res or res.get("timeout"):
        return res.get("error") or "timeout"
    if res.get("killed_by"):
        return f"pyref does not import: {res['why']}"
    if res["failed"]:
        return f"{res['failed'][0][0]}: {res['failed'][0][1]}"
    if res["skipped"]:
        return f"skipped tests: {', '.join(res['skipped'])}"
    if res["exit"] != 0 or res["passed"] == 0:
        return f"pytest exit code {res['exit']} with {res['passed']} tests passed"
    return None
