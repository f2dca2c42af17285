"""The cross-check harness: registry coverage, every property on every backend (ci
profile), the interval certificates, and the report."""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import numpy as np
import pytest

from crosscheck.certificates import perron_certificate, rope_nonresonance
from crosscheck.fuzz import run_property
from crosscheck.justifications import JUSTIFICATIONS
from crosscheck.properties import load_properties
from crosscheck.registry import locked_theorems
from crosscheck.report import MAIN_RESULTS

PROPS = load_properties()
LOCKED = locked_theorems()


def test_every_locked_theorem_is_covered():
    missing = [n for n in LOCKED if not any(n in p.theorems for p in PROPS.values())
               and n not in JUSTIFICATIONS]
    assert not missing, f"locked theorems with neither a property nor a justification: {missing}"


def test_properties_name_existing_theorems():
    unknown = {p.name: [t for t in p.theorems if t not in LOCKED] for p in PROPS.values()}
    unknown = {k: v for k, v in unknown.items() if v}
    assert not unknown, f"properties naming theorems that are not in the statement lock: {unknown}"
    stale = [n for n in JUSTIFICATIONS if n not in LOCKED]
    assert not stale, f"justifications for theorems not in the lock: {stale}"


@pytest.mark.parametrize("name,backend", [(p.name, b) for p in PROPS.values() for b in p.backends])
def test_property_holds(name, backend):
    r = run_property(PROPS[name], backend, profile="ci", seed=0)
    assert r.ok, r.counterexample
    assert r.examples >= 2
    # non-vacuity: the generated inputs must meet the theorem's hypotheses most of the time
    assert r.met_fraction >= 0.5, f"only {r.met}/{r.examples} examples met the hypotheses"


def test_rope_reference_configuration_is_non_resonant():
    c = rope_nonresonance(64, 1e4)
    assert c.certified and c.min_abs_sin > 1e-4 and c.min_abs_cos_gap > 1e-9


def test_resonant_configuration_is_not_certified():
    # base 1: every θ_j = 1, so cos θ_j − cos θ_k = 0 exactly
    assert not rope_nonresonance(8, 1.0).certified


def test_perron_certificate_encloses_the_root():
    A = np.random.default_rng(3).uniform(0.1, 1.0, (6, 6))
    c = perron_certificate(A)
    with mpmath.workdps(40):  # reference spectrum far more accurate than the enclosure width
        ev = mpmath.eig(mpmath.matrix(A.tolist()), left=False, right=False)
        mods = sorted(abs(e) for e in ev)
        rho = max(e.real for e in ev)
        assert c.certified
        assert c.root_lo <= rho <= c.root_hi and c.root_hi - c.root_lo < 1e-12
        assert mods[-2] <= c.other_radius < c.root_lo


def test_perron_certificate_rejects_nonpositive():
    with pytest.raises(ValueError, match=r"entry \(0, 1\) = 0.0 is not positive"):
        perron_certificate(np.array([[1.0, 0.0], [1.0, 1.0]]))


def test_fuzz_cli_and_report(tmp_path):
    r = subprocess.run([sys.executable, "-m", "crosscheck", "fuzz", "--reports", str(tmp_path),
                        "--examples", "3",
                        "--theorem", "PLGA.Mat.mul_assoc"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "fuzz-results.json").read_text())
    assert {x["prop"] for x in data["results"]} == {"matmul_associative"}
    r = subprocess.run([sys.executable, "-m", "crosscheck", "report", "--reports", str(tmp_path)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    md = (tmp_path / "VERIFICATION.md").read_text()
    assert "`PLGA.Mat.mul_assoc`" in md and "matmul_associative" in md


def test_fuzz_cli_unknown_theorem_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "crosscheck", "fuzz", "--reports", str(tmp_path),
                        "--theorem", "No.Such.theorem"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 2
    assert "no property checks 'No.Such.theorem'" in r.stderr and "Traceback" not in r.stderr


def test_main_results_are_locked_and_have_properties():
    for label, names in MAIN_RESULTS.items():
        for n in names:
            assert n in LOCKED, f"{label}: {n} is not in the statement lock"
            has_property = any(n in p.theorems for p in PROPS.values())
            assert has_property, f"{label}: {n} has no cross-check property"


def test_spec_evaluator_shares_no_code_with_pyref():
    """The independent evaluator (crosscheck/spec_eval) imports neither pyref nor numpy nor the
    property modules (which import pyref): a bug in pyref cannot cancel against it."""
    code = ("import importlib, pkgutil, sys\n"
            "import crosscheck.spec_eval as s\n"
            "for i in pkgutil.iter_modules(s.__path__):\n"
            "    importlib.import_module('crosscheck.spec_eval.' + i.name)\n"
            "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('pyref', 'numpy')\n"
            "             or m.startswith('crosscheck.properties'))\n"
            "print(bad)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
