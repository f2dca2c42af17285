"""The Lean pipeline end to end, with the real (WASM or native) Lean.

The audit must fail, naming the theorem and the axiom, on a copy of the fixture
library where a proof is replaced by ``sorry``, where an ``axiom`` is added and used,
where ``native_decide`` is used, and where a statement is weakened without updating
the lock. Each case is one Lean process (~20-60 s here)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from crosscheck.lean.axioms import audit
from crosscheck.lean.check import check

pytestmark = pytest.mark.lean


def edit(root, rel, old, new):
    p = root / rel
    text = p.read_text()
    assert old in text, f"fixture changed: {old!r} not in {rel}"
    p.write_text(text.replace(old, new))


def run_audit(root, tc):
    return audit(root, tc, lock_path=root / "statement-lock.json", reports=root / "reports")


def test_fixture_audit_passes_and_reports(mini_project, toolchain):
    res = run_audit(mini_project, toolchain)
    assert res.ok, res.failures
    by = {t.name: t for t in res.theorems}
    assert by["Mini.choice_used"].axioms == ["Classical.choice"]
    assert by["Mini.double_eq"].axioms == []
    md = (mini_project / "reports" / "axioms.md").read_text()
    for name in by:
        assert f"`{name}`" in md
    assert (mini_project / "reports" / "axioms.json").exists()


def test_audit_catches_sorry(mini_project, toolchain):
    edit(mini_project, "Formal/Base.lean", "by\n  unfold double; omega", "by\n  sorry")
    res = run_audit(mini_project, toolchain)
    assert not res.ok
    assert any("Mini.double_eq" in f and "sorryAx" in f for f in res.failures), res.failures
    assert any("forbidden `sorry`" in f for f in res.failures)


def test_audit_catches_used_axiom(mini_project, toolchain):
    edit(mini_project, "Formal/Uses.lean", "end Mini",
         "axiom cheat : (1 : Nat) = 2\n\ntheorem one_eq_two : (1 : Nat) = 2 := cheat\n\nend Mini")
    res = run_audit(mini_project, toolchain)
    assert not res.ok
    assert any("Mini.one_eq_two" in f and "forbidden axiom(s) Mini.cheat" in f
               for f in res.failures), res.failures


def test_audit_catches_native_decide(mini_project, toolchain):
    edit(mini_project, "Formal/Uses.lean", "end Mini",
         "theorem big_lt : 1000 < 2000 := by native_decide\n\nend Mini")
    res = run_audit(mini_project, toolchain)
    assert not res.ok
    assert any("Mini.big_lt" in f and "Lean.ofReduceBool" in f for f in res.failures), res.failures


def test_audit_catches_weakened_statement_and_vanished_theorem(mini_project, toolchain):
    edit(mini_project, "Formal/Base.lean", "double n = 2 * n := by\n  unfold double; omega",
         "double n ≥ 2 * n := by\n  unfold double; omega")
    edit(mini_project, "Formal/Base.lean",
         "theorem em_prop (p : Prop) : p ∨ ¬p := Classical.em p", "")
    res = run_audit(mini_project, toolchain)
    assert not res.ok
    assert any("Mini.double_eq" in f and "differs from the lock" in f
               for f in res.failures), res.failures
    assert any("Mini.em_prop is in the statement lock" in f for f in res.failures), res.failures


def test_check_reports_syntax_error_with_location(mini_project, toolchain):
    edit(mini_project, "Formal/Uses.lean", "theorem double_add", "theorem double_add (oops")
    res = check(mini_project, toolchain, jobs=1, use_cache=False)
    assert not res.ok
    bad = {r.rel: r for r in res.results if not r.ok}
    assert "Formal/Uses.lean" in bad
    assert bad["Formal/Uses.lean"].problem.startswith("Formal/Uses.lean:")
    assert "Formal/Base.lean" not in bad
    # the root module is skipped, not checked, because its dependency failed
    assert bad["Formal.lean"].problem.startswith("not checked: depends on failed")


def test_cli_audit_exit_code_on_failure(mini_project, toolchain):
    edit(mini_project, "Formal/Base.lean", "by\n  unfold double; omega", "by\n  sorry")
    r = subprocess.run([sys.executable, "-m", "crosscheck", "lean", "audit", "--root",
                        str(mini_project),
                        "--lock", str(mini_project / "statement-lock.json")],
                       capture_output=True, text=True, timeout=1200)
    assert r.returncode == 1
    assert "Mini.double_eq" in r.stdout and "sorryAx" in r.stdout
    assert "Traceback" not in r.stderr
