"""Cross-check properties of ``Formal/Structure/RankOne.lean``: ``rank_one_identities`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import combine, prop
from ...strategies import matrix
from .._arith import gamma, maxabs
from ._shared import MODEST, _phi_res_mat, _phi_units, _ub

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.RankOne.rowClone_apply":
        "definitional (rfl): entry (i, j) of 𝟙αᵀ is α_j (how the checked rank-one matrices are "
        "built)",
    "PLGA.RankOne.rowClone_row_eq":
        "definitional (rfl) for 𝟙αᵀ; its pipeline instance (Φ_res of a rank-one input has "
        "identical rows) is phiResMat_rowClone, checked by phi_res_row_local",
    "PLGA.RankOne.rowClone_eq_zero_iff":
        "definitional (𝟙αᵀ = 0 iff α = 0, entry (j, j) reads α_j); nothing numeric",
}


# ======================================================= 7. rank-one matrices (Prop 3.9)
@st.composite
def rank_one_case(draw):
    d = draw(st.integers(2, 8))
    alpha = draw(matrix(1, d, magnitude=MODEST, structure=False))[0]
    seed = draw(st.integers(0, 2 ** 16))
    h = draw(st.integers(1, 5))
    n_units = draw(st.integers(1, 2))
    v = draw(matrix(1, d, structure=False))[0]
    kdet = draw(st.integers(13, 16))
    return alpha, seed, h, n_units, v, kdet


def _rank_one_product_parts(b, backend, a, A, v):
    """rowClone_mul_self, rowClone_pow (k ≤ 4), rowClone_mulVec_one and rowClone_mulVec on
    A = 𝟙aᵀ. Call inside ``b.context()``."""
    d = len(a)
    af = np.abs(to_float64(a))
    sa = np.sum(a)
    Sabs, amax = float(np.sum(af)), float(np.max(af))
    parts = [("rowClone_mul_self", maxabs(A @ A - sa * A), _ub(backend, d + 1, Sabs * amax))]
    Pk = A
    for k in range(1, 5):
        Pk = Pk @ A
        parts.append((f"rowClone_pow k={k}", maxabs(Pk - (sa ** k) * A),
                      _ub(backend, k * (d + 2), Sabs ** k * amax)))
    one = b.asarray(np.ones(d))
    parts.append(("rowClone_mulVec_one", maxabs(A @ one - sa * one), _ub(backend, d, Sabs)))
    vb = b.asarray(v)
    parts.append(("rowClone_mulVec", maxabs(A @ vb - (a @ vb) * one),
                  _ub(backend, d, float(af @ np.abs(v)))))
    return parts


def _rank_one_nilpotent_parts(b, backend, a):
    """rowClone_pow_eq_zero (k = 2…4) on 𝟙a⁰ᵀ, a⁰_{2j+1} = −a⁰_{2j} taken from a (Σa⁰ = 0
    exactly). Call inside ``b.context()``."""
    d = len(a)
    a0 = a.copy()
    for j in range(0, d - 1, 2):
        a0[j + 1] = -a0[j]
    if d % 2:
        a0[d - 1] = b.const(0)
    A0 = np.stack([a0] * d)
    a0f = np.abs(to_float64(a0))
    parts = []
    P0 = A0
    for k in range(2, 5):
        P0 = P0 @ A0
        scale = float(np.sum(a0f)) ** (k - 1) * float(np.max(a0f))
        parts.append((f"rowClone_pow_eq_zero k={k}", maxabs(P0),
                      _ub(backend, k * (d + 1), scale)))
    return parts


def _rank_one_kernel_parts(b, backend, a, A):
    """rowClone_minor2_eq_zero (exact) and rowClone_exists_kernel_vector on A = 𝟙aᵀ. Call inside
    ``b.context()``."""
    d = len(a)
    af = np.abs(to_float64(a))
    minors = 0.0
    for i in range(d):
        for i2 in range(d):
            # entry (j, j'): A_ij A_i'j' − A_ij' A_i'j
            minors = max(minors, maxabs(np.outer(A[i], A[i2]) - np.outer(A[i2], A[i])))
    parts = [("rowClone_minor2_eq_zero", minors, 0.0)]
    if a[0] == 0 and a[1] == 0:
        kv = b.asarray(np.eye(d)[0])
    else:
        kv = b.zeros(d)
        kv[0], kv[1] = a[1], -a[0]
    nonzero = any(t != 0 for t in kv)
    parts.append(("rowClone_exists_kernel_vector", maxabs(A @ kv) + (0.0 if nonzero else 1.0),
                  _ub(backend, d + 1, 2 * float(af[0] * af[1]))))
    return parts


def _rank_one_det_parts(b, dps, A, amax, seed, kdet):
    """det_rowClone (50 digits exactly 0; float32 bounded), det_one_by_one, and the float32
    underflow contrast on the certified nonsingular 2⁻¹²(I + E) of size kdet."""
    d = len(A)
    det_mp = pyref.analysis.det(A, dps=dps)
    parts = [("det_rowClone (50 digits: exactly 0)", abs(float(det_mp)), 0.0)]
    det32 = pyref.analysis.det(to_float64(A), backend="float32")
    u32 = 2.0 ** -24
    parts.append(("det_rowClone (float32 LU)", abs(float(det32)),
                  amax * (2.0 ** d * 4 * u32 * amax) ** (d - 1)))
    x0 = A[0, 0]
    det11 = pyref.analysis.det(np.array([[x0]], dtype=object if b.is_mp else float), dps=dps)
    parts.append(("det_one_by_one", abs(float(det11 - x0)), 0.0))
    # float32 zero determinant = underflow, not rank: a certified nonsingular 2^-12 (I + E)
    E = np.random.default_rng(seed + 1).uniform(-1, 1, (kdet, kdet)) / (4 * kdet)
    B = (np.eye(kdet) + E) * 2.0 ** -12
    dB = pyref.analysis.det(B, dps=dps)
    with mpmath.workdps(dps):
        lower = mpmath.mpf(2) ** (-12 * kdet) * mpmath.mpf(0.75) ** kdet
        certified = abs(dB) >= lower * (1 - mpmath.mpf(10) ** -40)
    d32 = pyref.analysis.det(B, backend="float32")
    parts.append(("float32 det underflow vs 50-digit det",
                  0.0 if (certified and float(d32) == 0.0) else 1.0, 0.0))
    return parts


@prop(theorems=["PLGA.RankOne.rowClone_mul_self", "PLGA.RankOne.rowClone_pow",
                "PLGA.RankOne.rowClone_mulVec_one", "PLGA.RankOne.rowClone_mulVec",
                "PLGA.RankOne.rowClone_sq_eq_zero", "PLGA.RankOne.rowClone_pow_eq_zero",
                "PLGA.RankOne.rowClone_minor2_eq_zero",
                "PLGA.RankOne.rowClone_exists_kernel_vector", "PLGA.RankOne.det_rowClone",
                "PLGA.RankOne.det_one_by_one"],
      paper="Prop 3.9 (identical rows 𝟙αᵀ: A² = (Σα)A, nilpotent when Σα = 0, det 0, σ₂/σ₁ = 0, "
            "rank 1)",
      strategy=rank_one_case)
def rank_one_identities(ex, backend, dps):
    """α' = φ(α), the row that pyref's Φ_res (LN_A then ``residual_metric_learner`` with random
    units) maps the identical-rows input 𝟙αᵀ to (``phi_res_row_local`` checks that every output row
    is φ(α)); A = 𝟙α'ᵀ (d ≥ 2):

    * ``rowClone_mul_self`` A² = (Σα')A; ``rowClone_pow`` A^{k+1} = (Σα')^k A (k ≤ 4);
      ``rowClone_mulVec_one`` A𝟙 = (Σα')𝟙; ``rowClone_mulVec`` Av = (α'·v)𝟙;
    * nilpotency (``rowClone_sq_eq_zero``, ``rowClone_pow_eq_zero``): for a⁰ with a⁰_{2j+1} =
      −a⁰_{2j} (taken from α', so Σa⁰ = 0 exactly), (𝟙a⁰ᵀ)^k = 0 for k = 2…4;
    * ``rowClone_minor2_eq_zero``: all 2×2 minors vanish (exact: a_j a_j' − a_j' a_j);
      ``rowClone_exists_kernel_vector``: v = (α'_1, −α'_0, 0, …) (e_0 if both vanish) has Av = 0;
    * ``det_rowClone``: ``pyref.analysis.det`` at 50 digits is exactly 0 (the LU of identical rows
      eliminates them exactly); its float32 value need not be 0 (LAPACK multiplies by a rounded
      reciprocal pivot, so the multipliers are 1 ± 2u₃₂ and the eliminated rows keep O(u₃₂)
      residues; measured up to ~1e-16), but it is bounded: after the first elimination every entry
      is ≤ 4u₃₂·max|α'|, partial pivoting grows entries by ≤ 2^{d−2} (taken as 2^d for the rounding
      of the blocked updates), so |det₃₂| ≤ max|α'|·(2^d·4u₃₂·max|α'|)^{d−1}; the paper's contrast:
      for the full-rank 2⁻¹²(I + E) of size 13…16 (‖E‖_∞ ≤ ¼, so |det| ≥ 2^{−12n}(¾)^n > 0) the
      float32 determinant underflows to 0 while the 50-digit one is certified nonzero: a float32
      zero determinant is underflow, not rank; ``det_one_by_one``: det [[x]] = x exactly;
    * ``pyref.analysis.singular_ratio``(A) = σ₂/σ₁ ≈ 0 and ``numerical_rank``(A) = 1 (exact).

    float64 bounds (Higham §3.1): A² and (Σα')A within 2γ_{d+1}·Σ|α'|·max|α'|; powers within
    2γ_{k(d+2)}(Σ|α'|)^k max|α'|; A𝟙, Av within 2γ_d·Σ|α'||v|; the nilpotent powers within
    γ_{k(d+1)}(Σ|a⁰|)^{k−1}max|a⁰| of 0; Av (kernel) within γ_{d+1}·2|α'_0α'_1| of 0 (an FMA may
    leave the rounding error of α'_0α'_1). singular_ratio is a float64 SVD: LAPACK's singular-value
    error bound p(d)·u·σ₁ (LAPACK Users' Guide §4.9) with p(d) taken as d² gives σ₂/σ₁ ≤
    ``fp_bound(d², 1)``, far below numerical_rank's threshold 64·eps_f32. mp: 1e-40 times the same
    scales."""
    alpha, seed, h, n_units, v, kdet = ex
    d = len(alpha)
    rng = np.random.default_rng(seed)
    units = _phi_units(rng, d, h, n_units, 2)
    gA, bA = rng.uniform(0.5, 1.5, d), rng.uniform(-1, 1, d)
    Phi = _phi_res_mat(np.tile(alpha, (d, 1)), gA, bA, units, 1e-6, backend, dps)
    b = pyref.get_backend(backend, dps)
    with b.context():
        a = Phi[0].copy()
        A = np.stack([a] * d)                                  # 𝟙 α'ᵀ, exact
        parts = _rank_one_product_parts(b, backend, a, A, v)
        parts += _rank_one_nilpotent_parts(b, backend, a)
        parts += _rank_one_kernel_parts(b, backend, a, A)
    amax = float(np.max(np.abs(to_float64(a))))
    parts += _rank_one_det_parts(b, dps, A, amax, seed, kdet)
    Af = to_float64(A)
    met = bool(np.any(Af != 0))
    if met:
        parts.append(("singular_ratio (float64 SVD)", pyref.analysis.singular_ratio(Af),
                      2 * gamma(d * d)))
        parts.append(("numerical_rank = 1", float(pyref.analysis.numerical_rank(Af) != 1), 0.0))
    return combine(parts, met=met)
