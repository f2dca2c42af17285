"""The exact-weight product of the arb backend (:mod:`pyref.arb_matmul`, used by
:func:`pyref.arb.matmul` for a few ball rows times a float weight): its balls contain the
exact set {x·W : x in the balls X}, checked exactly in rationals, and they are as narrow as
those of Arb's own ``arb_mat`` product.

Why the radii can be compared with the ``arb_mat`` product's: both enclose the same set
{x·W} = M·W ± R·|W| (an interval per entry, the entries of X varying independently).  The new
radius is R·|W|·(1 + (2k+8)·2^-53) plus (2k+4)·2^-1022 where R > 0 plus ONE rounding of
the exact M·W to the working precision; Arb's is R·|W| in 30-bit radius arithmetic
rounded up plus the rounding error bound of its dot products (at least one rounding).  So
new ≤ old·(1 + 2^-40) + (rounding terms of the same size): a factor 4 leaves room for the
rounding terms without hiding a real widening (which would be a factor 2^k or worse).  The
absolute 2^-1022 term can exceed 4× a tiny old radius, so the comparison uses inputs whose
products do not underflow.
"""
import numpy as np
import pytest
from flint import arb, ctx, fmpq, fmpz

import pyref
from pyref import arb as pa
from pyref import arb_matmul as am

PREC = pa.prec_bits(50)   # 192 bits


def _q(x: arb) -> fmpq:
    """An exact arb value (a binary float) as a rational."""
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    return fmpq(man * 2 ** exp) if exp >= 0 else fmpq(man, 2 ** -exp)


def _balls(rng, shape, spread, radius):
    """Object array of arb balls: random midpoints of up to 200 bits with exponents in
    ±spread, mixed signs, exact zeros, zero midpoints with a radius, radii 0 or ~radius."""
    out = np.empty(shape, dtype=object)
    for i in np.ndindex(*shape):
        kind = rng.integers(0, 10)
        bits = int(rng.integers(1, 200))
        man = int(rng.integers(1, 2 ** 62)) * 2 ** (bits - 1) // 2 ** 61 + 1
        man = -man if rng.integers(0, 2) else man
        mid = (fmpz(man), fmpz(int(rng.integers(-spread, spread + 1)) - bits))
        rad = arb(radius * float(rng.uniform(0.1, 10.0)))
        out[i] = (arb(0) if kind == 0 else arb(0, rad) if kind == 1
                  else arb(mid) if kind == 2 else arb(mid, rad))
    return out


W_CASES = {
    "moderate": lambda rng, s: rng.uniform(-0.05, 0.05, s),
    "2^±80": lambda rng, s: rng.standard_normal(s) * 2.0 ** rng.integers(-80, 81, s),
    "subnormal": lambda rng, s: rng.standard_normal(s) * 1e-310 * (rng.uniform(0, 1, s) > 0.2),
    "zeros": lambda rng, s: np.zeros(s),
}


@pytest.mark.parametrize("wcase", sorted(W_CASES))
@pytest.mark.parametrize("spread, radius", [(40, 1e-40), (120, 1e-300), (2, 0.0), (2, 3e-13)])
def test_balls_contain_the_exact_product(monkeypatch, wcase, spread, radius):
    """Both ends of every exact interval M·W ± R·|W| lie in the ball (exact rationals)."""
    monkeypatch.setattr(am, "worthwhile", lambda m, k, n: True)   # small shapes too
    rng = np.random.default_rng(spread + len(wcase))
    m, k, n = 3, 7, 5
    with ctx.workprec(PREC):
        X = _balls(rng, (m, k), spread, radius)
        W = W_CASES[wcase](rng, (k, n))
        direct = am.ball_times_weight(X, am.weight_digits(W), np.abs(W))
        assert direct is not None                 # the integer path itself, not the fallback
        got = pa.matmul(X, W)
        got_t = pa.matmul(pa.ExactWeight(W.T), X.T)   # weight on the left: transposed
    for g in (direct, got, got_t.T):
        for i in range(m):
            for j in range(n):
                mid = sum(_q(X[i, t].mid()) * fmpq(*float(W[t, j]).as_integer_ratio())
                          for t in range(k))
                rad = sum(_q(X[i, t].rad()) * fmpq(*abs(float(W[t, j])).as_integer_ratio())
                          for t in range(k))
                assert _q(g[i, j].lower()) <= mid - rad and mid + rad <= _q(g[i, j].upper())


def test_fallbacks_keep_enclosures(monkeypatch):
    """Midpoints spanning > precision + SPREAD_BITS bits, weights spanning > MAX_WEIGHT_DIGITS
    digits, non-finite balls or an overflowing radius bound give None (the arb_mat product is
    used instead)."""
    monkeypatch.setattr(am, "worthwhile", lambda m, k, n: True)
    W = np.array([[1.0, -2.0], [0.5, 3.0]])
    with ctx.workprec(PREC):
        wide = np.array([[arb(2.0 ** 400), arb(2.0 ** -400)]], dtype=object)
        inf = np.array([[arb(1), arb.pos_inf()]], dtype=object)
        nan = np.array([[arb.nan(), arb(1)]], dtype=object)
        far = np.array([[arb(2) ** (2 ** 40), arb(2) ** -(2 ** 40)]], dtype=object)  # no shift
        huge = np.array([[arb(1, 1e300), arb(1)]], dtype=object)
        for X in (wide, inf, nan, far):
            assert am.ball_times_weight(X, am.weight_digits(W), np.abs(W)) is None
        big = W * 1e300
        assert am.ball_times_weight(huge, am.weight_digits(big), np.abs(big)) is None
        assert am.weight_digits(np.array([[1e300, 1e-300]])) is None
        got = pa.matmul(wide, W)
        assert got[0, 0].contains(arb(2.0 ** 400) + arb(2.0 ** -401))


def test_radii_below_the_float_range_round_up():
    """Radii under 2^-1022 (float(rad) may round down or to 0) are raised; exact balls keep 0."""
    with ctx.workprec(PREC):
        balls = [arb(1, arb(2) ** -1100), arb(0, arb(3) * arb(2) ** -1076), arb(1),
                 arb(-2, arb(2) ** -1060)]
        rad = am.ball_parts(balls)[3]
        for x, r in zip(balls, rad.tolist()):
            assert _q(x.rad()) <= fmpq(*r.as_integer_ratio())
            assert (r == 0) == x.is_exact()


def test_radius_not_wider_than_arb_mat():
    """On activation-like balls (real thresholds: 5 rows, k = 300, n = 200, so the integer path
    is taken) the radii are at most 4x those of Arb's product, and the balls overlap."""
    rng = np.random.default_rng(3)
    with ctx.workprec(PREC):
        X = pa.to_arb(rng.standard_normal((5, 300))) * arb.pi()       # full 192-bit midpoints
        X[:, ::3] = X[:, ::3] * arb(1, 1e-45)                          # and some wider balls
        W = pa.ExactWeight(rng.uniform(-0.06, 0.06, (200, 300)))
        new = pa.matmul(X, W.T)
        assert am.ball_times_weight(X, W.T.digits(), np.abs(np.asarray(W.T))) is not None
        old = pa.entries_array(pa.as_arb_mat(X) * pa.as_arb_mat(np.asarray(W.T)))
    for g, o in zip(new.reshape(-1), old.reshape(-1)):
        assert g.overlaps(o)
        assert float(g.rad()) <= 4 * float(o.rad())


def test_forward_with_integer_products_encloses_mp(monkeypatch):
    """A whole forward pass with every linear product through the integer path (thresholds
    lowered) encloses the mp 100-digit logits, with radii within 4x of the arb_mat path."""
    cfg = pyref.PLDRConfig(num_layers=1, d_model=8, num_heads=2, dff=12, a_dff=6,
                           num_res_units=1, num_glu_blocks=2, vocab_size=13, max_seq_len=12)
    m = pyref.PLDRModel.random(cfg, seed=1)
    rng = np.random.default_rng(1001)
    sd = {k: v + 0.3 * rng.standard_normal(v.shape) for k, v in m.state_dict().items()}
    m = pyref.PLDRModel.from_state_dict(sd, cfg)
    toks = np.array([[3, 5, 7, 0, 2]])
    old = m.forward(toks, backend="arb", dps=50)
    monkeypatch.setattr(am, "worthwhile", lambda m, k, n: True)
    new = pyref.PLDRModel.from_state_dict(sd, cfg).forward(toks, backend="arb", dps=50)
    ref = m.forward(toks, backend="mp", dps=100).logits
    with ctx.workprec(600):
        for x, v in zip(new.logits.reshape(-1), np.asarray(ref, dtype=object).reshape(-1)):
            assert x.contains(pa.exact(v))   # mp's own error (~2^-336 relative) is far smaller
    assert np.all(new.logits_radius <= 4 * old.logits_radius)
