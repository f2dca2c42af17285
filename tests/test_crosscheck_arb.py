"""The properties on Arb (issue 17 item 4): rigorous verdicts of sub-checks on balls
(:mod:`crosscheck.arbcheck`), the rigour gain over mp's 1e-40 bound, ties not certified, and
mp/float64 outcomes unchanged."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from flint import arb, ctx

import pyref
from crosscheck.arbcheck import Dev, Tol, ball_verdict, maxabs_ball
from crosscheck.fuzz import PROFILES, RunResult, run_property
from crosscheck.properties import load_properties
from crosscheck.properties._arith import bound, maxabs
from crosscheck.registry import Checks, Outcome, combine, ratio
from crosscheck.report import build, write

PROPS = load_properties()


def test_equality_ball_verdicts():
    t = bound("arb", 10, 1.0)
    assert isinstance(t, Tol) and t.a == 0 and t.t == pytest.approx(1e-25)
    assert ball_verdict(arb(0), t) == (0.0, "certified")                  # the exact zero ball
    r, v = ball_verdict(arb(0, 1e-50), t)
    assert v == "nonrefuted" and r <= 1                                   # contains 0, tiny
    assert ball_verdict(arb(0, 1e-20), t)[1] == "undecided"               # contains 0, too wide
    assert ball_verdict(arb("1e-45", 1e-57), t) == (math.inf, "refuted")  # certainly nonzero
    o = combine([("eq", arb(0, 1e-20), t)])
    assert not o.ok and "undecided: more digits needed" in o.note and o.verdict == "undecided"


def test_tie_is_not_certified():
    # a true inequality dev ≤ 1 whose ball touches the bound: non-refuted at best, never certified
    ch = Checks()
    ch.le("x ≤ 1 (tie)", arb(1, 1e-50), 1.0)
    assert ch.outcome().verdict == "nonrefuted"
    # a strict margin with a tie (0 < margin − resolution, the ball contains 0): not certified
    ch = Checks()
    ch.margin("resolution < margin (tie)", arb(1), arb(1, 1e-50))
    o = ch.outcome()
    assert not o.ok and o.verdict == "undecided"
    ch = Checks()
    ch.margin("resolution < margin", arb(1), arb(2, 1e-50))
    assert ch.outcome().verdict == "certified"


def test_maxabs_hull_is_rigorous_and_python_max_sound():
    with ctx.workprec(192):
        x = np.array([arb(0), arb(0, 1e-20), arb("-1e-30", 1e-40)], dtype=object)
        m = maxabs(x)
    assert isinstance(m, Dev) and m.upper() >= arb("1e-20") and m.lower() <= 0
    # Python's max over deviations keeps the largest upper end (an exact 0 does not hide a wide
    # ball), and max(0.0, dev) keeps a ball that reaches above 0
    a, b = maxabs_ball([arb(0)]), maxabs_ball([arb(0, 1e-20)])
    assert max(a, b) is b and max(b, a) is b and max(0.0, b) is b and max(b, 0.0) is b
    assert not (b > 1e-30)             # a threshold test keeps Arb's "certain" meaning
    assert combine([("max", max(a, b), bound("arb", 1, 1.0))]).verdict == "undecided"


def _shifted_sdpa(orig, shift):
    """pyref's SDPA with ``shift`` added to every output entry (in the backend's arithmetic)."""
    def f(*args, backend="float64", dps=50, **kw):
        o, w = orig(*args, backend=backend, dps=dps, **kw)
        with pyref.get_backend(backend, dps).context():
            return o + shift, w
    return f


def test_tiny_violation_refuted_on_arb_but_not_on_mp(monkeypatch):
    """The rigour gain: SDPA outputs off by 1e-45 (below mp's 1e-40·scale bound) pass on mp and
    are refuted on arb (the ball of the difference excludes 0)."""
    monkeypatch.setattr(pyref.plga, "sdpa_attention",
                        _shifted_sdpa(pyref.plga.sdpa_attention, 1e-45))
    p = PROPS["sdpa_inclusion_at_identity"]
    assert run_property(p, "mp", examples=3).ok
    r = run_property(p, "arb", examples=3, shrink=False)
    assert not r.ok and "refuted" in r.counterexample, r.counterexample
    # without the shift the same arb run passes
    monkeypatch.undo()
    r = run_property(p, "arb", examples=3)
    assert r.ok and sum(r.verdicts.values()) == r.met and not r.verdicts.get("refuted")


@pytest.mark.parametrize("name", ["matmul_associative", "masked_softmax_is_a_distribution",
                                  "perron_dominance", "rank_one_identities",
                                  "head_attention_matches_spec", "kla_line_search"])
def test_property_families_on_arb(name):
    p = PROPS[name]
    assert "arb" in p.backends
    r = run_property(p, "arb", examples=4)
    assert r.ok, r.counterexample
    assert set(r.verdicts) <= {"certified", "nonrefuted"} and sum(r.verdicts.values()) == r.met


def test_mp_and_float64_outcomes_carry_no_verdict():
    # sub-checks of floats / mpf are decided exactly as before (ratio), with no arb verdict
    o = combine([("a", mpmath.mpf("1e-45"), 1e-40), ("b", 2e-16, 4e-16)])
    assert o.verdict is None and o.dev == ratio(2e-16, 4e-16) and o.note == "worst: b"
    assert combine([("a", 2e-40, 1e-40)]).note == (
        "failed: a; worst: a (dev 2.000e-40 > bound 1.000e-40)")
    assert Outcome(1.0, 2.0).verdict is None and bound("mp", 3, 2.0) == 2e-40
    for b in ("mp", "float64"):
        r = run_property(PROPS["matmul_associative"], b, examples=3)
        assert r.ok and r.verdicts == {}


def test_registry_arb_backends_and_exclusions():
    on_arb = [p for p in PROPS.values() if "arb" in p.backends]
    assert all("mp" in p.backends for p in on_arb)
    for p in PROPS.values():   # every mp property runs on arb unless a reason is recorded
        assert ("arb" in p.backends) == ("mp" in p.backends and not p.no_arb), p.name
    assert all(p.no_arb and "\n" not in p.no_arb for p in PROPS.values()
               if "mp" in p.backends and "arb" not in p.backends)
    assert all(prof["arb"] > 0 for prof in PROFILES.values())


def test_report_shows_the_arb_column(tmp_path):
    p = PROPS["matmul_associative"]
    res = [RunResult(p.name, "arb", p.theorems, p.paper, examples=5, met=5,
                     verdicts={"certified": 2, "nonrefuted": 3}),
           RunResult(p.name, "mp", p.theorems, p.paper, examples=5, met=5)]
    rep = build(res)
    a = rep["summary"]["arb"]
    assert a["verdicts"]["certified"] == 2 and a["verdicts"]["nonrefuted"] == 3
    assert a["properties"] == sum("arb" in q.backends for q in PROPS.values())
    assert set(a["excluded"]) == {n for n, q in PROPS.items() if q.no_arb}
    write(rep, tmp_path)
    md = (tmp_path / "VERIFICATION.md").read_text()
    assert "## Arb runs (rigorous verdicts)" in md and "| 2 / 3 / 0 |" in md
    assert "`mhc_sinkhorn_column_step`: pyref's Sinkhorn loop" in md
