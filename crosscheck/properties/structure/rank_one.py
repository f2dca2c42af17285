"""Cross-check properties of ``Formal/Structure/RankOne.lean``: ``rank_one_identities``,
``rank_one_range_and_spectrum``, ``det_matches_laplace``, ``rank_statistics_match_spec`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, combine, prop
from ...spec_eval import analysis as sev
from ...spec_eval._scalar import mat
from ...strategies import UNIT, matrix
from .._arith import U64, gamma, maxabs
from ._shared import MODEST, _phi_res_mat, _phi_units, _ub

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.RankOne.rowClone_apply":
        "definitional (rfl): entry (i, j) of 𝟙αᵀ is α_j (how the checked rank-one matrices are "
        "built)",
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
    dbk = "arb" if b.is_arb else "mp"        # arb: the enclosure itself (a ball around 0)
    det_mp = pyref.analysis.det(A, dps=dps, backend=dbk)
    parts = [("det_rowClone (50 digits: exactly 0)", abs(det_mp if b.is_arb else float(det_mp)),
              0.0)]
    det32 = pyref.analysis.det(to_float64(A), backend="float32")
    u32 = 2.0 ** -24
    parts.append(("det_rowClone (float32 LU)", abs(float(det32)),
                  amax * (2.0 ** d * 4 * u32 * amax) ** (d - 1)))
    x0 = A[0, 0]
    det11 = pyref.analysis.det(np.array([[x0]], dtype=object if b.is_object else float), dps=dps,
                               backend=dbk)
    parts.append(("det_one_by_one", abs(det11 - x0 if b.is_arb else float(det11 - x0)), 0.0))
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
    * ``det_rowClone``: ``pyref.analysis.det`` at 50 digits is exactly 0 (Arb's enclosure contains
      0, so pyref computes the exact integer determinant of the dyadic entries); its float32 value
      need not be 0 (LAPACK multiplies by a rounded reciprocal pivot, so the multipliers are 1 ±
      2u₃₂ and the eliminated rows keep O(u₃₂) residues; measured up to ~1e-16), but it is bounded:
      after the first elimination every entry is ≤ 4u₃₂·max|α'|, partial pivoting grows entries by ≤
      2^{d−2} (taken as 2^d for the rounding of the blocked updates), so |det₃₂| ≤
      max|α'|·(2^d·4u₃₂·max|α'|)^{d−1}; the paper's contrast: for the full-rank 2⁻¹²(I + E) of size
      13…16 (‖E‖_∞ ≤ ¼, so |det| ≥ 2^{−12n}(¾)^n > 0) the float32 determinant underflows to 0 while
      the 50-digit one is certified nonzero: a float32 zero determinant is underflow, not rank;
      ``det_one_by_one``: det [[x]] = x exactly;
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


# ============================= rank-one range, spectrum and idempotent (Prop 3.9, "iff α ≠ 0")
@st.composite
def rank_one_range_case(draw):
    d = draw(st.integers(1, 8))
    alpha = draw(matrix(1, d, magnitude=MODEST, structure=False))[0]
    kind = draw(st.sampled_from(["generic", "generic", "zero", "sumzero"]))
    if kind == "zero":
        alpha = np.zeros(d)
    elif kind == "sumzero" and d >= 2:
        alpha[1::2] = -alpha[0:d - d % 2:2]           # pairs (a, −a): Σα = 0 exactly
        if d % 2:
            alpha[d - 1] = 0.0
    c = draw(st.floats(-4.0, 4.0, allow_nan=False))
    v = draw(matrix(1, d, structure=False))[0]
    return alpha, c, v


def _rank_one_eigen_parts(a, A):
    """rowClone_eigenvalue_eq_sum on numpy's eigenvalues (float64): A = 𝟙aᵀ with s = Σa ≠ 0 is
    diagonalizable (eigenvalues s, 0^{d−1}) with an eigenvector matrix of condition ≤ 2/ρ,
    ρ = |s|/(√d‖a‖) (the sine of the angle between 𝟙 and a^⊥); LAPACK's eigenvalues are exact for
    A + E with ‖E‖₂ ≤ d²u‖A‖_F (backward stable, p(d) = d² as for the SVD), so by Bauer–Fike every
    computed eigenvalue lies within τ = (2/ρ)·d²u‖A‖_F of {0, s}. Checked when |s| > 3τ (the two
    disks are apart): every eigenvalue outside the disk at 0 is within τ of s."""
    d = len(a)
    s = float(np.sum(a))
    na = float(np.linalg.norm(a))
    if s == 0 or na == 0:
        return []
    tau = 2 * np.sqrt(d) * na / abs(s) * d * d * U64 * float(np.linalg.norm(A))
    if abs(s) <= 3 * tau:
        return []
    lam = np.linalg.eigvals(A)
    dev = max((abs(complex(x) - s) for x in lam if abs(x) > tau), default=0.0)
    return [("rowClone_eigenvalue_eq_sum (every nonzero eigenvalue = Σα)", dev, tau)]


@prop(theorems=["PLGA.RankOne.rowClone_mulVec_mem_line", "PLGA.RankOne.dot_single",
                "PLGA.RankOne.rowClone_range_eq_line_iff",
                "PLGA.RankOne.rowClone_eigenvalue_eq_sum", "PLGA.RankOne.rowClone_smul_inv_idem"],
      paper="Prop 3.9 (𝟙αᵀ: range ⊆ line of 𝟙, = that line iff α ≠ 0 (rank 1 iff α ≠ 0); the "
            "nonzero eigenvalue is Σα; A/Σα idempotent)",
      strategy=rank_one_range_case,
      no_arb="its spectrum and scale sub-checks reduce values to float64 (numpy eigenvalues with a "
             "Bauer–Fike bound); the rank-one identities themselves run on arb in "
             "rank_one_identities")
def rank_one_range_and_spectrum(ex, backend, dps):
    """A = 𝟙αᵀ (d = 1 … 8; α generic, zero, or with Σα = 0 exactly):

    * ``rowClone_mulVec_mem_line``: A v has all entries equal (spread ≤ 2γ_d Σ|α||v|);
    * ``rowClone_range_eq_line_iff``: for α ≠ 0 and j with α_j ≠ 0 the preimage v = (c/α_j)e_j
      of the target c𝟙 gives A v = c𝟙 (within 2u|c|: one quotient, one product; the zero terms
      are exact), and pyref's ``numerical_rank`` (an SVD of its own) is 1; for α = 0 it is 0 and
      A v = 0 exactly, so c𝟙 (c ≠ 0) is not in the range; ``dot_single``: (A v)_i equals
      α_j·(c/α_j) as the backend rounds that one product (exact: the other terms are 0);
    * ``rowClone_eigenvalue_eq_sum`` (float64): :func:`_rank_one_eigen_parts`;
    * ``rowClone_smul_inv_idem``: for s = Σα ≠ 0, (A/s)² = A/s within
      2γ_{d+2}·Σ|α|·max|α|/s² (entries α_j/s rounded once, then a d-term product sum); not
      checked when s² underflows float64 (the scale of the bound is then not representable).

    mp: 1e-40 times the same scales; pyref's ``numerical_rank`` is float64 in both runs."""
    alpha, c, v = ex
    d = len(alpha)
    b = pyref.get_backend(backend, dps)
    parts = []
    nonzero = bool(np.any(alpha != 0))
    parts.append(("numerical_rank = [α ≠ 0]",
                  float(pyref.analysis.numerical_rank(np.tile(alpha, (d, 1))) != int(nonzero)),
                  0.0))
    with b.context():
        a = b.asarray(alpha)
        A = np.stack([a] * d)
        Av = A @ b.asarray(v)
        af = np.abs(alpha)
        parts.append(("rowClone_mulVec_mem_line (spread)", maxabs(Av - Av[0]),
                      _ub(backend, d, float(af @ np.abs(v)))))
        if nonzero:
            j = int(np.argmax(af))
            x = b.const(c) / a[j]
            e = b.zeros(d)
            e[j] = x
            Ae = A @ e
            parts.append(("dot_single (exact)", maxabs(Ae - a[j] * x), 0.0))
            parts.append(("range: A((c/α_j)e_j) = c𝟙", maxabs(Ae - b.const(c)),
                          _ub(backend, 2, abs(c))))
        else:
            parts.append(("α = 0: A v = 0 (c𝟙 ∉ range)", maxabs(Av), 0.0))
        s = np.sum(a)
        s2 = float(to_float64(np.array([s]))[0]) ** 2
        if s != 0 and s2 > 0:   # s² underflowing float64 leaves the bound's scale undefined
            B = A / s
            parts.append(("rowClone_smul_inv_idem", maxabs(B @ B - B),
                          _ub(backend, d + 2, float(np.sum(af) * np.max(af)) / s2)))
    if backend == "float64":
        parts += _rank_one_eigen_parts(alpha, np.tile(alpha, (d, 1)))
    return combine(parts)


# ===================================== the determinant, σ₂/σ₁, numerical rank, row variance
#: working precision of the spec evaluator (30 digits above pyref's 50)
REF_DPS = 80

#: gradual underflow: an operation landing in float64's subnormal range errs by ≤ 2^-1075 absolute
ETA = 2.0 ** -1074


@st.composite
def det_case(draw):
    n = draw(st.integers(1, 6))
    batch = draw(st.sampled_from([(), (), (2,)]))
    mats = []
    for _ in range(int(np.prod(batch, dtype=int))):
        M = draw(matrix(n, n))
        if n > 1 and draw(st.integers(0, 5)) == 0:
            M[:, draw(st.integers(0, n - 1))] = 0.0      # a zero column: singular, zero pivots
        mats.append(M)
    return np.stack(mats).reshape(batch + (n, n))


def _det_bound(a, u: float, k: int, tiny: float = 0.0):
    """|det(A + E) − det A| ≤ Π_j(‖a_j‖₂ + η) − Π_j‖a_j‖₂ (Hadamard's inequality on the
    multilinear expansion in the columns), with ‖e_j‖₂ ≤ η = k·u·‖A‖_F + n·k·tiny (``tiny``: the
    absolute error of an operation that underflows, or of rounding an input to a narrower
    format, which the relative model u excludes); plus the rounding of the final product,
    k·u·Π‖a_j‖₂ (a bound on |det A| itself)."""
    n = len(a)
    cols = [mpmath.sqrt(sum(a[i][j] ** 2 for i in range(n))) for j in range(n)]
    eta = k * u * sev.frobNorm(a) + n * k * mpmath.mpf(tiny)
    full, base = mpmath.mpf(1), mpmath.mpf(1)
    for c in cols:
        full, base = full * (c + eta), base * c
    return full - base + k * u * base


def _slogdet_error(g, amax: float, n: int, u: float):
    """Relative error of numpy's det beyond its LU: numpy returns sign·exp(Σ_i log|û_ii|)
    (``_umath_linalg``: det from slogdet). Each log errs by ≤ 4u relative (≤ 4 ulp), the sum by
    γ_n Σ|log|û_ii||, and exp adds 4u: relative error ≤ e^δ − 1 + 4u with
    δ = (4u + γ_n)·Σ_i|log|û_ii||. The pivots satisfy |û_ii| ≤ 2^{n−1}·max|A| (partial pivoting)
    and Σ log|û_ii| = log|ĝ| up to that same error (≤ 1 here), so Σ|log|û_ii|| ≤ |log|ĝ|| + 1 +
    2n·max(0, log(2^n max|A|)). 0 when ĝ = 0 (an exactly zero pivot: sign 0, no exp)."""
    if g == 0:
        return mpmath.mpf(0)
    gam = n * u / (1 - n * u)
    lam = abs(mpmath.log(abs(g))) + 1 + 2 * n * max(0.0, math.log(2.0 ** n * max(amax, 1e-300)))
    return mpmath.exp((4 * u + gam) * lam) - 1 + 4 * u


@prop(theorems=["PLGA.RankOne.det_one_by_one", "PLGA.RankOne.det_rowClone"],
      paper="Prop 3.9 / spec D (the determinant at 50 digits, float64 and float32)",
      strategy=det_case)
def det_matches_laplace(M, backend, dps):
    """``pyref.analysis.det`` (2-D and batched input) equals the Lean ``det`` (Laplace expansion
    along the first column, ``spec_eval.analysis.det`` at 80 digits) on random matrices (n =
    1 … 6, rank-deficient ones included) and on the ``rowClone`` of each matrix's first row
    (det_rowClone: both 0 up to the bound); 1×1: det [[x]] = x exactly (det_one_by_one).

    Bound (:func:`_det_bound`): LU with partial pivoting is backward stable, ``A + E`` with
    ``|E| ≤ γ_n|L||U|`` and growth ≤ 2^{n−1} (Higham Thm 9.3, 9.5), so ‖E‖_F ≤ n²2^{n}u‖A‖_F =: η.
    mp (the midpoint of pyref's Arb enclosure, relative radius < 2^-169, or the exact
    determinant, rounded to 50 digits: within the bound n²2^n u₅₀ ≤ 1e-46 of any
    backward-stable 50-digit LU), taken as 1e-40 (``_arith.mp_bound``'s factor); float64
    (``backend="float64"``, LAPACK) u = 2^-53 and float32 (also checked on the float64 backend,
    input rounded to float32: one more u₃₂ per entry) u = 2^-24, k = n²2^n + 1.
    Gradual underflow (Hypothesis draws tiny entries) errs by an absolute 2^-1075 (float64) or
    2^-150 (float32, also when rounding a tiny input) per operation: the ``tiny`` term of η.
    numpy forms the float determinant as exp of a log-sum: :func:`_slogdet_error` on top."""
    n = M.shape[-1]
    flat = M.reshape(-1, n, n)
    k = n * n * 2 ** n + 1
    runs = ([("mp", pyref.analysis.det(M, dps=dps), 1e-40, 1, 0.0)] if backend == "mp" else
            [("float64", pyref.analysis.det(M, backend="float64"), U64, k, ETA),
             ("float32", pyref.analysis.det(M, backend="float32"), 2.0 ** -24, k + 1, 2.0 ** -149)])
    ch = Checks()
    with mpmath.workdps(REF_DPS):
        for name, got, u, kk, tiny in runs:
            got = np.asarray(got, dtype=object).reshape(-1)
            for m, g in zip(flat, got):
                a = mat(m)
                g = g if isinstance(g, mpmath.mpf) else mpmath.mpf(float(g))
                bnd = _det_bound(a, u, kk, tiny)
                if name != "mp":
                    e = _slogdet_error(g, float(np.max(np.abs(m))), n, u)
                    bnd += abs(g) * e / (1 - e) + tiny
                ch.le(f"det = Lean det (Laplace), {name}", abs(g - sev.det(a)), bnd)
                if n == 1 and name == "mp":
                    ch.exact("det [[x]] = x (mp: exact)", int(g != mpmath.mpf(m[0, 0])))
        if backend == "mp":
            for m in flat:
                rc = np.tile(m[0], (n, 1))
                a = mat(rc)
                g = pyref.analysis.det(rc, dps=dps)
                ch.le("det rowClone(a) = Lean det rowClone(a) (= 0)",
                      abs(mpmath.mpf(g) - sev.det(a)), _det_bound(a, 1e-40, 1))
    return ch.outcome()


#: LAPACK singular values: |σ̂_i − σ_i| ≤ p(m, n)·u·σ₁ with "a modestly growing p" (LAPACK Users'
#: Guide §4.9); taken as p = m·n (above the O(max(m, n)) of Householder bidiagonalization)
def _svd_err(m: int, n: int) -> float:
    return m * n * U64


def _near_threshold(draw, m, n, rtol):
    """Q₁ diag(σ) Q₂ᵀ (Q from the QR factorizations of random matrices) with σ₁ = 1, the middle
    σ in [0.2, 1] and the smallest at rtol·10^U(−1, 1): a singular value on either side of the
    rank threshold rtol·σ₁ at a generic distance (a threshold misplaced by a factor σ₁² or
    more — pyref rescales so that max|entry| ∈ [½, 1), σ₁ ∈ [½, √(mn)) — shows)."""
    k = min(m, n)
    Q1, _ = np.linalg.qr(np.array(draw(st.lists(UNIT, min_size=m * m, max_size=m * m)))
                        .reshape(m, m) + 2 * np.eye(m))
    Q2, _ = np.linalg.qr(np.array(draw(st.lists(UNIT, min_size=n * n, max_size=n * n)))
                        .reshape(n, n) + 2 * np.eye(n))
    sig = np.array([1.0] + [draw(st.floats(0.2, 1.0)) for _ in range(k - 2)]
                   + [rtol * 10.0 ** draw(st.floats(-1.0, 1.0))] * (k >= 2))
    return (Q1[:, :k] * sig) @ Q2[:, :k].T


@st.composite
def rank_stats_case(draw):
    """[batch…, m, n]: generic (rank-deficient variants from ``matrix``), a rowClone 𝟙aᵀ, zero,
    or with a singular value near the rank threshold (:func:`_near_threshold`); scaled by a power
    of ten from 1e-300 to 1e300 (pyref normalizes by a power of two: the statistics must not
    depend on the scale); rtol default or 1e-3."""
    m, n = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    batch = draw(st.sampled_from([(), (), (2,)]))
    rtol = draw(st.sampled_from([None, 1e-3]))
    mats = []
    for _ in range(int(np.prod(batch, dtype=int))):
        kind = draw(st.sampled_from(["generic", "generic", "generic", "rowClone", "zero",
                                     "threshold", "threshold"]))
        X = draw(matrix(m, n))
        if kind == "rowClone":
            X = np.tile(X[0], (m, 1))
        elif kind == "zero":
            X = np.zeros((m, n))
        elif kind == "threshold":
            X = _near_threshold(draw, m, n, 64 * float(np.finfo(np.float32).eps)
                                if rtol is None else rtol)
        mats.append(X * 10.0 ** draw(st.sampled_from([0, 0, -300, -150, 150, 300])))
    return np.stack(mats).reshape(batch + (m, n)), rtol


def _rvr_bound(num, den, amax: float, m: int, n: int):
    """|r̂ − num/den| for pyref's row-variance ratio (computed on A·2^-e, max|A|2^-e = amax ∈
    [½, 1); num, den here at that scale). The deviations a_ij − ā_j (ā: a mean of m values) err
    by e_n = (γ_{m+1} + 2.01u)·amax, the a_ij − mean(A) by e_d = (γ_{N+1} + 2.01u)·amax (N = mn);
    a square moves by ≤ 2|x|e + e² ≤ 4·amax·e + e² and the means of N nonnegative squares add
    γ_{N+2}: δ_x = (4 amax e_x + e_x²)(1 + γ_{N+2}) + γ_{N+2}·x. Then |r̂ − r| ≤
    (δ_num + r δ_den)/(den − δ_den) + 2u·r, plus 8N·2^-1074/den for subnormal squares."""
    N = m * n
    g = gamma(N + 2)
    e_n = (gamma(m + 1) + 2.01 * U64) * amax
    e_d = (gamma(N + 1) + 2.01 * U64) * amax
    dn = (4 * amax * e_n + e_n ** 2) * (1 + g) + g * num
    dd = (4 * amax * e_d + e_d ** 2) * (1 + g) + g * den
    r = num / den
    if den - dd <= 0:
        return mpmath.inf
    return (dn + r * dd) / (den - dd) + 2 * U64 * r + 8 * N * ETA / den


def _rank_checks(ch: Checks, X, sr, nr, rv, rtol):
    """Sub-checks of one matrix X against the evaluator (inside the REF_DPS context)."""
    m, n = X.shape
    a = mat(X)
    s = sev.singularValues(a)
    if s[0] == 0:
        ch.exact("numerical_rank(0) = 0", int(nr != 0))
        return
    # pyref's 2^-k scaling is exact but for entries pushed below 2^-1022 (≤ 2^-1075 each, against
    # σ₁ ≥ max entry ≥ ½ after scaling): ≤ 2mn·2^-1075·σ₁ more, negligible but stated
    d = (_svd_err(m, n) + 2 * m * n * ETA) * s[0]
    if sr is not None and len(s) >= 2:
        rho = s[1] / s[0]
        ch.le("singular_ratio = σ₂/σ₁", abs(mpmath.mpf(sr) - rho),
              (d + rho * d) / (s[0] - d) + U64 * rho)
    t = rtol * s[0]
    close = any(abs(x - t) <= d * (1 + rtol) + U64 * t for x in s)
    if not close:  # decidable: no σ within the SVD error of the threshold
        ch.exact("numerical_rank = #{σ > rtol·σ₁}", int(nr != sev.numericalRank(a, rtol)))
    if rv is not None and np.any(X != X.flat[0]):
        num, den = sev.rowVarianceParts(a)
        sc = mpmath.mpf(2) ** (-2 * int(np.frexp(np.max(np.abs(X)))[1]))
        amax = float(np.max(np.abs(X)) * 2.0 ** -int(np.frexp(np.max(np.abs(X)))[1]))
        ch.le("row_variance_ratio = mean((A − 𝟙āᵀ)²)/mean((A − μ)²)",
              abs(mpmath.mpf(rv) - num / den), _rvr_bound(num * sc, den * sc, amax, m, n))


def _pyref_stats(M, rtol):
    """pyref's three statistics of M (None where pyref rightly refuses: σ₂/σ₁ needs two
    singular values and σ₁ > 0, the variance ratio a non-constant matrix)."""
    kw = {} if rtol is None else {"rtol": rtol}
    nr = pyref.analysis.numerical_rank(M, **kw)
    try:
        sr = pyref.analysis.singular_ratio(M)
    except ValueError:
        sr = None
    try:
        rv = pyref.analysis.row_variance_ratio(M)
    except ValueError:
        rv = None
    return sr, nr, rv


@prop(theorems=["PLGA.RankOne.rowClone_minor2_eq_zero", "PLGA.RankOne.rowClone_row_eq",
                "PLGA.RankOne.rowClone_exists_kernel_vector"],
      paper="Prop 3.9 / spec D (σ₂/σ₁, numerical rank and row-variance ratio of the audit)",
      strategy=rank_stats_case, backends=("float64",))
def rank_statistics_match_spec(ex, backend, dps):
    """pyref's ``singular_ratio``, ``numerical_rank`` (default rtol 64·eps_f32, and 1e-3) and
    ``row_variance_ratio`` (2-D and batched) against spec D evaluated at 80 digits
    (``spec_eval.analysis``: σ from the exact Gram matrix, the ratio of means written out), on
    generic, rowClone and zero matrices at scales 1e-300 … 1e300. A rowClone has every 2×2 minor
    0 (rowClone_minor2_eq_zero), a kernel vector, identical rows (rowClone_row_eq): σ₂ = 0, rank
    1 and ratio 0 in the evaluator, which pyref must match within its bound. pyref refuses
    (ValueError) exactly where the spec quantity is undefined: σ₂/σ₁ for σ₁ = 0 or
    min(m, n) < 2, the ratio for a constant matrix (0/0) — checked both ways.

    Bounds (float64; pyref rescales by a power of two first, exactly up to subnormal entries):
    σ by LAPACK's |σ̂_i − σ_i| ≤ p·u·σ₁, p = m·n (:func:`_svd_err`), so
    |σ̂₂/σ̂₁ − σ₂/σ₁| ≤ δ(1 + ρ)/(σ₁ − δ) + uρ; the rank is compared exactly when no σ lies
    within δ(1 + rtol) + u·t of the threshold t = rtol·σ₁ (else undecidable at float64,
    skipped); the variance ratio by :func:`_rvr_bound`. float64 only: these are float64 audit
    tools (pyref converts any input to float64 first)."""
    M, rtol = ex
    sr, nr, rv = _pyref_stats(M, rtol)
    rt = 64 * float(np.finfo(np.float32).eps) if rtol is None else rtol
    flat = M.reshape((-1,) + M.shape[-2:])
    srs, nrs, rvs = (np.atleast_1d(np.asarray(x, dtype=object)).reshape(-1)
                     if x is not None else [None] * len(flat) for x in (sr, nr, rv))
    ch = Checks()
    with mpmath.workdps(REF_DPS):
        for X, s1, n1, v1 in zip(flat, srs, nrs, rvs):
            _rank_checks(ch, X, s1, n1, v1, mpmath.mpf(rt))
        undefined_sr = min(M.shape[-2:]) < 2 or any(not np.any(X != 0) for X in flat)
        constant = any(bool(np.all(X == X.flat[0])) for X in flat)
        ch.exact("singular_ratio raises iff σ₂/σ₁ is undefined for some matrix",
                 int((sr is None) != undefined_sr))
        ch.exact("row_variance_ratio raises iff some matrix is constant",
                 int((rv is None) != constant))
    return ch.outcome()
