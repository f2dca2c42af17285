"""pyref components against hand-computed values (closed forms evaluated with mpmath /
sympy at high precision).

Tolerances: "mp" results at 50 digits are compared with closed forms evaluated at >= 50
digits; the difference is bounded by a few units in the 50th digit times the number of
operations (< 1e3 here), so 1e-45 is a safe bound.  float64 results are compared with
1e-14 (a few ulps of O(1) quantities after < 100 operations).
"""
import mpmath
import numpy as np
import pytest
import sympy

import pyref
from pyref import analysis, layers, plga, rope
from pyref.backend import to_float64

MP = dict(backend="mp", dps=50)
TOL_MP = mpmath.mpf("1e-45")


def mpf60(x):
    with mpmath.workdps(60):
        return mpmath.mpf(str(x))


def mpmax(a, b):
    """max |a - b| for object/mixed arrays, computed in mpmath at 60 digits."""
    with mpmath.workdps(60):
        a = np.asarray(a, dtype=object).reshape(-1)
        b = np.asarray(b, dtype=object).reshape(-1)
        assert a.shape == b.shape
        return max((abs(mpmath.mpf(x) - mpmath.mpf(y)) for x, y in zip(a, b)),
                   default=mpmath.mpf(0))


def sig(u):
    return 1 / (1 + mpmath.exp(-u))


# ------------------------------------------------------------------------------ backend
def test_backend_mp_returns_mpf_and_float32_stays_float32():
    x = np.array([0.1, -2.0, 3.5])
    y = layers.sigmoid(x, **MP)
    assert y.dtype == object and all(isinstance(v, mpmath.mpf) for v in y)
    # more than 53 significant bits are carried: σ(0.1) is not a binary64 number
    assert y[0]._mpf_[1].bit_length() > 100
    assert layers.sigmoid(x, backend="float32").dtype == np.float32
    assert layers.layer_norm(x, backend="float32").dtype == np.float32


def test_backend_const_is_decimal_and_bad_backend():
    b = pyref.Backend("mp", 50)
    with b.context():
        assert b.const(1e-6) == mpmath.mpf("1e-6")
        assert b.const(1e-6) != mpmath.mpf(1e-6)  # binary64 1e-6 differs in digit ~23
    with pytest.raises(ValueError, match="backend"):
        pyref.get_backend("float16")
    with pytest.raises(ValueError, match="dps"):
        pyref.Backend("mp", 0)


def test_np_exp_on_mp_array_is_loud_not_silent():
    """Calling a numpy ufunc on an mp array must fail instead of falling back to float64."""
    x = pyref.to_mp([1.0, 2.0])
    with pytest.raises(TypeError):
        np.exp(x)


# -------------------------------------------------------------------- elementwise / dense
def test_iswiglu_sigmoid_silu_hand_values():
    u = np.array([0.0, 1.0, -2.0, 3.0])
    with mpmath.workdps(50):
        exp = [mpmath.mpf(0), sig(1), 4 * sig(-2), 9 * sig(3)]
        got = layers.iswiglu(u, **MP)
        assert mpmax(got, exp) < TOL_MP
        assert mpmax(layers.silu(u, **MP), [0, sig(1), -2 * sig(-2), 3 * sig(3)]) < TOL_MP
    assert np.allclose(layers.iswiglu(u), [float(v) for v in exp], rtol=0, atol=1e-15)
    # overflow-free float sigmoid at extreme arguments
    s = layers.sigmoid(np.array([-1000.0, 1000.0]))
    assert np.all(np.isfinite(s)) and s[0] == 0.0 and s[1] == 1.0


def test_linear_hand():
    x = np.array([[1.0, 2.0]])
    W = np.array([[1.0, 0.0], [2.0, -1.0], [0.5, 0.5]])  # [out=3, in=2]
    bb = np.array([0.0, 1.0, -1.0])
    assert np.array_equal(layers.linear(x, W, bb), [[1.0, 1.0, 0.5]])


def test_layer_norm_hand_sympy():
    x = [1, 2, 3, 4]
    eps = sympy.Rational(1, 10**6)
    mu = sympy.Rational(5, 2)
    var = sympy.Rational(5, 4)  # biased variance
    exp = [sympy.N((xi - mu) / sympy.sqrt(var + eps), 60) for xi in x]
    got = layers.layer_norm(np.array(x, float), eps=1e-6, **MP)
    assert mpmax(got, [mpf60(e) for e in exp]) < TOL_MP
    g, be = np.array([2.0, 1, 1, 1]), np.array([0.0, 0, 0, 3])
    got2 = layers.layer_norm(np.array(x, float), g, be, eps=1e-6, **MP)
    exp2 = [2 * exp[0], exp[1], exp[2], exp[3] + 3]
    assert mpmax(got2, [mpf60(e) for e in exp2]) < TOL_MP
    assert np.allclose(layers.layer_norm(np.array(x, float)), [float(e) for e in exp],
                       atol=1e-14, rtol=0)


def test_layer_norm_shift_invariance_mp():
    x = np.array([0.3, -1.2, 2.5, 0.7])
    a = layers.layer_norm(x, **MP)
    with mpmath.workdps(50):  # the shift is done in mp: x + 5.0 in float64 would round
        xs = pyref.to_mp(x) + 5
    bsh = layers.layer_norm(xs, **MP)
    assert mpmax(a, bsh) < TOL_MP


def test_swiglu_hand():
    x = np.array([[1.0]])
    got = layers.swiglu(x, [[1.0]], [0.0], [[2.0]], [1.0], [[3.0]], [0.5], **MP)
    with mpmath.workdps(50):
        exp = 9 * sig(1) + mpmath.mpf("0.5")  # silu(1)·(2·1+1)·3 + 0.5
    assert mpmax(got, [exp]) < TOL_MP


# --------------------------------------------------------------------------------- RoPE
def test_rope_hand_interleaved_pairs():
    # d_k = 4, base = 100: θ = (1, 1/10); position 2 rotates pair 0 by 2 and pair 1 by 0.2
    x = np.zeros((3, 4))
    x[2] = [1.0, 0.0, 0.0, 1.0]
    got = rope.apply_rope(x, base=100, **MP)[2]
    with mpmath.workdps(50):
        exp = [mpmath.cos(2), mpmath.sin(2), -mpmath.sin(mpmath.mpf("0.2")),
               mpmath.cos(mpmath.mpf("0.2"))]
    assert mpmax(got, exp) < TOL_MP
    R = rope.rope_matrix(2, 4, base=100, **MP)
    with mpmath.workdps(50):
        assert mpmax(R @ pyref.to_mp(x[2]), exp) < TOL_MP
    # position 0 is the identity, V-style untouched rows stay untouched
    assert np.array_equal(rope.apply_rope(x)[0], x[0])


def test_rope_thetas_and_offset():
    th = rope.rope_thetas(8, base=1e4, **MP)
    with mpmath.workdps(50):
        exp = [mpmath.mpf(10) ** (-j) for j in range(4)]  # 1e4^{-2j/8} = 10^{-j}
    assert mpmax(th, exp) < TOL_MP
    x = np.random.default_rng(0).standard_normal((1, 8))
    a = rope.apply_rope(x, positions=[5])
    b = rope.rope_matrix(5, 8) @ x[0]
    assert np.allclose(a[0], b, atol=1e-15, rtol=0)


def test_rope_orthogonal_and_group_law_mp():
    R3 = rope.rope_matrix(3, 6, **MP)
    R4 = rope.rope_matrix(4, 6, **MP)
    R7 = rope.rope_matrix(7, 6, **MP)
    with mpmath.workdps(50):
        assert mpmax(R3.T @ R3, pyref.Backend("mp", 50).eye(6)) < TOL_MP
        assert mpmax(R3 @ R4, R7) < TOL_MP


def test_rope_bad_dk():
    with pytest.raises(ValueError, match="d_k"):
        rope.rope_matrix(1, 5)
    with pytest.raises(ValueError, match="d_k"):
        rope.apply_rope(np.zeros((2, 3)))


# ----------------------------------------------------------------------- PLGA components
def test_density_hand_and_symmetry():
    Q = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert np.array_equal(plga.density(Q), [[10.0, 14.0], [14.0, 20.0]])
    Qr = np.random.default_rng(1).standard_normal((5, 4))
    D = plga.density(Qr, **MP)
    assert mpmax(D, D.T) == 0
    ev = np.linalg.eigvalsh(to_float64(D))
    assert ev.min() > -1e-12


def test_metric_potential_energy_hand():
    A = np.eye(2)
    W = np.array([[1.0, 0.0], [0.0, 2.0]])
    A_LM = plga.metric_tensor(A, W, np.zeros((2, 2)), eps=1e-9, **MP)
    with mpmath.workdps(50):
        e = mpmath.mpf("1e-9")
        exp = [sig(1) + e, e, e, 4 * sig(2) + e]
    assert mpmax(A_LM, exp) < TOL_MP
    with mpmath.workdps(50):
        assert all(v >= mpmath.mpf("1e-9") for v in A_LM.reshape(-1))
    # A_P = A_LM^P by hand, P = 0 gives all ones
    AP = plga.potential_tensor(np.array([[4.0, 9.0]]), np.array([[0.5, 0.5]]), **MP)
    assert mpmax(AP, [2, 3]) < TOL_MP
    assert mpmax(plga.potential_tensor(np.array([[4.0, 9.0]]), np.zeros((1, 2)), **MP), [1, 1]) == 0
    # G = a·A_P + b_a is a matrix product
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    G = plga.energy_curvature_tensor(np.ones((2, 2)), a, np.eye(2))
    assert np.array_equal(G, [[4.0, 3.0], [7.0, 8.0]])
    d = plga.deductive_operator(A, W, np.zeros((2, 2)), np.zeros((2, 2)), a, np.eye(2))
    assert np.array_equal(d["A_P"], np.ones((2, 2)))
    assert np.array_equal(d["G_LM"], [[4.0, 3.0], [7.0, 8.0]])


def test_softmax_and_masks_hand():
    x = np.log(np.array([1.0, 2.0, 3.0]))
    with mpmath.workdps(50):
        xm = [mpmath.log(1), mpmath.log(2), mpmath.log(3)]
    s = plga.softmax(np.array(xm, dtype=object), **MP)
    with mpmath.workdps(50):
        assert mpmax(s, [mpmath.mpf(1) / 6, mpmath.mpf(2) / 6, mpmath.mpf(3) / 6]) < TOL_MP
    m = np.array([0.0, 0.0, 1.0])
    ex = plga.masked_softmax(np.array(xm, dtype=object), m, mode="exact", **MP)
    assert ex[2] == 0
    with mpmath.workdps(50):
        assert mpmax(ex[:2], [mpmath.mpf(1) / 3, mpmath.mpf(2) / 3]) < TOL_MP
    add = plga.masked_softmax(x, m)  # the authors' -1e9 additive mask underflows to 0
    assert add[2] == 0.0 and np.allclose(add[:2], [1 / 3, 2 / 3], atol=1e-15)
    # shift invariance
    with mpmath.workdps(50):
        xs = pyref.to_mp(x) + 7  # shift in mp (exact up to 50-digit rounding)
    assert mpmax(plga.softmax(xs, **MP), plga.softmax(x, **MP)) < TOL_MP
    with pytest.raises(ValueError, match="every entry masked"):
        plga.masked_softmax(x, np.ones(3), mode="exact")
    M = plga.causal_pad_mask(np.array([[4, 0, 5]]))
    assert M.shape == (1, 1, 3, 3)
    assert np.array_equal(M[0, 0], [[0, 1, 1], [0, 1, 1], [0, 1, 0]])


def test_scores_hand():
    Q = np.array([[1.0, 0.0, 0.0, 0.0]])
    K = np.array([[0.0, 2.0, 0.0, 0.0]])
    G = np.zeros((4, 4))
    G[0, 1] = 3.0
    # (Q G Kᵀ)/√4 = 1·3·2/2
    assert plga.attention_scores(Q, K, G)[0, 0] == 3.0
    assert plga.attention_scores(Q, K)[0, 0] == 0.0


def _units(rng, dk, adff, n_units, zero_w3=False):
    units = []
    for _ in range(n_units):
        blocks = []
        for _ in range(2):
            W3 = np.zeros((dk, adff)) if zero_w3 else rng.standard_normal((dk, adff))
            blocks.append((rng.standard_normal((adff, dk)), rng.standard_normal(adff),
                           rng.standard_normal((adff, dk)), rng.standard_normal(adff),
                           W3, rng.standard_normal(dk)))
        units.append({"blocks": blocks, "gamma": rng.uniform(0.5, 2, dk),
                      "beta": rng.standard_normal(dk)})
    return units


def test_residual_metric_learner_hand_and_row_local():
    rng = np.random.default_rng(2)
    dk = 4
    A = rng.standard_normal((dk, dk))
    # W3 = 0: each block returns its bias b3, so one unit is LN(A + b3_second_block)
    units = _units(rng, dk, 3, 1, zero_w3=True)
    u = units[0]
    got = plga.residual_metric_learner(A, units, **MP)
    with mpmath.workdps(50):  # the sum A + b3 in mp (in float64 it would round)
        s = pyref.to_mp(A) + pyref.to_mp(u["blocks"][1][5])
    exp = layers.layer_norm(s, u["gamma"], u["beta"], **MP)
    assert mpmax(got, exp) < TOL_MP
    # row locality: changing row 2 of A changes only row 2 of Φ_res(A)
    units = _units(rng, dk, 5, 2)
    A2 = A.copy()
    A2[2] += 1.0
    o1 = plga.residual_metric_learner(A, units, **MP)
    o2 = plga.residual_metric_learner(A2, units, **MP)
    assert mpmax(np.delete(o1, 2, axis=0), np.delete(o2, 2, axis=0)) == 0
    assert mpmax(o1[2], o2[2]) > 1e-3
    with pytest.raises(ValueError, match="unit 0"):
        plga.residual_metric_learner(A, [{"gamma": 1}])


def test_plga_at_identity_equals_sdpa_mp():
    rng = np.random.default_rng(3)
    Q, K, V = (rng.standard_normal((2, 5, 4)) for _ in range(3))
    mask = plga.causal_pad_mask(np.array([[1, 2, 3, 4, 5]]))[0]
    o1, w1 = plga.plga_attention(Q, K, V, np.eye(4), mask, **MP)
    o2, w2 = plga.sdpa_attention(Q, K, V, mask, **MP)
    assert mpmax(o1, o2) < mpmath.mpf("1e-40") and mpmax(w1, w2) < mpmath.mpf("1e-40")
    o3, _ = plga.constant_operator_attention(Q, K, V, np.eye(4), mask, **MP)
    assert mpmax(o3, o2) < mpmath.mpf("1e-40")


# --------------------------------------------------------------------------- analysis
def test_perron_hand_and_errors():
    r = analysis.perron(np.array([[2.0, 1.0], [1.0, 2.0]]), dps=50)
    with mpmath.workdps(50):
        assert abs(r.root - 3) < TOL_MP
        assert mpmax(r.vector, [mpmath.mpf(1) / 2, mpmath.mpf(1) / 2]) < TOL_MP
    assert abs(r.second_modulus - 1) < 1e-14 and abs(r.gap - 2) < 1e-14
    # a non-symmetric 3x3 positive matrix: λ₁ agrees with mpmath.eig at 50 digits
    A = np.array([[1.0, 2.0, 0.5], [0.25, 3.0, 1.0], [2.0, 0.125, 1.5]])
    r = analysis.perron(A, dps=50, full_spectrum_mp=True)
    with mpmath.workdps(50):
        ev = mpmath.eig(mpmath.matrix(A.tolist()), left=False, right=False)
        lam = max(ev, key=lambda z: mpmath.re(z))
        assert abs(r.root - mpmath.re(lam)) < TOL_MP
    assert all(v > 0 for v in r.vector) and r.residual < TOL_MP
    with pytest.raises(ValueError, match=r"entry \(0, 1\)"):
        analysis.perron(np.array([[1.0, 0.0], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        analysis.perron(np.ones((2, 3)))
    with pytest.raises(ValueError, match="not finite"):
        analysis.perron(np.array([[1.0, np.nan], [1.0, 1.0]]))


def test_singular_rank_det():
    assert analysis.singular_ratio(np.diag([3.0, 1.0])) == pytest.approx(1 / 3, abs=1e-15)
    rank1 = np.outer(np.ones(4), [1.0, 2.0, 3.0, 4.0])  # rowClone
    assert analysis.numerical_rank(rank1) == 1
    assert analysis.singular_ratio(rank1) < 1e-15
    assert analysis.numerical_rank(np.zeros((3, 3))) == 0
    with pytest.raises(ValueError, match="zero"):
        analysis.singular_ratio(np.zeros((2, 2)))
    # float32 phenomenon: det of 64 x 64 diag(1e-20) underflows to 0 in float32, not at 50 digits
    M = np.diag(np.full(64, 1e-20))
    assert np.linalg.det(M.astype(np.float32)) == 0.0
    d = analysis.det(M, dps=50)
    with mpmath.workdps(50):
        exact = mpmath.mpf(1e-20) ** 64  # exact product of the float64 entries
        assert abs(d / exact - 1) < TOL_MP
    with pytest.raises(ValueError, match="square"):
        analysis.det(np.ones((2, 3)))


def test_commutant_projection_and_residual():
    rng = np.random.default_rng(4)
    dk = 6
    # an element of the commutant: blockdiag(c·1 + s·J)
    C = np.zeros((dk, dk))
    for a in range(dk // 2):
        c, s = rng.standard_normal(2)
        C[2 * a:2 * a + 2, 2 * a:2 * a + 2] = [[c, -s], [s, c]]
    assert analysis.commutant_residual(C) < 1e-15
    assert np.allclose(analysis.commutant_projection(C), C, atol=1e-15)
    assert analysis.commutator_residual(C, positions=(1, 2, 7)) < 1e-14
    G = rng.standard_normal((dk, dk))
    P = analysis.commutant_projection(G)
    # closed form: per diagonal block c = (B00+B11)/2, s = (B10-B01)/2, zero elsewhere
    Pe = np.zeros((dk, dk))
    for a in range(dk // 2):
        B = G[2 * a:2 * a + 2, 2 * a:2 * a + 2]
        c, s = (B[0, 0] + B[1, 1]) / 2, (B[1, 0] - B[0, 1]) / 2
        Pe[2 * a:2 * a + 2, 2 * a:2 * a + 2] = [[c, -s], [s, c]]
    assert np.allclose(P, Pe, atol=1e-14)
    rho = analysis.commutant_residual(G)
    assert rho == pytest.approx(np.linalg.norm(G - Pe) / np.linalg.norm(G), abs=1e-14)
    assert analysis.commutator_residual(G) > 0.01
    with pytest.raises(ValueError, match="zero"):
        analysis.commutant_residual(np.zeros((4, 4)))


def test_order_parameter_hand():
    X1 = np.array([1.0, 1.0, 1.0, 1.0])
    X2 = np.array([1.0, 1.0, 1.0, 3.0])
    op = analysis.order_parameter(X1, X2)
    assert op.rmse == pytest.approx(1.0)  # sqrt(4/4)
    assert op.m_rms == pytest.approx(1.0 / (0.5 * (1.0 + np.sqrt(3.0))))
    assert op.m_signed == pytest.approx(1.0 / (0.5 * (1.0 + 1.5)))
    assert op.m_first == pytest.approx(1.0)
    z = analysis.order_parameter(X1, X1)
    assert (z.m_rms, z.m_signed) == (0.0, 0.0)
    op = analysis.order_parameter(np.array([1.0, -1.0]), np.array([2.0, -2.0]))
    assert op.m_signed == float("inf")
    with pytest.raises(ValueError, match="shapes differ"):
        analysis.order_parameter(X1, X1[:2])


def test_row_variance_and_dag_value():
    assert analysis.row_variance_ratio(np.outer(np.ones(3), [1.0, 2.0, 5.0])) == 0.0
    M = np.array([[0.5, 0.2], [0.1, 0.3]])
    dv = analysis.dag_value(M)
    t = pyref.losses.dag_terms(M)
    assert dv == pytest.approx(float(t), abs=1e-14)


def test_det_backends_and_ln_scale_error():
    M = np.diag(np.full(64, 1e-20))
    assert analysis.det(M, backend="float32") == 0.0  # underflow in float32
    assert analysis.det(np.diag([2.0, 3.0]), backend="float64") == pytest.approx(6.0)
    with pytest.raises(ValueError, match="backend"):
        analysis.det(M, backend="float16")
    D = np.array([[4.0, 1.0, 0.0, 3.0]])
    r = analysis.ln_scale_error(D, None, None, S=1)
    assert r["abs_l2"][0] == 0.0  # S = 1: no scale change
    r = analysis.ln_scale_error(D, None, None, S=1000)
    assert r["abs_l2"][0] > 0 and r["proxy"][0] == pytest.approx(1e-6 / (2 * np.var(D / 1000)))


def test_cache_deviation_zero_for_fixed_operator():
    cfg = pyref.PLDRConfig(num_layers=1, d_model=8, num_heads=2, dff=8, a_dff=4, num_res_units=1,
                           num_glu_blocks=2, vocab_size=9, max_seq_len=8)
    sd = pyref.PLDRModel.random(cfg, seed=0).state_dict()
    m_learned = pyref.PLDRModel.from_state_dict(sd, cfg)
    sd["decoder.dec_layers.0.mha1.plgatt_layer.alst"] *= 0  # G = b_a: cannot change
    sd["decoder.dec_layers.0.mha1.plgatt_layer.balst"] += np.eye(4)
    cd = analysis.cache_deviation(pyref.PLDRModel.from_state_dict(sd, cfg), [1, 2, 3], 3)
    assert cd.d.shape == (3,) and np.all(cd.eps_G == 0) and cd.d.max() < 1e-12 and cd.sufficient
    cd2 = analysis.cache_deviation(m_learned, [1, 2, 3], 3)
    assert cd2.eps_G[1:].max() > 0  # the learned operator drifts with the sequence


def test_layer_norm_eps_zero_constant_row_is_an_error():
    for backend in ("float64", "mp"):
        with pytest.raises(ValueError, match=r"eps = 0 and row \(1,\) has zero variance"):
            pyref.layers.layer_norm([[1.0, 2.0], [3.0, 3.0]], eps=0.0, backend=backend)
    with pytest.raises(ValueError, match="eps must be >= 0"):
        pyref.layers.layer_norm([[1.0, 2.0]], eps=-1.0)
