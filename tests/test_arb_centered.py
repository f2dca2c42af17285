"""Φ_res on arb by the centred form (:mod:`pyref.arb_centered`): it encloses Φ_res at every
point of its input balls (small and large radii, corners included), it is far tighter than
plain ball arithmetic on the paper's shapes, and its float Jacobians are the Jacobians.

Tolerances (derived):
* Enclosure: reference values at 200 digits (radii < 1e-150) must lie in the 50-digit balls:
  |mid − ref| ≤ rad + ref radius + 2^-52·|ref| (the last term: the float midpoint's rounding).
* Tightness: the ∞-norm of the whole Φ_res Jacobian is ≈ 4 on the paper's shapes (measured,
  ``benchmarks/README.md`` §6), so an input radius r must come out ≤ 100·r (the bound's own
  error terms are ~1e-10 relative); plain balls lose ~28 digits there (measured 1e-12 from 1e-40).
* Jacobian: central differences with step h = 1e-6 in float64 have truncation error
  ~h²·‖f'''‖ ≈ 1e-12 and rounding error ~1e-16/h = 1e-10 on these O(1) maps: 1e-7 of ‖J‖.
"""
import numpy as np
import pytest
from flint import arb

import pyref
from pyref import arb_centered as ac
from pyref import ops
from pyref.arb import mid_rad
from pyref.backend import get_backend, to_float64

PAPER = pyref.PLDRConfig(num_layers=1, d_model=128, num_heads=2, dff=32, a_dff=170,
                         num_res_units=8, num_glu_blocks=2, vocab_size=16, max_seq_len=16)
SMALL = pyref.PLDRConfig(num_layers=1, d_model=16, num_heads=2, dff=16, a_dff=12,
                         num_res_units=3, num_glu_blocks=2, vocab_size=16, max_seq_len=16)
EPS = 1e-6


def units(cfg, seed, dps):
    """(backend, Φ_res units of layer 0): arb at ``dps`` digits, float64 when dps is None."""
    b = get_backend("float64") if dps is None else get_backend("arb", dps)
    m = pyref.PLDRModel.random(cfg, seed=seed)
    with b.context():
        return b, m.backend_params(b).layers[0].attention.operator.learner.units


def balls(x, rad):
    return np.vectorize(lambda v: arb(v, rad), otypes=[object])(x)


def points_inside(x, rad, rng, k):
    """k points of the box x ± rad: its centre, two opposite corners, random points."""
    pts = [x, x + rad * 0.999, x - rad * 0.999]
    pts += [x + rad * 0.999 * rng.uniform(-1, 1, x.shape) for _ in range(k - 3)]
    return pts


@pytest.mark.parametrize("cfg, seed, rad", [(SMALL, 0, 1e-40), (SMALL, 1, 1e-3),
                                             (SMALL, 2, 1e-6), (PAPER, 0, 1e-30)])
def test_encloses_every_point_of_the_input_balls(cfg, seed, rad):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, cfg.d_k)) * 2
    b, us = units(cfg, seed, 50)
    bh, ush = units(cfg, seed, 200)
    with b.context():
        out = ac.residual_units(b, balls(x, rad), us, EPS)
    om, orad = mid_rad(out)
    assert np.all(np.isfinite(orad))   # (at 1e-3 the balls are wide but finite; plain: inf)
    for z in points_inside(x, rad, rng, 6):
        with bh.context():
            ref = ops.residual_metric_learner(bh, bh.asarray(z), ush, EPS)
        rm, rr = mid_rad(ref)
        assert np.all(np.abs(om - rm) <= orad + rr + 2.0 ** -52 * np.abs(rm))


def test_tighter_than_plain_balls_on_the_paper_shapes():
    x = np.random.default_rng(3).standard_normal((4, PAPER.d_k))
    b, us = units(PAPER, 0, 50)
    with b.context():
        X = balls(x, 1e-40)
        cent = mid_rad(ac.residual_units(b, X, us, EPS))[1]
        plain = mid_rad(ops.residual_metric_learner(b, X, us, EPS))[1]
    assert np.max(cent) <= 100 * 1e-40
    assert np.max(plain) >= 1e15 * np.max(cent)   # measured ~1e28 × (documents the gain)


def _phi_f64(us_f, x):
    return ops.residual_metric_learner(get_backend("float64"), x, us_f, EPS)


def _jacobian_f64(us_f, x, h=1e-6):
    """Central differences of the float64 Φ_res at x [R, n] -> [R, n, n]."""
    J = np.empty(x.shape + x.shape[-1:])
    for j in range(x.shape[-1]):
        dx = np.zeros_like(x)
        dx[:, j] = h
        J[:, :, j] = (_phi_f64(us_f, x + dx) - _phi_f64(us_f, x - dx)) / (2 * h)
    return J


def test_unit_jacobian_matches_central_differences():
    """M_u of one unit (:func:`pyref.arb_centered._unit`) against central differences of the
    float64 unit; e_u is tiny at a point input."""
    cfg, seed = SMALL, 4
    x = np.random.default_rng(seed).standard_normal((3, cfg.d_k))
    b, us = units(cfg, seed, 50)
    _, us_f = units(cfg, seed, None)
    with b.context():
        c = b.asarray(x)
        fp = ac._float_params(us)[0]
        _, M, e = ac._unit(b, us[0], c, x, np.abs(x) * 2.0 ** -53, fp, EPS)
    J = _jacobian_f64(us_f[:1], x)
    scale = np.max(np.abs(J))
    assert np.max(np.abs(M - J)) <= 1e-7 * scale
    assert np.all(e <= 1e-9 * scale)


def test_no_units_and_non_finite_inputs():
    b, us = units(SMALL, 0, 50)
    with b.context():
        X = balls(np.ones((2, SMALL.d_k)), 1e-30)
        assert ac.residual_units(b, X, (), EPS) is X
        X[0, 0] = arb.nan()
        out = ac.residual_units(b, X, us, EPS)
    assert not np.all(np.isfinite(mid_rad(out)[1]))


def test_model_uses_it_on_arb():
    """The forward pass of the arb backend goes through the centred Φ_res: on the paper's
    Φ_res shapes the layer's A keeps nearly all its digits (plain balls: ~28 fewer)."""
    m = pyref.PLDRModel.random(PAPER, seed=0)
    out = m.forward([[3, 5, 7, 1]], backend="arb", dps=50)
    A = out.deductive[0]["A"]
    mid, rad = mid_rad(A)
    assert np.max(rad) <= 1e-40 * np.max(np.abs(mid))
    f = m.forward([[3, 5, 7, 1]])
    assert np.allclose(mid, to_float64(f.deductive[0]["A"]), rtol=0, atol=1e-10)


def test_inexact_parameters_fall_back_to_plain_balls():
    """A weight given as a ball with a radius is not one binary64 map: the float Jacobians
    would not bound it, so the plain evaluation runs (same result as ops')."""
    b, us = units(SMALL, 5, 50)
    g = us[0].blocks[0]
    with b.context():
        W1 = np.vectorize(lambda v: arb(v, 1e-20), otypes=[object])(np.asarray(g.W1, float))
        blk = type(g)(W1, g.b1, g.W2, g.b2, g.W3, g.b3)
        u0 = type(us[0])((blk,) + tuple(us[0].blocks[1:]), us[0].gamma, us[0].beta)
        assert ac._float_params([u0]) is None
        X = balls(np.random.default_rng(5).standard_normal((2, SMALL.d_k)), 1e-30)
        got = mid_rad(ac.residual_units(b, X, [u0], EPS))
        want = mid_rad(ops.residual_metric_learner(b, X, [u0], EPS))
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_public_api_uses_it_on_arb():
    """``pyref.plga.residual_metric_learner(..., backend="arb")`` = the model's Φ_res on arb."""
    rng = np.random.default_rng(6)
    d, h = 8, 12
    units_ = [{"blocks": [tuple(rng.standard_normal(s) * 0.3 for s in
                                ((h, d), (h,), (h, d), (h,), (d, h), (d,)))] * 2,
               "gamma": np.ones(d), "beta": np.zeros(d)} for _ in range(3)]
    A = rng.standard_normal((d, d))
    got = mid_rad(pyref.plga.residual_metric_learner(A, units_, backend="arb"))
    ref = pyref.plga.residual_metric_learner(A, units_, backend="arb", dps=150)
    rm, rr = mid_rad(ref)
    assert np.all(np.abs(got[0] - rm) <= got[1] + rr + 2.0 ** -52 * np.abs(rm))
    assert np.max(got[1]) < 1e-40


@pytest.mark.parametrize("chunk", [ac.CHUNK, 1])   # the one-GEMM path, the per-row K path
def test_jacobian_within_its_rounding_bound(monkeypatch, chunk):
    """Both evaluations of fl(W₃(diag(α)W₁ + diag(c)W₂)) lie within the γ bound that
    ``_block`` charges (max(γ_3 + γ_hid(1 + γ_2), γ_{2hid+1}) times the row sums of
    |W₃|(|α||W₁| + |c||W₂|)), checked exactly in rationals; data of mixed magnitudes so
    that the roundings are not all tiny."""
    from fractions import Fraction
    monkeypatch.setattr(ac, "CHUNK", chunk)
    rng = np.random.default_rng(7)
    R, hid, n = 3, 7, 5
    W1, W2 = (rng.standard_normal((hid, n)) * 10.0 ** rng.integers(-3, 4, (hid, n))
              for _ in range(2))
    W3 = rng.standard_normal((n, hid)) * 10.0 ** rng.integers(-3, 4, (n, hid))
    af, cf = rng.standard_normal((R, hid)), rng.standard_normal((R, hid)) * 1e3
    M = ac._jacobian(W1, W2, W3, af, cf)
    g = max(ac._gamma(3) + ac._gamma(hid) * (1 + ac._gamma(2)), ac._gamma(2 * hid + 1))
    rows = (np.abs(af) * np.abs(W1).sum(1) + np.abs(cf) * np.abs(W2).sum(1)) @ np.abs(W3).T
    F = np.vectorize(Fraction, otypes=[object])
    for r in range(R):
        K = F(af[r])[:, None] * F(W1) + F(cf[r])[:, None] * F(W2)
        exact = F(W3).dot(K)
        err = np.abs(F(M[r]) - exact).sum(axis=1)                    # per row of M_r
        assert all(err[i] <= Fraction(g * rows[r, i]) for i in range(n))
        assert max(err) > 0                        # the roundings are there to be bounded


@pytest.mark.parametrize("seed, k", [(1, 10), (5, 12), (6, 11), (7, 14)])
def test_encloses_the_worst_corners_of_wide_balls(seed, k):
    """Each output entry's spread is largest at the corner δ = ±2^-k·sign(J_i) of the input
    box (J the Jacobian of Φ_res): there |f(x ± δ) − f(x)| ≥ |J_i δ| + |½δᵀH_iδ| for one sign,
    so a bound that misses the variation of the Jacobian over the box (second order, ~4^-k) or
    any first-order term lets that corner out.  Dyadic midpoints and radius: the corners are
    exact floats inside the balls (no shrinking)."""
    rng = np.random.default_rng(seed)
    cfg, rad = SMALL, 2.0 ** -k
    x = np.round(rng.standard_normal((4, cfg.d_k)) * 2 ** 20) / 2 ** 20
    b, us = units(cfg, seed, 50)
    bh, ush = units(cfg, seed, 200)
    _, us_f = units(cfg, seed, None)
    with b.context():
        out = ac.residual_units(b, balls(x, rad), us, EPS)
    om, orad = mid_rad(out)
    assert np.all(np.isfinite(orad))               # wide, but not vacuous
    J = _jacobian_f64(us_f, x)
    for i in range(cfg.d_k):                       # output entry i of every row
        for sign in (1.0, -1.0):
            z = x + sign * rad * np.sign(J[:, i, :])
            with bh.context():
                rm, rr = mid_rad(ops.residual_metric_learner(bh, bh.asarray(z), ush, EPS))
            assert np.all(np.abs(om - rm) <= orad + rr + 2.0 ** -52 * np.abs(rm)), (i, sign)
