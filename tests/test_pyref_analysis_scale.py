"""Scale invariance of the ``pyref.analysis`` ratio statistics (issue 15, item 2).

commutant_residual, commutator_residual, row_variance_ratio, singular_ratio, numerical_rank and
the m_* fields of order_parameter are invariant under X -> s·X (s > 0); order_parameter's rmse is
equivariant (rmse(s·X1, s·X2) = s·rmse(X1, X2)).  They must hold across the whole float64 range:
the naive sums of squares underflow below |X| ~ 1e-154 and overflow above ~1e154.  Also: NaN
entries raise ValueError (the module's promise), and the documented all-zero behaviour.
"""

from __future__ import annotations

import numpy as np
import pytest

from pyref import analysis

SCALES = (1e-300, 1e-170, 1e-158, 1.0, 1e160, 1e300)
D_K = 6

# Tolerance of f(s·X) vs f(X): s·X rounds every entry by at most 2^-53 ≈ 1.1e-16 relatively,
# and each statistic is a ratio of well-conditioned norms of X (values ~0.1-1 here), so the
# difference is a small multiple of 1e-16; 1e-12 leaves ~4 orders of headroom and is 9 orders
# below the 1e-3 error the unscaled formulas had at 1e-161.
REL = 1e-12


def _X(seed=0, shape=(D_K, D_K)):
    return np.random.default_rng(seed).standard_normal(shape)


RATIO_FUNCS = {
    "commutant_residual": analysis.commutant_residual,
    "commutator_residual": lambda G: analysis.commutator_residual(G, positions=(1, 2, 7)),
    "row_variance_ratio": analysis.row_variance_ratio,
    "singular_ratio": analysis.singular_ratio,
}


@pytest.mark.parametrize("scale", SCALES)
@pytest.mark.parametrize("name", sorted(RATIO_FUNCS))
def test_ratio_statistics_are_scale_invariant(name, scale):
    f = RATIO_FUNCS[name]
    X = _X()
    ref = f(X)
    assert 0.01 < ref < 2  # nonzero, non-degenerate (‖GR - RG‖_F ≤ 2‖G‖_F)
    # zero-vs-nonzero: a nonzero G must not be reported as zero (no ValueError) at any scale
    got = f(scale * X)
    assert np.isfinite(got)
    assert got == pytest.approx(ref, rel=REL)


@pytest.mark.parametrize("scale", SCALES)
def test_numerical_rank_is_scale_invariant(scale):
    # ranks 6 (generic) and 2 (outer-product sum): integers, so exact equality.  The rank-2 matrix
    # has σ₃/σ₁ ~ 1e-16, far from the 64·eps32 ≈ 7.6e-6 threshold, so rounding cannot flip it.
    rng = np.random.default_rng(1)
    X = _X()
    L = rng.standard_normal((D_K, 2)) @ rng.standard_normal((2, D_K))
    assert analysis.numerical_rank(scale * X) == analysis.numerical_rank(X) == D_K
    assert analysis.numerical_rank(scale * L) == analysis.numerical_rank(L) == 2


@pytest.mark.parametrize("name", sorted(RATIO_FUNCS))
def test_batched_matrices_at_different_scales(name):
    # each matrix of a batch is scaled on its own: 1e-300 and 1e300 in one array
    f = RATIO_FUNCS[name]
    X = np.stack([_X(0), _X(1), _X(2)])
    ref = f(X)
    got = f(X * np.array([1e-300, 1.0, 1e300])[:, None, None])
    assert np.all(np.isfinite(got))
    np.testing.assert_allclose(got, ref, rtol=REL, atol=0)


@pytest.mark.parametrize("scale", SCALES)
def test_order_parameter_scale(scale):
    X1 = _X(0, (4, 5))
    X2 = X1 + 0.3 * _X(1, (4, 5))
    ref = analysis.order_parameter(X1, X2)
    got = analysis.order_parameter(scale * X1, scale * X2)
    # two different inputs are never reported as equal
    assert got.rmse > 0 and got.m_rms > 0
    # rmse is equivariant, the m_* ratios invariant; same rounding argument as REL above
    assert got.rmse / scale == pytest.approx(ref.rmse, rel=REL)
    for k in ("m_rms", "m_signed", "m_first"):
        assert np.isfinite(getattr(got, k))
        assert getattr(got, k) == pytest.approx(getattr(ref, k), rel=REL), k
    same = analysis.order_parameter(scale * X1, scale * X1)
    assert (same.rmse, same.m_rms, same.m_signed, same.m_first) == (0.0, 0.0, 0.0, 0.0)


def test_order_parameter_tiny_difference_is_not_zero():
    # inputs differing only in one subnormal-range entry are different (rmse > 0)
    a = np.array([1.0, 5e-324])
    b = np.array([1.0, 0.0])
    op = analysis.order_parameter(a, b)
    assert op.rmse > 0 and op.m_rms > 0


# ----------------------------------------------------------------- agreement at ordinary scale
# The previous (unscaled) formulas, kept here as the reference at scale 1: the scaled
# implementations must agree to relative difference ≤ 1e-12 on random inputs (they rescale by
# powers of two, so the agreement is in fact to rounding).
def _old_commutant_residual(a):
    w = analysis.rope_frequencies(a.shape[-1])
    U = analysis.rope_eigenbasis(a.shape[-1])
    Gc = U.conj().T @ a @ U
    keep = np.abs(w[:, None] - w[None, :]) < 1e-12
    num = np.sqrt(np.sum(np.abs(np.where(keep, 0, Gc)) ** 2, axis=(-2, -1)))
    return num / np.sqrt(np.sum(np.abs(Gc) ** 2, axis=(-2, -1)))


def _old_commutator_residual(a, positions=(1, 2, 7)):
    den = np.sqrt(np.sum(a * a, axis=(-2, -1)))
    best = np.zeros(a.shape[:-2])
    for p in positions:
        R = analysis.rope_matrix(p, a.shape[-1], 1e4)
        C = a @ R - R @ a
        best = np.maximum(best, np.sqrt(np.sum(C * C, axis=(-2, -1))) / den)
    return best


def _old_row_variance_ratio(a):
    num = np.mean((a - np.mean(a, axis=-2, keepdims=True)) ** 2, axis=(-2, -1))
    return num / np.mean((a - np.mean(a, axis=(-2, -1), keepdims=True)) ** 2, axis=(-2, -1))


def _old_singular_ratio(a):
    s = np.linalg.svd(a, compute_uv=False)
    return s[..., 1] / s[..., 0]


def _old_order_parameter(a, b):
    def rms(x):
        return np.sqrt(np.mean(x * x))

    num = rms(a - b)
    d_sig = 0.5 * (abs(np.mean(a)) + abs(np.mean(b)))
    return (num, num / (0.5 * (rms(a) + rms(b))), num / d_sig, num / abs(np.mean(a)))


OLD = {
    "commutant_residual": _old_commutant_residual,
    "commutator_residual": _old_commutator_residual,
    "row_variance_ratio": _old_row_variance_ratio,
    "singular_ratio": _old_singular_ratio,
}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("name", sorted(RATIO_FUNCS))
def test_unchanged_at_ordinary_scale(name, seed):
    X = _X(seed, (3, D_K, D_K)) * np.exp(_X(seed + 100, (3, 1, 1)))  # magnitudes ~0.1-10
    np.testing.assert_allclose(RATIO_FUNCS[name](X), OLD[name](X), rtol=1e-12, atol=0)
    for M in X:
        assert analysis.numerical_rank(M) == np.sum(
            np.linalg.svd(M, compute_uv=False) > 64 * analysis.F32_EPS
            * np.linalg.norm(M, 2))


@pytest.mark.parametrize("seed", range(5))
def test_order_parameter_unchanged_at_ordinary_scale(seed):
    a = _X(seed, (3, 7)) + 0.5
    b = a + 0.1 * _X(seed + 50, (3, 7))
    op = analysis.order_parameter(a, b)
    np.testing.assert_allclose([op.rmse, op.m_rms, op.m_signed, op.m_first],
                               _old_order_parameter(a, b), rtol=1e-12, atol=0)


# --------------------------------------------------------------------- malformed and zero input
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("fn", [analysis.singular_ratio, analysis.numerical_rank,
                                analysis.row_variance_ratio])
def test_non_finite_entries_raise(fn, bad):
    M = _X()
    M[2, 3] = bad
    with pytest.raises(ValueError, match=rf"{fn.__name__}: .*non-finite"):
        fn(M)
    with pytest.raises(ValueError, match=fn.__name__):
        fn(np.stack([_X(1), M]))  # one bad matrix in a batch


@pytest.mark.parametrize("scale", (0.0, 1e-300, 1e300))
def test_all_zero_documented_behaviour(scale):
    Z = np.zeros((D_K, D_K)) * scale
    # docstrings: the residuals and σ₂/σ₁ raise for G = 0, numerical_rank is 0, the row
    # variance ratio is undefined for a constant matrix, order_parameter(0, 0) is all zeros
    for fn in (analysis.commutant_residual, analysis.commutator_residual,
               analysis.singular_ratio):
        with pytest.raises(ValueError, match="zero"):
            fn(Z)
    with pytest.raises(ValueError, match="constant"):
        analysis.row_variance_ratio(Z)
    assert analysis.numerical_rank(Z) == 0
    op = analysis.order_parameter(Z, Z)
    assert (op.rmse, op.m_rms, op.m_signed, op.m_first) == (0.0, 0.0, 0.0, 0.0)
    # a constant nonzero matrix at an extreme scale is still "constant"
    with pytest.raises(ValueError, match="constant"):
        analysis.row_variance_ratio(np.full((3, 4), 3.0 * (scale or 1.0)))
