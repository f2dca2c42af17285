"""Automatic working precision of the arb backend (:mod:`pyref.arb_precision`,
``PLDRModel.forward(..., accuracy=k)``): the retry loop, its errors, and that what it returns
is an enclosure with the demanded accuracy.

Tolerances: accuracy is checked as stated (largest radius ≤ 10^-k × largest |logit|, read from
:func:`pyref.arb.mid_rad`); the enclosure check compares with a 150-digit run whose radii
are < 1e-100, so two enclosures of the same exact value must overlap: |mid_a − mid_b| ≤ r_a
+ r_b + (ulp of the float midpoints: 2^-52 |mid|).
"""
import json
import math

import numpy as np
import pytest
from flint import arb, ctx

import pyref
from crosscheck.cli import main
from pyref import arb as pa
from pyref import arb_precision as ap

# benchmarks/bench_arb.py's small configuration with 3 layers: at 64 bits (19 digits) its balls
# are too wide by layer 2 (measured: 16 digits lost after 2 of 3 layers + head)
CFG = pyref.PLDRConfig(num_layers=3, d_model=32, num_heads=4, dff=64, a_dff=16, num_res_units=2,
                       num_glu_blocks=2, vocab_size=64, max_seq_len=16)
TOKS = np.array([[3, 5, 7, 1, 2, 9, 40, 11]])


def model():
    return pyref.PLDRModel.random(CFG, seed=0)


def balls(rel, n=3):
    """n balls of midpoint 1 and relative radius ``rel``."""
    with ctx.workprec(64):
        return np.array([arb(1.0, rel)] * n, dtype=object)


# ============================================================================ synthetic runs
def test_accuracy_digits_and_lost():
    assert ap.accuracy_digits(balls(1e-20)) == pytest.approx(20, abs=0.01)
    assert ap.accuracy_digits(np.array([arb(2)], dtype=object)) == math.inf
    assert ap.accuracy_digits(np.array([arb.nan()], dtype=object)) == -math.inf
    assert ap.digits_lost(balls(1e-20), 50) == pytest.approx(pa.working_digits(50) - 20,
                                                             abs=0.01)


def test_retry_uses_the_measured_loss():
    """A computation that always loses 40 digits: at 10 digits it fails, the retry runs at
    accuracy + 40 + MARGIN (and then succeeds)."""
    calls = []

    def run(d):
        calls.append(d)
        return balls(10.0 ** -(pa.working_digits(d) - 40))

    out = ap.run_to_accuracy(run, 10, 25, lambda x: x)
    assert ap.accuracy_digits(out) >= 25
    assert calls[0] == 10 and len(calls) == 2
    assert abs(calls[1] - (25 + 40 + ap.MARGIN_DIGITS)) <= 1   # ceil of a float near 70


def test_retry_extrapolates_a_width_error():
    """An ArbWidthError after a third of the work with 12 digits lost predicts 36."""
    calls = []

    def run(d):
        calls.append(d)
        if len(calls) == 1:
            raise pa.ArbWidthError("too wide", d, 12.0, done=1 / 3)
        return balls(1e-40)

    ap.run_to_accuracy(run, 20, 30, lambda x: x)
    assert calls == [20, math.ceil(30 + 36 + ap.MARGIN_DIGITS)]


def test_retry_errors():
    def never(d):
        raise pa.ArbWidthError("too wide", d, None)

    with pytest.raises(ValueError, match=r"need about \d+ working digits .* max_dps=100"):
        ap.run_to_accuracy(never, 50, 30, lambda x: x, max_dps=100)
    with pytest.raises(ValueError, match="not reached in 4 runs"):
        ap.run_to_accuracy(lambda d: balls(0.5), 10, 30, lambda x: x)
    for bad in (0, -3, 2.5, True, "30", 10**6):
        with pytest.raises(ValueError, match="accuracy: expected an int"):
            ap.run_to_accuracy(lambda d: balls(1e-40), 10, bad, lambda x: x)


# ============================================================================ on the model
def test_forward_reaches_the_accuracy_and_encloses():
    """At 1 digit the model fails (test_pyref_arb.test_too_wide_ball_raises); with accuracy=30
    the call raises the precision itself and returns balls that agree with a 150-digit run."""
    m = model()
    with pytest.raises(pa.ArbWidthError):
        m.forward(TOKS, backend="arb", dps=1)
    out = m.forward(TOKS, backend="arb", dps=1, accuracy=30)
    assert out.backend.dps > 1 and ap.accuracy_digits(out.logits) >= 30
    ref = m.forward(TOKS, backend="arb", dps=150)
    (ma, ra), (mb, rb) = pa.mid_rad(out.logits), pa.mid_rad(ref.logits)
    assert np.all(np.abs(ma - mb) <= ra + rb + 2.0 ** -52 * np.abs(mb))


def test_forward_accuracy_keeps_an_accurate_first_run():
    m = model()
    out = m.forward(TOKS, backend="arb", dps=60, accuracy=10)
    assert out.backend.dps == 60


def test_generate_with_accuracy():
    m = model()
    g = m.generate(TOKS[:, :3], 2, backend="arb", dps=1, accuracy=25)
    assert all(ap.accuracy_digits(row) >= 25 for row in g.step_logits)
    f = m.generate(TOKS[:, :3], 2)
    assert np.array_equal(g.new_tokens, f.new_tokens)


def test_accuracy_is_for_arb_only():
    with pytest.raises(ValueError, match="accuracy= is for backend 'arb'"):
        model().forward(TOKS, backend="mp", accuracy=30)


def test_plga_generate_accuracy(tmp_path, capsys):
    """``plga generate --backend arb --accuracy``: the same tokens as float64 (this model's
    top-2 margins are far above float64's error), from --dps 1 (too few digits on its own)."""
    model().save(tmp_path / "m.safetensors")
    (tmp_path / "t.json").write_text(json.dumps([TOKS[0, :4].tolist()]))
    base = ["generate", str(tmp_path / "m.safetensors"), "--tokens", str(tmp_path / "t.json"),
            "--max-new-tokens", "2", "--json", "--no-eos"]
    assert main(base + ["--backend", "arb", "--dps", "1", "--accuracy", "20"]) == 0
    rec = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    g = model().generate(TOKS[:, :4], 2)
    assert rec["new_tokens"] == [int(x) for x in g.new_tokens[0]]
    assert main(base + ["--accuracy", "20"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--accuracy: only with --backend arb" in err[0]
