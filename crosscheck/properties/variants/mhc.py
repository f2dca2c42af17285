"""Cross-check properties of ``Formal/Variants/Mhc.lean``: ``mhc_doubly_stochastic_nonexpansive``,
``mhc_products_doubly_stochastic``, ``mhc_sinkhorn_column_step``, ``mhc_sinkhorn_iterates``,
``mhc_transfer_can_amplify`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import strategies as st

from pyref.backend import to_float64
from pyref.variants import mhc

from ...registry import combine, prop
from .._arith import U64, bound, conv, ctx, maxabs, mp_bound
from ._shared import SLACK, _bk, _f, arr

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Variants.Mhc.mix2_doublyStochastic":
        "fixed Rat example [[2/3,1/3],[1/3,2/3]] is doubly stochastic; not a pyref computation "
        "(Sinkhorn outputs are checked by mhc_products_doubly_stochastic / "
        "mhc_sinkhorn_column_step)",
    "PLGA.Variants.Mhc.mix_keeps_ones":
        "fixed Rat example: the 2×2 matrix maps [1,1] to itself (its row sums are 1); evaluating "
        "it would test numpy's 2×2 product, not pyref; row sums 1 of pyref's B are checked by "
        "mhc_products_doubly_stochastic",
    "PLGA.Variants.Mhc.mix_contracts_difference":
        "fixed Rat example: the 2×2 matrix scales [1,−1] by 1/3; illustration of the contraction "
        "on 𝟙^⊥, no pyref computation behind it (non-expansion of pyref's B is checked by "
        "mhc_doubly_stochastic_nonexpansive)",
}


# ============================================================================ mHC (§3)
@st.composite
def sinkhorn_inputs(draw, n_lo=1):
    n = draw(st.integers(n_lo, 6))
    Z = draw(arr((n, n), st.sampled_from([0.5, 1.0, 3.0])))
    return dict(Z=Z, iters=draw(st.sampled_from([10, 30, 80])),
                order=draw(st.sampled_from(mhc.ORDERS)))


def _sums(B):
    """(row sums, column sums) of a backend array, summed in the backend, returned as float64."""
    return to_float64(np.sum(B, axis=1)), to_float64(np.sum(B, axis=0))


@prop(theorems=["PLGA.Variants.Mhc.weighted_mean_sq_le",
                "PLGA.Variants.Mhc.doublyStochastic_normSq_le"],
      paper="mHC §3: ‖Bv‖₂ ≤ ‖v‖₂ for doubly stochastic B ≥ 0 (B from Sinkhorn)",
      strategy=lambda: st.tuples(sinkhorn_inputs(), st.integers(1, 3), st.data()))
def mhc_doubly_stochastic_nonexpansive(ex, backend, dps):
    """For pyref's Sinkhorn matrix B (nonnegative) and vectors v: ‖Bv‖² ≤ c_max r_max ‖v‖², the
    Schur bound ‖B‖₂² ≤ ‖B‖₁‖B‖_∞ with the measured maximal column/row sums of B -- for an
    exactly doubly stochastic B this is the theorem ‖Bv‖ ≤ ‖v‖. Row by row, the Cauchy–Schwarz
    step (B_i·v)² ≤ r_i Σ_j B_ij v_j² with r_i the measured row sum (for r_i = 1 the weighted
    mean inequality (Σ w_j x_j)² ≤ Σ w_j x_j²). Examples count as meeting the
    hypothesis when c_max r_max − 1 ≤ 1e-3 (B doubly stochastic up to that defect). Round-off:
    Bv and the sums have majorants B|v| and c, r (nonnegative terms); index D = 2n + 4 on
    Σ(B|v|)² + c r ‖v‖², and on (B|v|)_i² + r_i (B v²)_i for the rows."""
    sk, m, data = ex
    n = sk["Z"].shape[0]
    V = data.draw(arr((n, m)))
    B = mhc.sinkhorn(sk["Z"], sk["iters"], sk["order"], backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        (Vb,) = conv(backend, dps, V)
        rmax, cmax = np.max(np.sum(B, axis=1)), np.max(np.sum(B, axis=0))
        BV = B @ Vb
        lhs = np.sum(BV * BV, axis=0)
        rhs = cmax * rmax * np.sum(Vb * Vb, axis=0)
        viol = np.max(to_float64(lhs - rhs))
        r = np.sum(B, axis=1)
        viol_rows = np.max(to_float64(BV * BV - r[:, None] * (B @ (Vb * Vb))))
        defect = float(_f(cmax * rmax - 1))
    Bf = to_float64(B)
    T = np.sum((Bf @ np.abs(V)) ** 2, axis=0) + float(_f(cmax * rmax)) * np.sum(V * V, axis=0)
    Tr = (Bf @ np.abs(V)) ** 2 + Bf.sum(axis=1)[:, None] * (Bf @ (V * V))
    return combine([("doublyStochastic_normSq_le: ‖Bv‖² ≤ c r ‖v‖²", max(0.0, viol),
                     SLACK * bound(backend, 2 * n + 4, T)),
                    ("weighted_mean_sq_le: (B_i·v)² ≤ r_i (B v²)_i", max(0.0, viol_rows),
                     SLACK * bound(backend, 2 * n + 4, Tr))], met=defect <= 1e-3)


@st.composite
def sinkhorn_factors(draw):
    """2 or 3 Sinkhorn inputs of one size n (the first also carries test vectors V [n, 1..3])."""
    n, m = draw(st.integers(1, 6)), draw(st.integers(2, 3))
    exs = [dict(Z=draw(arr((n, n), st.sampled_from([0.5, 1.0, 3.0]))),
                iters=draw(st.sampled_from([10, 30, 80])),
                order=draw(st.sampled_from(mhc.ORDERS))) for _ in range(m)]
    exs[0]["V"] = draw(arr((n, draw(st.integers(1, 3)))))
    return exs


@prop(theorems=["PLGA.Variants.Mhc.doublyStochastic_mul",
                "PLGA.Variants.Mhc.doublyStochastic_mul_normSq_le"],
      paper="mHC §3: products of doubly stochastic matrices are doubly stochastic",
      strategy=lambda: sinkhorn_factors())
def mhc_products_doubly_stochastic(exs, backend, dps):
    """Products B₁B₂(B₃) of pyref Sinkhorn matrices are nonnegative with row and column sums 1,
    up to the factors' own defects: |P𝟙 − 𝟙| ≤ Σ_m (Π_{l<m} r_max,l) δr_m and
    |𝟙ᵀP − 𝟙ᵀ| ≤ Σ_m δc_m (Π_{l>m} c_max,l) (exact algebra for nonnegative factors with row
    sums r_l and column sums c_l; 0 for doubly stochastic factors); and the stack does not
    expand: ‖Pv‖² ≤ c_max r_max ‖v‖² with P's measured maximal column/row sums (the Schur bound
    of mhc_doubly_stochastic_nonexpansive, = ‖v‖² for exactly doubly stochastic factors). Met
    when every factor's defect is ≤ 1e-3. Round-off: nonnegative terms, majorant n-fold products
    of sums ≤ 2, index D = 3(n + 2); the norm check as in mhc_doubly_stochastic_nonexpansive
    (index 2n + 4 on Σ(P|v|)² + c r ‖v‖², P computed is a nonnegative matrix)."""
    Bs = [mhc.sinkhorn(x["Z"], x["iters"], x["order"], backend=backend, dps=dps) for x in exs]
    n = exs[0]["Z"].shape[0]
    with ctx(backend, dps):
        P = Bs[0]
        for Bm in Bs[1:]:
            P = P @ Bm
        one = conv(backend, dps, np.float64(1.0))[0][()]
        dP_r, dP_c = maxabs(np.sum(P, axis=1) - one), maxabs(np.sum(P, axis=0) - one)
        neg = float(np.sum(to_float64(P) < 0))
        dr = [maxabs(np.sum(Bm, axis=1) - one) for Bm in Bs]
        dc = [maxabs(np.sum(Bm, axis=0) - one) for Bm in Bs]
        rows = [_sums(Bm) for Bm in Bs]
        V = exs[0]["V"]
        (Vb,) = conv(backend, dps, V)
        PV = P @ Vb
        crP = np.max(np.sum(P, axis=0)) * np.max(np.sum(P, axis=1))
        viol = max(0.0,
                   float(np.max(to_float64(np.sum(PV * PV, axis=0) - crP
                                           * np.sum(Vb * Vb, axis=0)))))
        Pf, crf = to_float64(P), float(_f(crP))
    rmax = [float(np.max(r)) for r, _ in rows]
    cmax = [float(np.max(c)) for _, c in rows]
    allow_r = sum(math.prod(rmax[:m]) * dr[m] for m in range(len(Bs)))
    allow_c = sum(dc[m] * math.prod(cmax[m + 1:]) for m in range(len(Bs)))
    dev = max(0.0, dP_r - allow_r) + max(0.0, dP_c - allow_c)
    # the defects dr/dc are measured in the backend's arithmetic: their own round-off is
    # covered by the same allowance
    TV = np.sum((Pf @ np.abs(V)) ** 2, axis=0) + crf * np.sum(V * V, axis=0)
    return combine([("doublyStochastic_mul: row and column sums of P", dev,
                     SLACK * bound(backend, 3 * (n + 2), 2.0 ** len(Bs))),
                    ("doublyStochastic_mul: P ≥ 0 (exact)", neg, 0.0),
                    ("doublyStochastic_mul_normSq_le", viol,
                     SLACK * bound(backend, 2 * n + 4, TV))],
                   met=max(dr + dc) <= 1e-3)


@st.composite
def positive_matrices(draw):
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    vals = draw(st.lists(st.floats(1e-3, 1.0, width=64), min_size=n * m, max_size=n * m))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
    return np.array(vals).reshape(n, m) * scale, draw(sinkhorn_inputs())


@prop(theorems=["PLGA.Variants.Mhc.colStep_colSum", "PLGA.Variants.Mhc.colStep_colSum_of_pos",
                "PLGA.Variants.Mhc.rowStep_rowSum"],
      paper="mHC §3: after a Sinkhorn column step the column sums are exactly 1",
      strategy=positive_matrices)
def mhc_sinkhorn_column_step(ex, backend, dps):
    """pyref's ``sinkhorn_col_step`` gives column sums 1 and ``sinkhorn_row_step`` row sums 1 for a
    positive M [n, m]; a full ``sinkhorn`` run ending with a column step (row-first order) has
    column sums 1 (col-first: row sums 1). Round-off: each entry M_ij/s_j has relative error
    γ_{n+1} (positive terms), the check sum γ_n more: |Σ − 1| ≤ γ_{2n+2}."""
    M, sk = ex
    Cm = mhc.sinkhorn_col_step(M, backend=backend, dps=dps)
    Rm = mhc.sinkhorn_row_step(M, backend=backend, dps=dps)
    B = mhc.sinkhorn(sk["Z"], sk["iters"], sk["order"], backend=backend, dps=dps)
    with ctx(backend, dps):
        one = conv(backend, dps, np.float64(1.0))[0][()]
        dev_c, dev_r = maxabs(np.sum(Cm, axis=0) - one), maxabs(np.sum(Rm, axis=1) - one)
        last_axis = 0 if sk["order"] == "row-first" else 1
        dev_b = maxabs(np.sum(B, axis=last_axis) - one)
    n = max(M.shape + sk["Z"].shape)
    bnd = bound(backend, 2 * n + 2, 1.0)
    return combine([("colStep_colSum_of_pos: column sums 1", dev_c, bnd),
                    ("rowStep_rowSum: row sums 1", dev_r, bnd),
                    ("colStep_colSum: sinkhorn ending with the column step", dev_b, bnd)])


def _frac(x):
    """Exact rational value of a float64 or mpf."""
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(float(x))


def _exact_sinkhorn(M, iters, order):
    """Sinkhorn rounds in exact rational arithmetic (Fractions)."""
    M = [[Fraction(x) for x in row] for row in M]

    def rows(M):
        return [[x / sum(r) for x in r] for r in M]

    def cols(M):
        s = [sum(M[i][j] for i in range(len(M))) for j in range(len(M[0]))]
        return [[M[i][j] / s[j] for j in range(len(M[0]))] for i in range(len(M))]

    for _ in range(iters):
        M = cols(rows(M)) if order == "row-first" else rows(cols(M))
    return M


SINK_M0 = np.array([[4.0, 1.0], [1.0, 1.0]])


@st.composite
def integer_matrices(draw):
    if draw(st.sampled_from(["random", "random", "paper"])) == "paper":
        return SINK_M0.copy(), 1  # VARIANTS.md §3: M⁽⁰⁾ = [[4,1],[1,1]], one round
    n = draw(st.integers(2, 4))
    vals = draw(st.lists(st.integers(1, 9), min_size=n * n, max_size=n * n))
    return np.array(vals, dtype=np.float64).reshape(n, n), draw(st.integers(1, 3))


@prop(theorems=["PLGA.Variants.Mhc.sinkhorn_round_row_sum",
                "PLGA.Variants.Mhc.sinkhorn_orders_differ"],
      paper="mHC §3: Sinkhorn iterates; row-first and column-first orders give different finite "
            "iterates",
      strategy=integer_matrices)
def mhc_sinkhorn_iterates(ex, backend, dps):
    """pyref's ``sinkhorn_iterate`` from a positive integer M⁽⁰⁾ equals the exact rational Sinkhorn
    iterates (Fractions) for both orders, and the two orders differ (witness: met when the exact
    iterates differ by more than 1e6 × the bound; then pyref's two results must differ by more
    than twice the bound). A finite round is not doubly stochastic: for the row-first order
    (ending with a column step), when an exact row sum is farther than 1e6 × the bound from 1,
    the exact sum of pyref's entries in that row must differ from 1 by more than bound × the
    exact row sum. One third of the examples is the paper's M⁽⁰⁾ = [[4,1],[1,1]], one round:
    row 1 then sums to 82/91 (pyref's row sum within bound × 82/91 of it), and the orders differ
    (entry (1,2): 2/7 vs 5/13). Round-off: entrywise relative error ρ, after a step ≤
    (1+ρ)(1+u)/((1−ρ)(1−γ_{n−1})) − 1 (numerator ρ, the sum of nonnegative terms a weighted
    average of the ρ's plus γ_{n−1}, one division), ρ₀ = 0 (integers are exact); the deviation is
    the largest relative error, computed exactly with Fractions (so a row of nonnegative entries
    sums within bound × its exact sum)."""
    M, iters = ex
    n = M.shape[0]
    res, exact = {}, {}
    for order in mhc.ORDERS:
        res[order] = mhc.sinkhorn_iterate(M, iters, order, backend=backend, dps=dps)
        exact[order] = _exact_sinkhorn(M, iters, order)
    with ctx(backend, dps):
        # unit round-off: 2^-53, or 2^(1-prec) at the mp working precision (correct rounding)
        u = U64 if backend == "float64" else 2.0 ** (1 - mpmath.mp.prec)
    gam = (n - 1) * u / (1 - (n - 1) * u)
    rho = 0.0
    for _ in range(2 * iters):
        rho = (1 + rho) * (1 + u) / ((1 - rho) * (1 - gam)) - 1
    rel = max(abs(_frac(res[o][i, j]) / exact[o][i][j] - 1)
              for o in mhc.ORDERS for i in range(n) for j in range(n))
    bnd = SLACK * rho if backend == "float64" else max(rho, mp_bound(1.0))
    gap_exact = max(abs(exact["row-first"][i][j] - exact["col-first"][i][j]) for i in range(n)
                    for j in range(n))
    met = float(gap_exact) > 1e6 * bnd
    parts = [("sinkhorn iterates = exact rational iterates (relative error)", float(rel), bnd)]
    bq = Fraction(bnd)
    rows_exact = [sum(exact["row-first"][i]) for i in range(n)]
    rows_res = [sum(_frac(res["row-first"][i, j]) for j in range(n)) for i in range(n)]
    looks_ds = sum(1 for i in range(n) if abs(rows_exact[i] - 1) > 1e6 * bq * max(rows_exact[i], 1)
                   and not abs(rows_res[i] - 1) > bq * rows_exact[i])
    parts.append(("sinkhorn_round_row_sum: a finite round is not doubly stochastic",
                  float(looks_ds), 0.0))
    if iters == 1 and np.array_equal(M, SINK_M0):
        ref_bad = (rows_exact[0] != Fraction(82, 91) or exact["row-first"][0][1] != Fraction(2, 7)
                   or exact["col-first"][0][1] != Fraction(5, 13))
        parts += [("the exact reference reproduces the paper's values", float(ref_bad), 0.0),
                  ("pyref's row 1 sums to 82/91",
                   float(abs(rows_res[0] - Fraction(82, 91)) > bq * Fraction(82, 91)),
                   0.0)]
    if met:
        with ctx(backend, dps):
            gap = maxabs(res["row-first"] - res["col-first"])
        parts.append(("sinkhorn_orders_differ: pyref's two orders differ",
                      0.0 if gap > 2 * bnd else 1.0, 0.0))
    return combine(parts, met=met)


@st.composite
def transfer_inputs(draw):
    kind = draw(st.sampled_from(["random", "random", "paper"]))
    if kind == "paper":   # one stream, B = 1, A = 0.5, C = 1, F(u) = 4u: x ↦ 3x
        d = draw(st.integers(1, 4))
        return dict(Z=np.zeros((1, 1)), iters=1, order="row-first", X=draw(arr((1, d))),
                    A=np.array([[0.5]]),
                    C=np.array([[1.0]]), g=4.0, x=draw(arr((d,))))
    sk = draw(sinkhorn_inputs())
    n, d = sk["Z"].shape[0], draw(st.integers(1, 4))
    sk.update(X=draw(arr((n, d))), A=draw(arr((1, n), st.just(1.0))),
              C=draw(arr((n, 1), st.just(1.0))),
              g=draw(st.floats(0.5, 4.0, width=64)), x=draw(arr((d,))))
    return sk


@prop(theorems=["PLGA.Variants.Mhc.mhc_transfer_amplifies"],
      paper="mHC §3: the bound constrains B only; the transfer x ↦ Bx + C F(Ax) can amplify",
      strategy=transfer_inputs)
def mhc_transfer_can_amplify(ex, backend, dps):
    """pyref's ``mhc_transfer`` with F(u) = g·u equals (B + g C A) X (B from Sinkhorn; the paper's
    one-stream example B = 1, A = 0.5, C = 1, g = 4 gives 3X); witness: with all streams equal
    (X = 𝟙xᵀ, A = 𝟙ᵀ/n, C = 𝟙) the output is B𝟙xᵀ + g𝟙xᵀ, of Frobenius norm ≥ (1 + g − δr)‖X‖ > ‖X‖
    (δr the row-sum defect of B; met when δr ≤ 1e-3) although ‖B‖₂ ≤ 1: pyref's output must have
    ‖out‖ > (1 + g/2)‖X‖. Identity majorant B|X| + g|C||A||X|, index D = 2n + 4."""
    B = mhc.sinkhorn(ex["Z"], ex["iters"], ex["order"], backend=backend, dps=dps)
    n, d = ex["X"].shape
    b = _bk(backend, dps)
    with b.context():
        (gb,) = conv(backend, dps, np.float64(ex["g"]))
        g = gb[()]
        out = mhc.mhc_transfer(ex["X"], B, ex["A"], ex["C"], lambda u: g * u,
                               backend=backend, dps=dps)
        X, A, C = conv(backend, dps, ex["X"], ex["A"], ex["C"])
        dev = maxabs(out - (B + g * (C @ A)) @ X)
        Xw = np.ones((n, 1)) * ex["x"][None, :]
        Aw = np.full((1, n), 1.0 / n)
        outw = mhc.mhc_transfer(Xw, B, Aw, np.ones((n, 1)), lambda u: g * u,
                                backend=backend, dps=dps)
        outw_norm = float(_f(b.sqrt(np.sum(outw * outw))))
    Bf = to_float64(B)
    T = Bf @ np.abs(ex["X"]) + ex["g"] * np.abs(ex["C"]) @ np.abs(ex["A"]) @ np.abs(ex["X"])
    dr = float(np.max(np.abs(Bf.sum(axis=1) - 1)))
    met = dr <= 1e-3 and np.any(ex["x"] != 0)
    weak = met and not outw_norm > (1 + ex["g"] / 2) * float(np.linalg.norm(Xw))
    return combine([("mhc_transfer = (B + g C A) X", dev, bound(backend, 2 * n + 4, T)),
                    ("mhc_transfer_amplifies: ‖out‖ > (1 + g/2)‖X‖", float(weak), 0.0)],
                   met=bool(met))
