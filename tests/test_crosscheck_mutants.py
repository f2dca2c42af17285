"""Mutation testing: every shipped pyref mutant must be killed by some property; the generated
mutants (crosscheck.mutation) are produced as documented, a fixed sample of them is killed, and
a test-scored mutant is run by its tests against the mutated pyref and killed."""

from __future__ import annotations

import ast
import os
import time
from functools import partial

import pytest

from crosscheck.mutants import Mutant, all_mutants, apply, run_mutant
from crosscheck.mutation.equivalent import EQUIVALENT
from crosscheck.mutation.generate import generate, module_files, mutate_source, pyref_dir
from crosscheck.mutation.pool import Job, run_chains
from crosscheck.mutation.runner import (
    check_equivalent,
    coverage_pairs,
    run_generated,
    sample,
    summarize,
)
from crosscheck.mutation.scope import TEST_SCORED, ByTests, check_test_scored
from crosscheck.mutation.testrun import pytest_run, repo_root
from crosscheck.properties import load_properties
from crosscheck.report import build, write


def test_mutants_name_existing_killers():
    props = load_properties()
    for m in all_mutants():
        assert m.killers and all(k in props for k in m.killers), (m.name, m.killers)


def test_mutant_that_does_not_apply_is_an_error(tmp_path):
    (tmp_path / "x.py").write_text("a = 1\n")
    with pytest.raises(ValueError, match="expected the target text exactly once"):
        apply(Mutant("m", "x.py", "b = 2", "b = 3", "doc"), tmp_path)


ALL_MUTANTS = all_mutants()


@pytest.mark.parametrize("mutant", ALL_MUTANTS, ids=[m.name for m in ALL_MUTANTS])
def test_mutant_is_killed(mutant):
    r = run_mutant(mutant)
    assert r["killed"], f"{mutant.name} survived: {r['why']}"


# ============================================================================ generated
TINY = '''\
import numpy as np


def f(b: Backend, a, c, x, n):
    """A docstring: a + b."""
    y = np.matmul(a, c)
    z = a @ c
    w = a.T
    s = a + c
    d = a - c
    p = a * c
    q = a / c
    t = np.sum(x, axis=-1)
    i = x[..., 0]
    o = n + 1
    for k in range(n):
        pass
    for k in range(1, n):
        pass
    g = h(a, c)
    e = h(b, a)
    y += c
    return y
'''

#: (operator, original, mutated) of every mutant of TINY, in source order
TINY_EXPECTED = [
    ("matmul-swap", "np.matmul(a, c)", "np.matmul(c, a)"),
    ("transpose-lhs", "np.matmul(a, c)", "np.matmul(np.swapaxes(a, -1, -2), c)"),
    ("transpose-rhs", "np.matmul(a, c)", "np.matmul(a, np.swapaxes(c, -1, -2))"),
    ("matmul-swap", "a @ c", "c @ a"),
    ("transpose-lhs", "a @ c", "np.swapaxes(a, -1, -2) @ c"),
    ("transpose-rhs", "a @ c", "a @ np.swapaxes(c, -1, -2)"),
    ("transpose-drop", "a.T", "a"),
    ("drop-rhs", "a + c", "a"), ("drop-lhs", "a + c", "c"), ("arith", "a + c", "a - c"),
    ("drop-rhs", "a - c", "a"), ("arith", "a - c", "a + c"),
    ("arith", "a * c", "a / c"), ("arith", "a / c", "a * c"),
    ("axis", "np.sum(x, axis=-1)", "np.sum(x, axis=-2)"),
    ("index", "x[..., 0]", "x[..., 1]"),
    ("drop-rhs", "n + 1", "n"), ("drop-lhs", "n + 1", "1"), ("arith", "n + 1", "n - 1"),
    ("offset", "n + 1", "n + 2"),
    ("range-stop", "range(n)", "range(n - 1)"),
    ("range-start", "range(1, n)", "range(2, n)"), ("range-stop", "range(1, n)", "range(1, n - 1)"),
    ("arg-swap", "h(a, c)", "h(c, a)"),
    ("drop-rhs", "y += c", "pass"), ("arith", "y += c", "y -= c"),
]


@pytest.fixture(scope="module")
def pyref_mutants():
    return generate()


def _tiny(src: str = TINY):
    return mutate_source(src.encode(), "m", "m.py")


def test_generated_operators_on_a_tiny_source():
    ms = _tiny()
    assert [(m.operator, m.original, m.mutated) for m in ms] == TINY_EXPECTED
    # no swap with the Backend argument, no mutant of the docstring
    assert ms[0].id == "m:f:matmul-swap:0" and ms[3].id == "m:f:matmul-swap:1"
    for m in ms:  # one text edit: the file outside the replaced segment is byte-identical
        new = m.apply(TINY.encode())
        assert new[:m.start] == TINY.encode()[:m.start]
        assert new[m.start + len(m.replacement.encode()):] == TINY.encode()[m.end:]
        assert ast.dump(ast.parse(new)) != ast.dump(ast.parse(TINY))


def test_generated_ids_do_not_depend_on_line_numbers(pyref_mutants):
    before = {m.id: (m.original, m.mutated) for m in _tiny()}
    shifted = "\n\n# a comment\ndef other(u, v):\n    return u + v\n\n" + TINY
    after = {m.id: (m.original, m.mutated) for m in _tiny(shifted) if ":f:" in m.id}
    assert after == before
    assert [m.id for m in generate()] == [m.id for m in pyref_mutants]


VALIDATION = '''\
def g(x, n):
    if n < 0:
        raise ValueError(f"bad {n + 1}")
    assert x[0] + 1 > 0
    need_shape("g", x, (n + 1,))
    bad = x[1] - 1
    if bad:
        raise ValueError("x")
    if n == 0:
        tmp = x[2] + 3
        if tmp:
            raise ValueError("y")
    try:
        y = x + 1
    except KeyError:
        raise ValueError(f"z {x[3] + 1}") from None
    return y


def check_x(x):
    return x + 1
'''


def test_generated_skips_validation_code():
    ms = mutate_source(VALIDATION.encode(), "m", "m.py")
    assert {m.original for m in ms} == {"x + 1"} and all(m.line == 14 for m in ms)


def test_generated_mutants_of_pyref(pyref_mutants):
    ms = pyref_mutants
    assert len({m.id for m in ms}) == len(ms) > 500
    files = {m.file for m in ms}
    assert "ops.py" in files and "variants/kla.py" in files
    assert not files & {"inputs.py", "config.py", "checkpoint.py", "state_dict.py"}
    assert set(module_files(pyref_dir())) >= files
    assert {m.operator for m in ms} >= {"matmul-swap", "transpose-lhs", "drop-rhs", "axis",
                                        "index", "arg-swap", "arith"}


def test_equivalent_list_is_not_stale(pyref_mutants):
    check_equivalent(pyref_mutants)
    assert all(isinstance(r, str) and r for r in EQUIVALENT.values())
    with pytest.raises(ValueError, match="stale equivalent-mutant ids.*pyref.ops:gone:arith:0"):
        check_equivalent(pyref_mutants, {"pyref.ops:gone:arith:0": "a reason"})


def test_sample_is_deterministic_and_order_independent(pyref_mutants):
    ms = pyref_mutants
    a = sample(ms, 10)
    assert len(a) == 10 and [m.id for m in a] == [m.id for m in sample(list(reversed(ms)), 10)
                                                  [::-1]]


def test_coverage_pass_takes_the_arb_runs_only_when_asked():
    """By default the arb runs do not score mutants (scores comparable with the runs recorded
    before the properties ran on arb); ``--arb`` adds every property's arb run."""
    plain, with_arb = coverage_pairs(), coverage_pairs(arb=True)
    arb_runs = {(p.name, "arb") for p in load_properties().values() if "arb" in p.backends}
    assert arb_runs and not arb_runs & set(plain)
    assert set(with_arb) == set(plain) | arb_runs


def test_summary_score():
    rows = [{"module": "m", "operator": "o", "status": s}
            for s in ("killed", "killed-by-timeout", "survived", "not-covered", "equivalent")]
    t = summarize(rows)["totals"]
    assert t["mutants"] == 5 and t["equivalent"] == 1 and t["score"] == 0.5
    tested = [dict(r, function="f", scored_by="tests") for r in rows[:3]]
    s = summarize(rows + tested)   # the test-scored ones are tallied apart
    assert s["per_scorer"]["properties"]["score"] == 0.5 and s["totals"]["mutants"] == 8
    assert s["per_scorer"]["tests"]["score"] == s["per_module"]["m (tests)"]["score"] == 0.6667
    assert s["per_module"]["m"]["mutants"] == 5 and list(s["per_test_function"]) == ["m:f"]


def _crash():
    raise RuntimeError("boom")


def _chain(out: list, fns, timeout=30.0):
    for fn in fns:
        out.append((yield Job(fn, timeout)))


def test_pool_runs_chains_in_forked_children():
    a, b = [], []
    parent = os.getpid()
    run_chains([_chain(a, [lambda: {"pid": os.getpid()}, _crash]),
                _chain(b, [lambda: time.sleep(30) or {}], timeout=0.5)], jobs=2)
    assert a[0]["pid"] != parent and a[1]["error"] == "RuntimeError: boom"
    assert b[0]["timeout"] is True and b[0]["seconds"] < 10


def test_report_renders_generated_section(tmp_path):
    rec = {"id": "pyref.ops:f:arith:0", "module": "pyref.ops", "function": "f",
           "operator": "arith", "line": 3, "col": 4, "original": "a + b", "mutated": "a - b"}
    rows = [dict(rec, status="killed"), dict(rec, id="pyref.ops:f:arith:1", status="survived"),
            dict(rec, id="pyref.ops:f:arith:2", status="equivalent", why="a reason")]
    gen = {"profile": "ci", "seed": 0, "sample": None, "modules": ["ops.py"],
           "skipped_modules": {"inputs.py": "validation"}, **summarize(rows), "mutants": rows}
    write(build([], generated=gen), tmp_path)
    md = (tmp_path / "VERIFICATION.md").read_text()
    assert "## Generated mutants" in md and "| `pyref.ops` | 3 | 1 | 0 | 1 | 0 | 1 | 50.0% |" in md
    assert "`pyref.ops:f:arith:1` (line 3, survived): `a + b` → `a - b`" in md
    assert "`pyref.ops:f:arith:2`: `a + b` → `a - b` — a reason" in md
    assert "Scored by the test suite" not in md
    tested = [dict(rec, id="pyref.ops:g:arith:0", function="g", scored_by="tests",
                   status="killed"),
              dict(rec, id="pyref.ops:g:arith:1", function="g", scored_by="tests",
                   status="survived")]
    gen.update(summarize(rows + tested), mutants=rows + tested,
               test_scored={"pyref.ops:g": {"why": "w", "tests": ["tests/test_x.py"]}})
    write(build([], generated=gen), tmp_path)
    md = (tmp_path / "VERIFICATION.md").read_text()
    assert "| `pyref.ops` | 3 | 1 | 0 | 1 | 0 | 1 | 50.0% |" in md        # properties only
    assert "| `pyref.ops:g` | `tests/test_x.py` | 2 | 1 | 0 | 1 | 0 | 0 | 50.0% |" in md
    assert "score (test suite): **50.0%** (1/2" in md and "score (all): **50.0%** (2/4" in md
    assert "`pyref.ops:g:arith:1` (line 3, survived, tests)" in md


#: the modules of the CI sample, and the mutants per module (chosen by a hash of the id)
CI_SAMPLE = {"ops.py": 2, "rope.py": 1, "attention.py": 2, "losses.py": 2,
             "variants/kla.py": 2, "variants/mhc.py": 1}


def test_generated_sample_is_killed():
    """A fixed sample of the property-scored generated mutants (by a hash of the id, not by
    outcome): each is killed by the ci profile or a reviewed equivalent. The coverage pass that
    selects the properties runs 2 examples per property (the full run uses the ci profile)."""
    ids = [m.id for f, n in CI_SAMPLE.items()
           for m in sample([m for m in generate(files=[f]) if not m.tests], n)]
    res = run_generated(ids=ids, jobs=2, coverage_examples=2, progress=False)
    bad = [f"{m['id']} ({m['status']}): `{m['original']}` -> `{m['mutated']}`"
           for m in res["mutants"] if m["status"] not in ("killed", "equivalent")]
    assert len(res["mutants"]) == len(ids) and not bad, bad


# ============================================================================ test-scored
NESTED = """\
def outer(a, c):
    def inner(x):
        return x + 1
    return inner(a) - c


def other(a, c):
    return a * c
"""


def test_test_scored_functions_carry_their_tests(monkeypatch, pyref_mutants):
    monkeypatch.setitem(TEST_SCORED, "m:outer", ByTests("why", ("tests/t.py::x",)))
    ms = mutate_source(NESTED.encode(), "m", "m.py")
    by_fn = {m.function: m.tests for m in ms}
    assert by_fn == {"outer": ("tests/t.py::x",), "outer.inner": ("tests/t.py::x",),
                     "other": ()}                       # a nested function inherits
    only = mutate_source(NESTED.encode(), "m", "m.py", only_test_scored=True)
    assert {m.function for m in only} == {"outer", "outer.inner"}
    # in pyref: exactly the listed functions are test-scored, each with its listed tests
    scored = {f"{m.module}:{m.function}": m.tests for m in pyref_mutants if m.tests}
    assert scored and all(TEST_SCORED[f].tests == t for f, t in scored.items())
    assert {"pyref.ops:rotate_tables", "pyref.model:_random_params",
            "pyref.semantics:hf_generate_positions"} <= set(scored)
    assert {m.function for m in pyref_mutants if m.module == "pyref.semantics"} == {
        "hf_generate_positions"}                        # a skipped module: only those


def test_test_scored_list_is_not_stale():
    check_test_scored(pyref_dir(), repo_root())
    with pytest.raises(ValueError, match=r"pyref.ops:gone \(no such function\).*"
                                         r"tests/nope.py \(no such test file\)"):
        check_test_scored(pyref_dir(), repo_root(), {
            "pyref.ops:gone": ByTests("w", ("tests/test_hf_port.py",)),
            "pyref.ops:rotate_tables": ByTests("w", ("tests/nope.py",))})


PROBE = """\
import inspect

import pyref
from pyref import ops


def test_probe():
    assert pyref.__file__.startswith({work!r})
    assert {mutated!r} in inspect.getsource(ops.rotate_tables)
"""


def test_test_child_imports_the_mutated_pyref(tmp_path):
    """The pytest child of a test-scored mutant: the test module's ``import pyref`` gets the
    mutated copy (its file and the mutated source line); on the unmutated copy the same probe
    fails, so the probe can tell the two apart."""
    m = next(m for m in generate(files=["ops.py"]) if m.id == "pyref.ops:rotate_tables:arith:0")
    probe = tmp_path / "probe" / "test_probe.py"
    probe.parent.mkdir()
    probe.write_text(PROBE.format(work=str(tmp_path / "w"), mutated=m.mutated))
    out: list = []
    run_chains([_chain(out, [partial(pytest_run, mm, pyref_dir(), tmp_path / f"w{k}",
                                     (str(probe),)) for k, mm in ((1, m), (2, None))])], jobs=1)
    mutated, plain = out
    assert mutated["exit"] == 0 and mutated["passed"] == 1 and not mutated["failed"], mutated
    assert mutated["pyref"].startswith(str(tmp_path / "w1" / "pyref"))
    assert plain["passed"] == 0 and plain["failed"][0][0].endswith("::test_probe"), plain


def test_test_scored_mutant_is_killed_by_its_tests():
    """A RoPE-table mutant of the HF port (no property runs it): generated, run by its tests
    (tests/test_hf_port.py, after a clean baseline run on the unmutated pyref) and killed."""
    mid = "pyref.ops:rotate_tables:arith:0"   # xa * cos - xb * sin -> xa * cos + xb * sin
    res = run_generated(ids=[mid], jobs=1, progress=False)
    (rec,) = res["mutants"]
    assert rec["scored_by"] == "tests" and rec["tests"] == ["tests/test_hf_port.py"]
    assert rec["status"] == "killed", rec
    assert rec["killed_by"].startswith("tests/test_hf_port.py::test_"), rec
    assert res["coverage"]["runs"] == 0                 # no property coverage pass needed
    (base,) = res["coverage"]["test_baselines"]
    assert base["ok"] and base["passed"] >= 30
    assert res["per_module"] == {"pyref.ops (tests)": res["per_scorer"]["tests"]}


def test_every_function_of_the_arb_rigour_modules_is_test_scored(pyref_mutants):
    """The arb modules whose rigour only their own tests can see are scored by those tests
    whole: a function added there without a TEST_SCORED entry would count as not covered."""
    for mod in ("arb_centered", "arb_matmul", "arb_precision"):
        ms = [m for m in pyref_mutants if m.module == f"pyref.{mod}"]
        assert ms and all(m.tests == (f"tests/test_{mod}.py",) for m in ms), mod
