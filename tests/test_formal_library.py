"""The project's own Formal/ library: every module kernel-checks, and the axiom audit
passes against the committed statement lock (ci/statement-lock.json)."""

from __future__ import annotations

import pytest
from conftest import REPO

from crosscheck.lean.axioms import ALLOWED_AXIOMS, audit
from crosscheck.lean.check import check

pytestmark = pytest.mark.lean


def test_formal_library_kernel_checks(toolchain, capsys):
    res = check(REPO, toolchain, jobs=2, use_cache=False)
    with capsys.disabled():
        print("\n" + res.summary())
        for r in res.results:
            print(f"    {r.rel:<48} {r.seconds:6.1f} s")
    assert res.ok, [r.problem for r in res.results if not r.ok]


def test_formal_library_axiom_audit(toolchain, tmp_path, capsys):
    res = audit(REPO, toolchain, reports=tmp_path)
    with capsys.disabled():
        print(f"\naxiom audit: {len(res.theorems)} theorems in {res.seconds:.1f} s")
    assert res.ok, res.failures
    assert res.theorems, "no theorems found in Formal/"
    for t in res.theorems:
        assert set(t.axioms) <= set(ALLOWED_AXIOMS), (t.name, t.axioms)
    rows = [line for line in (tmp_path / "axioms.md").read_text().splitlines()
            if line.startswith("| `")]
    assert len(rows) == len(res.theorems)  # one table row per theorem
