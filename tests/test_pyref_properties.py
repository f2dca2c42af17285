"""A few property tests (hypothesis, small example counts) of theorem statements the Lean
files prove, evaluated on pyref's functions.  The crosscheck/ harness runs these at scale.

Tolerances: float64 identities on O(1)-O(10) data after < 100 operations: 1e-12 relative.
"""
import mpmath
import numpy as np
import sympy
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

import pyref
from pyref import analysis, layers, plga, rope

SETTINGS = settings(max_examples=25, deadline=None)
fin = st.floats(-5, 5, allow_nan=False, allow_infinity=False)


@SETTINGS
@given(arrays(np.float64, (3, 4, 4), elements=fin), arrays(np.float64, (4, 4), elements=fin),
       arrays(np.float64, (4, 4), elements=fin))
def test_metric_entry_ge_eps(A, W, b):
    A_LM = plga.metric_tensor(A, W, b, eps=1e-9)
    assert np.all(A_LM >= 1e-9)


@SETTINGS
@given(arrays(np.float64, (2, 5), elements=fin), st.floats(-50, 50))
def test_softmax_sum_one_and_shift(x, c):
    s = plga.softmax(x)
    assert np.allclose(s.sum(-1), 1, atol=1e-14, rtol=0) and np.all(s > 0)
    assert np.allclose(plga.softmax(x + c), s, atol=1e-12, rtol=0)


dyadic = st.integers(-20, 20).map(lambda k: k / 4)  # small dyadic rationals: mp sums are exact


@SETTINGS
@given(arrays(np.float64, (6, 4), elements=dyadic))
def test_density_symmetric_psd(Q):
    D = plga.density(Q)
    assert np.array_equal(D, D.T)
    assert np.linalg.eigvalsh(D).min() >= -1e-12 * max(1.0, np.abs(D).max())
    # rank(QᵀQ) = rank Q, checked exactly: for dyadic data k/4 with |k| ≤ 20 the 60-digit
    # mp density is exact (every product and partial sum fits in far fewer than 199 bits)
    Dm = plga.density(Q, backend="mp", dps=60)

    def exact(v):  # an mpf as an exact rational: (-1)^sign · man · 2^exp
        sign, man, exp, _ = v._mpf_
        return (-1) ** sign * sympy.Integer(int(man)) * sympy.Rational(2) ** int(exp) if man else sympy.Integer(0)
    Ds = sympy.Matrix(4, 4, [exact(v) for v in Dm.reshape(-1)])
    Qs = sympy.Matrix(6, 4, [sympy.Rational(*float(v).as_integer_ratio()) for v in Q.reshape(-1)])
    assert Ds == Qs.T * Qs and Ds.rank() == Qs.rank()


@SETTINGS
@given(st.integers(0, 2000), st.integers(0, 2000))
def test_rope_orthogonal_group_law(m, n):
    Rm, Rn, Rmn = rope.rope_matrix(m, 8), rope.rope_matrix(n, 8), rope.rope_matrix(m + n, 8)
    assert np.allclose(Rm.T @ Rm, np.eye(8), atol=1e-14)
    assert np.allclose(Rm @ Rn, Rmn, atol=1e-11)  # angles up to 4000 rad: ~4000·eps error


@SETTINGS
@given(arrays(np.float64, (4,), elements=fin), st.floats(-100, 100))
def test_layer_norm_shift(r, c):
    assert np.allclose(layers.layer_norm(r + c), layers.layer_norm(r), atol=1e-8)  # eps=1e-6 LN of shifted float data


@SETTINGS
@given(arrays(np.float64, (4,), elements=st.floats(0.1, 5)))
def test_row_clone_rank_one(alpha):
    A = np.outer(np.ones(4), alpha)
    assert analysis.numerical_rank(A) == 1
    assert np.allclose(A @ A, alpha.sum() * A, rtol=1e-13)
    assert abs(float(analysis.det(A, dps=30))) == 0


@SETTINGS
@given(arrays(np.float64, (3, 3), elements=st.floats(-2, 2)))
def test_dag_trace_lower_bound(M):
    N = M * M
    tr = np.trace(pyref.expm(N))
    assert 3 + np.trace(N) <= tr * (1 + 1e-14)


def test_perron_on_model_A_LM():
    cfg = pyref.PLDRConfig(num_layers=1, d_model=8, num_heads=2, dff=8, a_dff=4, num_res_units=1,
                           num_glu_blocks=2, vocab_size=9, max_seq_len=6)
    m = pyref.PLDRModel.random(cfg, seed=0)
    A_LM = m.forward([[1, 2, 3]], backend="mp", dps=40).deductive[0]["A_LM"]
    r = analysis.perron(A_LM[0, 1], dps=40)
    with mpmath.workdps(40):
        assert all(v > 0 for v in r.vector) and r.residual < mpmath.mpf("1e-35")
    assert r.gap > 0
