"""The ``"arb"`` backend (Arb ball arithmetic, :mod:`pyref.arb`): enclosures of the exact model
values, the products through ``arb_mat``, radii, the too-wide and ambiguous-argmax errors, the
certified float errors of :func:`pyref.analysis.certified_error`, and that the float64 /
float32 / mp paths did not change.

Tolerances (derived):
* An arb ball at p_a bits contains the exact value.  mp at 100 digits (p_m = 336 bits) runs the
  same operations rounding each to p_m bits; ball arithmetic bounds, to first order, the effect
  of per-operation relative perturbations of size 2^-p_a by the radius r, so mp's own error is
  ≲ r·2^(p_a − p_m) (= r·2^-144 at 50 digits).  Each mp value must lie within r·(1 + 4·2^(p_a
  − p_m)) of the exact midpoint (factor 4: second-order terms and the p_a rounding of the
  radius itself); in effect: inside the ball.
* Radii at 50 digits: the certified float64 bounds are |f − mid| + r with |f − mid| ≳ 1e-17 on
  these O(1) logits, so r ≤ 1e-30 keeps the bounds sharp to 13 digits (measured r ≈ 6e-40).
* Radii are rounding-driven: r(100 digits)/r(50 digits) ≈ 2^-(384 − 192) (the amplification
  of the rounding errors does not depend on the precision); allowed within a factor 2^8.
"""
import dataclasses
import hashlib

import mpmath
import numpy as np
import pytest
from flint import arb, ctx, fmpq

import pyref
from pyref import arb as pa
from pyref import layers, losses, plga, rope
from pyref.analysis import certified_error
from pyref.backend import to_float64
from pyref.ops import softmax
from pyref.semantics import hf_port

CFG = pyref.PLDRConfig(num_layers=2, d_model=8, num_heads=2, dff=12, a_dff=6, num_res_units=2,
                       num_glu_blocks=2, vocab_size=13, max_seq_len=12)
TOKS = np.array([[3, 5, 7, 0, 2], [1, 4, 0, 6, 9]])
P_MP100 = mpmath.libmp.dps_to_prec(100)   # 336 bits


def perturbed(cfg=CFG, seed=1, cls=pyref.PLDRModel, **kw):
    """A random model whose zero/one-initialised tensors are perturbed (every parameter
    matters)."""
    m = cls.random(cfg, seed=seed)
    rng = np.random.default_rng(seed + 1000)
    sd = {k: v + 0.3 * rng.standard_normal(v.shape) for k, v in m.state_dict().items()}
    return cls.from_state_dict(sd, cfg, **kw)


def outside(balls, ref, dps_arb=50):
    """Max over entries of |ref − mid| − r·(1 + 4·2^(p_a − p_m)) (≤ 0: every mp value inside),
    evaluated in ball arithmetic at 600 bits (upper bound)."""
    slack = 1 + 4 * 2.0 ** (pa.prec_bits(dps_arb) - P_MP100)
    worst = -np.inf
    with ctx.workprec(600):
        for x, v in zip(np.asarray(balls, dtype=object).reshape(-1),
                        np.asarray(ref, dtype=object).reshape(-1)):
            d = abs(pa.exact(v) - arb(x.mid())) - arb(x.rad()) * slack
            worst = max(worst, float(d.upper()))
    return worst


def max_rad(x):
    return float(np.max(pa.mid_rad(x)[1]))


# ================================================================================ backend
def test_backend_flags_and_precision():
    b = pyref.Backend("arb", 50)
    assert b.is_arb and b.is_object and not b.is_mp and b.dtype is object
    assert pyref.Backend("mp").is_object and not pyref.Backend("float64").is_object
    assert b.prec == 192 and pa.prec_bits(100) == 384 and pa.prec_bits(1) == 64
    with b.context():
        assert ctx.prec == 192
    assert ctx.prec == 53


def test_conversions_exact_and_const_decimal():
    b = pyref.Backend("arb", 50)
    with b.context():
        x = b.asarray([0.1, -3, np.float32(0.1)])
        assert all(v.is_exact() for v in x)
        assert x[0] == arb(0.1) and x[2] == arb(float(np.float32(0.1)))
        with mpmath.workdps(80):
            m = -mpmath.mpf(1) / 3   # 80 digits: exactly (-man)·2^exp
        assert b.asarray(np.array([m], dtype=object))[0] == arb((-int(m.man), int(m.exp)))
        e = b.const(1e-6)   # the decimal 1e-6, not the binary double 1e-6
    with ctx.workprec(600):   # fmpq -> a 600-bit ball, far narrower than e
        assert e.contains(arb(fmpq(1, 10**6))) and not e.contains(arb(1e-6))
    with b.context():
        assert b.const(float("-inf")) == arb.neg_inf()
        with pytest.raises(ValueError, match="cannot convert dtype bool"):
            b.asarray(np.array([True]))


def test_elementwise_functions_enclose_mp100():
    u = np.array([-3.0, -0.5, 0.25, 1.0, 2.5])
    b = pyref.Backend("arb", 50)
    with b.context():
        x = b.asarray(u)
        got = {"exp": b.exp(x), "log": b.log(b.abs(x)), "sqrt": b.sqrt(b.abs(x)),
               "cos": b.cos(x), "sin": b.sin(x), "sigmoid": b.sigmoid(x), "silu": b.silu(x),
               "power": b.power(b.abs(x), b.asarray(-u / 3))}
    with mpmath.workdps(100):
        v = [mpmath.mpf(t) for t in u]
        ref = {"exp": [mpmath.exp(t) for t in v], "log": [mpmath.log(abs(t)) for t in v],
               "sqrt": [mpmath.sqrt(abs(t)) for t in v], "cos": [mpmath.cos(t) for t in v],
               "sin": [mpmath.sin(t) for t in v],
               "sigmoid": [1 / (1 + mpmath.exp(-t)) for t in v],
               "silu": [t / (1 + mpmath.exp(-t)) for t in v],
               "power": [abs(t) ** mpmath.mpf(p) for t, p in zip(v, -u / 3)]}
    for k in got:
        assert outside(got[k], ref[k]) <= 0, k
        assert max_rad(got[k]) < 1e-55, k
    with b.context():
        assert not b.isfinite(b.log(b.asarray([0.0])))[0]   # log of a ball at 0: not finite


# ================================================================================ matmul
@pytest.mark.parametrize("sa, sc", [((3, 4), (4, 2)), ((2, 3, 4), (4, 5)), ((2, 1, 3, 4),
                                    (1, 3, 4, 2)), ((3, 4, 4), (2, 3, 4, 4)), ((2, 3, 2, 4),
                                    (3, 4, 2)), ((3, 5), (5, 60))])   # last: computed transposed
def test_matmul_encloses_exact_products(sa, sc):
    rng = np.random.default_rng(0)
    A, C = rng.standard_normal(sa), rng.standard_normal(sc)
    b = pyref.Backend("arb", 30)
    with b.context():
        got = b.matmul(b.asarray(A), C)                 # object × float operands
        got_w = b.matmul(pa.ExactWeight(A), b.asarray(C))
    ref = np.matmul(_rational(A), _rational(C))   # binary floats are rationals: exact
    assert got.shape == ref.shape == got_w.shape
    with ctx.workprec(600):   # the rationals as 600-bit balls, far narrower than the results
        for g, gw, r in zip(got.reshape(-1), got_w.reshape(-1), ref.reshape(-1)):
            assert g.contains(arb(r)) and gw.contains(arb(r))


def _rational(a):
    out = np.empty(a.shape, dtype=object)
    for i, v in np.ndenumerate(a):
        n, d = float(v).as_integer_ratio()
        out[i] = fmpq(n, d)
    return out


def test_exact_weight_converts_once_per_view():
    rng = np.random.default_rng(1)
    W = pa.ExactWeight(rng.standard_normal((5, 4)))
    assert not W.flags.writeable
    m1, m2 = W.T.slice_mats(), W.T.slice_mats()
    assert m1 is m2 and len(W._mats) == 1            # the transposed view: one conversion
    W.slice_mats()
    assert len(W._mats) == 2
    copy = np.ascontiguousarray(W.T) * 1.0           # a new buffer: plain array, no cache
    assert type(copy) is np.ndarray


# ================================================================================ model
def test_forward_encloses_mp100_and_is_tight():
    m = perturbed()
    x = m.forward(TOKS, backend="arb", dps=50)
    r = m.forward(TOKS, backend="mp", dps=100)
    assert outside(x.logits, r.logits) <= 0
    assert outside(x.hidden, r.hidden) <= 0
    for dx, dr in zip(x.deductive, r.deductive):
        for k in ("A", "A_LM", "A_P", "G_LM", "E"):
            assert outside(dx[k], dr[k]) <= 0, k
    rad = float(np.max(x.logits_radius))
    assert rad < 1e-30
    assert np.array_equal(pa.mid_rad(x.logits)[1], x.logits_radius)
    x100 = m.forward(TOKS, backend="arb", dps=100)
    ratio = float(np.max(x100.logits_radius)) / rad
    assert 2.0 ** -200 <= ratio <= 2.0 ** -184   # 2^-(384-192), within 2^±8


@pytest.mark.parametrize("variant", ["sdpa", "constant"])
def test_variants_enclose_mp100(variant):
    m = perturbed()
    m = m.to_sdpa() if variant == "sdpa" else m.to_constant_operator(tokens=[[3]])
    assert outside(m.forward(TOKS, backend="arb").logits,
                   m.forward(TOKS, backend="mp", dps=100).logits) <= 0


@pytest.mark.parametrize("sem", [hf_port(), hf_port(attn_implementation="eager"),
                                 hf_port(reference_rope=False)])
def test_port_semantics_enclose_mp100(sem):
    """The port's float32 RoPE/softmax roundings are decided on the balls (mp rounds its
    100-digit values the same way)."""
    m = perturbed(semantics=sem)
    am = np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1]])
    x = m.forward(TOKS, backend="arb", attention_mask=am)
    r = m.forward(TOKS, backend="mp", dps=100, attention_mask=am)
    assert outside(x.logits, r.logits) <= 0


def test_round_float32_decided_or_error():
    with ctx.workprec(192):
        tie = arb(1) + arb(2) ** -24                   # halfway between two float32
        # through float64 as mp: 1 + 2^-24 + 2^-40 is a double above the tie -> 1 + 2^-23;
        # 1 + 2^-24 + 2^-60 rounds to the double tie first -> 1 (even)
        x = np.array([arb(0.1), tie + arb(2) ** -40, tie + arb(2) ** -60], dtype=object)
        ok = pa.round_float32(x, "x")
        assert ok.dtype == np.float32 and ok[0] == np.float32(0.1)
        assert ok[1] == np.float32(1 + 2 ** -23) and ok[2] == np.float32(1)
        with pytest.raises(ValueError, match="float32 rounding of x is not decided"):
            pa.round_float32(np.array([arb(tie.mid(), 2.0 ** -40)], dtype=object), "x")


def test_generate_decided_argmax_and_caches():
    m = perturbed()
    for kv in (True, False):
        g = m.generate([3, 5, 7], 3, kvcache=kv, gcache=kv, backend="arb")
        assert np.array_equal(g.tokens, m.generate([3, 5, 7], 3, kvcache=kv, gcache=kv,
                                                   backend="mp", dps=60).tokens)


def test_ambiguous_argmax_raises():
    """Two vocabulary rows of the head with equal weights and bias: their logits are the same
    real number, so no ball is certainly the largest."""
    m = perturbed()
    sd = m.state_dict()
    out = m.forward([[3, 5]]).logits[0, -1]
    top = int(np.argmax(out))
    other = (top + 1) % CFG.vocab_size
    sd["final_layer.weight"][other] = sd["final_layer.weight"][top]
    sd["final_layer.bias"][other] = sd["final_layer.bias"][top]
    m2 = pyref.PLDRModel.from_state_dict(sd, CFG)
    assert int(np.argmax(m2.forward([[3, 5]]).logits[0, -1])) in (top, other)
    with pytest.raises(ValueError, match="ambiguous argmax at this precision"):
        m2.generate([3, 5], 1, backend="arb")


def test_too_wide_ball_raises():
    """At 1 digit (64 bits ≈ 19 digits) the rounding errors, amplified through three layers of
    this model (~7 digits per layer, measured), exceed 1e-3 of a layer's values."""
    cfg = dataclasses.replace(CFG, num_layers=3)
    with pytest.raises(ValueError, match=r"arb at 1 digits: forward: .* use more digits"):
        perturbed(cfg).forward(TOKS, backend="arb", dps=1)


def test_check_width_synthetic():
    with ctx.workprec(64):
        ok = np.array([arb(1.0, 1e-4), arb(0)], dtype=object)
        pa.check_width(ok, "t", 5)                      # 1e-4 ≤ 1e-3·1
        with pytest.raises(ValueError, match="t lost its accuracy"):
            pa.check_width(np.array([arb(1.0, 2e-3)], dtype=object), "t", 5)
        with pytest.raises(ValueError, match="t has a non-finite ball"):
            pa.check_width(np.array([arb(1.0), arb.nan()], dtype=object), "t", 5)


# ================================================================================ components
def test_components_enclose_mp100():
    rng = np.random.default_rng(5)
    x, W, bb = rng.standard_normal((3, 6)), rng.standard_normal((4, 6)), rng.standard_normal(4)
    Q, K = rng.standard_normal((2, 5, 4)), rng.standard_normal((2, 5, 4))
    V, G = rng.standard_normal((2, 5, 3)), rng.standard_normal((2, 4, 4))
    mask = (Q > 0.5).astype(float) * (np.arange(4) > 0)
    cases = [
        lambda **k: layers.linear(x, W, bb, **k),
        lambda **k: layers.layer_norm(x * 1e3, W[0] + 2, bb[:1].repeat(6), **k),
        lambda **k: rope.rope_matrix(3, 6, **k),
        lambda **k: rope.apply_rope(Q, **k),
        lambda **k: plga.density(Q, **k),
        lambda **k: plga.plga_attention(Q, K, V, G, **k)[0],
        lambda **k: plga.masked_softmax(Q, mask, mode="exact", **k),
        lambda **k: plga.masked_softmax(Q, mask, **k),
        lambda **k: plga.deductive_operator(np.abs(G), G, G, np.abs(G), G, G, **k)["G_LM"],
        lambda **k: losses.expm(G * 0.3, **k),
    ]
    for i, f in enumerate(cases):
        got, ref = f(backend="arb", dps=50), f(backend="mp", dps=100)
        assert outside(got, ref) <= 0, i
        assert max_rad(got) < 1e-45, i


def test_softmax_overlapping_maxima_do_not_crash():
    """Equal row entries (overlapping balls): the max shift picks some point near them."""
    b = pyref.Backend("arb", 30)
    with b.context():
        x = np.array([[arb(1, 1e-20), arb(1, 1e-20), arb(0)]], dtype=object)
        y = softmax(b, x)
        assert all(v.is_finite() for v in y[0])
        assert (y[0, 0] + y[0, 1] + y[0, 2]).contains(1)


# ================================================================================ certified
@pytest.mark.parametrize("backend", ["float64", "float32"])
def test_certified_error_bounds_true_error(backend):
    m = perturbed()
    ce = certified_error(m, TOKS, backend=backend, dps=50)
    f = m.forward(TOKS, backend=backend)
    r = m.forward(TOKS, backend="mp", dps=100)
    with mpmath.workdps(100):   # |f − mp| in mp (f widens exactly); mp's error ~1e-95
        def err(a, ref):
            return to_float64(np.abs(pyref.to_mp(to_float64(a), 100) - ref))
        e_log = err(f.logits, r.logits)
        e_G = [err(df["G_LM"], dr["G_LM"]) for df, dr in zip(f.deductive, r.deductive)]
    tiny = 1e-90   # covers mp's own error (≲ 1e-95 relative on O(1e2) values)
    assert np.all(ce.logits + tiny >= e_log)
    for g, e in zip(ce.G_LM, e_G):
        assert np.all(g + tiny >= e)
    # sharp: the bound exceeds the error by no more than the ball radius (+ rounding up)
    assert np.all(ce.logits <= e_log * (1 + 2.0 ** -50) + 2 * ce.arb_radius_max + tiny)
    assert ce.logits_max == float(np.max(ce.logits)) and len(ce.G_LM_max) == CFG.num_layers
    assert ce.logits_max > (1e-17 if backend == "float64" else 1e-9)


def test_certified_error_rejects_other_backends():
    with pytest.raises(ValueError, match="backend must be 'float64' or 'float32'"):
        certified_error(perturbed(), TOKS, backend="mp")


# ================================================================================ unchanged
def _digest(arrays):
    h = hashlib.sha256()
    for a in arrays:
        for v in np.asarray(a, dtype=object).reshape(-1):
            h.update(repr(v._mpf_).encode())
    return h.hexdigest()[:16]


def test_mp_path_bit_identical_to_before_arb():
    """mp results (pure mpmath, machine-independent) hashed before the arb backend was added
    (pyref at a7254d6): the matmul dispatch and the is_object split changed nothing."""
    m = perturbed()
    o = m.forward(TOKS, backend="mp", dps=30)
    g = m.generate([3, 5, 7], 2, backend="mp", dps=30)
    got = _digest([o.logits] + [d["G_LM"] for d in o.deductive] + g.step_logits)
    assert got == MP_DIGEST


MP_DIGEST = "ce667ac26b68b4f6"   # computed with pyref at a7254d6 (before this change)
