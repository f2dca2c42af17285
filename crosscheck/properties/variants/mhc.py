"""Cross-check properties of ``Formal/Variants/Mhc.lean``: ``mhc_doubly_stochastic_nonexpansive``,
``mhc_products_doubly_stochastic``, ``mhc_sinkhorn_column_step``, ``mhc_sinkhorn_iterates``,
``mhc_transfer_can_amplify``, the comparisons with the independent evaluator
(:mod:`crosscheck.spec_eval.variants_depth`) ``mhc_sinkhorn_matches_spec`` and
``mhc_transfer_matches_spec``, and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb
from hypothesis import strategies as st

from pyref.backend import to_float64
from pyref.variants import mhc

from ...registry import Checks, combine, prop
from ...spec_eval import variants_depth as SD
from ...spec_eval._scalar import fsum, mat
from .._arith import U64, bound, conv, ctx, maxabs, mp_bound
from ._shared import RNG, SLACK, _bk, _f, arr, fl, gap

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


def _rho(steps, n, rho0, backend):
    """Entrywise relative error after ``steps`` Sinkhorn steps on positive entries (float64):
    ρ ← (1 + ρ)(1 + u)/((1 − ρ)(1 − γ_{n−1})) − 1 (numerator ρ; the sum of n positive terms
    with relative errors ρ has relative error ≤ (1 ± ρ)(1 ± γ_{n−1}); one division), from
    ρ₀; evaluated at 40 digits (in float64, 1 + u rounds to 1 and the bound would lose the
    very roundings it counts); mp: ``mp_bound(1)``."""
    if backend != "float64":
        return mp_bound(1.0)
    with mpmath.workdps(40):
        u = mpmath.mpf(U64)
        rho, g = mpmath.mpf(rho0), (n - 1) * u / (1 - (n - 1) * u)
        for _ in range(steps):
            rho = (1 + rho) * (1 + u) / ((1 - rho) * (1 - g)) - 1
        return SLACK * float(rho)


def _frac(x):
    """Exact rational value of a float64 or mpf (arb: the ball's midpoint, an exact dyadic; the
    checks on it are then plain, non-refuted rather than certified, :mod:`crosscheck.arbcheck`)."""
    if isinstance(x, arb):
        man, exp = x.mid().man_exp()
        return Fraction(int(man)) * Fraction(2) ** int(exp)
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
    rel = max(abs(_frac(res[o][i, j]) / exact[o][i][j] - 1)
              for o in mhc.ORDERS for i in range(n) for j in range(n))
    bnd = _rho(2 * iters, n, 0.0, backend)   # mp: 1e-40 ≫ the 2·3 steps' 2^(1−prec) roundings
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


# ============================================================================ spec evaluator
def relgap(got, ref, dps=50):
    """max |got − ref|/ref for a positive evaluator value ``ref`` (∞ on a shape mismatch)."""
    with mpmath.workdps(dps):
        g = mat(got)
        if np.shape(to_float64(np.asarray(got, dtype=object))) != fl(ref).shape:
            return math.inf
        return max(abs(a - b) / b for ga, ra in zip(g, ref) for a, b in zip(ga, ra))


@st.composite
def mhc_generic(draw):
    """Generic mHC inputs: a positive M [n, m] (n, m ∈ [2, 5], entries e^{U(−2, 2)}), logits
    Z [n, n] (scale 0.5, 2 or 4), rounds r ∈ [1, 3] and an order, a signed B for the defect,
    and a transfer: X [n, d], a nonnegative (not doubly stochastic) B, A [1, n], C [n, 1] and
    a nonlinear sub-layer F(u) = (u ⊙ u) W + c with W [d, d], c [1, d]."""
    rng = draw(RNG)
    n, m, d = draw(st.integers(2, 5)), draw(st.integers(2, 5)), draw(st.integers(2, 4))
    u = rng.uniform
    perms = [rng.permutation(n) for _ in range(3)]
    Bds = sum(w * np.eye(n)[p] for w, p in zip((0.5, 0.25, 0.25), perms))   # exactly DS
    return dict(M=np.exp(u(-2, 2, (n, m))), Z=u(-1, 1, (n, n)) * draw(st.sampled_from([0.5, 2, 4])),
                r=draw(st.integers(1, 3)), order=draw(st.sampled_from(mhc.ORDERS)),
                Bsig=u(-0.2, 0.6, (n, n)), X=u(-1, 1, (n, d)) * draw(st.sampled_from([0.1, 1, 10])),
                Bt=u(0, 1, (n, n)), A=u(-1, 1, (1, n)), C=u(-1, 1, (n, 1)), W=u(-1, 1, (d, d)),
                c=u(-1, 1, (1, d)), Bds=Bds)


def _paper_m0(**kw):
    ex = dict(M=SINK_M0.copy(), Z=np.zeros((2, 2)), r=1, order="row-first",
              Bsig=np.eye(2), X=np.array([[1.0, -2.0], [0.5, 3.0]]), Bt=np.eye(2),
              A=np.array([[0.5, 0.5]]), C=np.ones((2, 1)), W=np.eye(2), c=np.zeros((1, 2)),
              Bds=np.full((2, 2), 0.5))
    ex.update(kw)
    return ex


#: special values, run before the generic draws: the paper's M⁽⁰⁾ = [[4,1],[1,1]] with one
#: round, Z = 0 (uniform), no rounds (n_iters = 0 returns M), identity mixing
MHC_EXAMPLES = (_paper_m0(), _paper_m0(r=0, order="col-first"))


@prop(theorems=["PLGA.Variants.Mhc.colStep_colSum", "PLGA.Variants.Mhc.rowStep_rowSum",
                "PLGA.Variants.Mhc.sinkhorn_round_row_sum"],
      paper="mHC §3: Sinkhorn row and column steps, rounds from exp(Z), the doubly-stochastic "
            "defect",
      strategy=mhc_generic, examples=MHC_EXAMPLES)
def mhc_sinkhorn_matches_spec(ex, backend, dps):
    """pyref's Sinkhorn functions against the evaluator (``Mhc.lean``) on generic inputs:
    ``sinkhorn_row_step`` / ``sinkhorn_col_step`` of a positive M [n, m] = ``rowStep`` /
    ``colStep``; ``sinkhorn_iterate`` (r rounds, both orders) = r rounds of ``colStep ∘
    rowStep`` (row-first, the round of ``sinkhorn_round_row_sum``) or ``rowStep ∘ colStep``;
    ``sinkhorn(Z)`` = the rounds from exp Z; ``doubly_stochastic_defect`` of a signed B = the
    largest |rowSum − 1| and |colSum − 1| (both fields). Bounds: every Sinkhorn entry is
    positive, so the comparison is relative, ρ after the steps (:func:`_rho`; ρ₀ = 0 for M,
    2u for exp Z: numpy's own accuracy tests hold float64 exp to 1 ulp); the defects:
    |Σ_j B_ij − 1| has error ≤ γ_n (Σ_j |B_ij| + 1)."""
    e = ex
    M, Z, r, order = e["M"], e["Z"], e["r"], e["order"]
    n, m = M.shape
    got = dict(row=mhc.sinkhorn_row_step(M, backend=backend, dps=dps),
               col=mhc.sinkhorn_col_step(M, backend=backend, dps=dps),
               sk=mhc.sinkhorn(Z, r, order, backend=backend, dps=dps))
    got.update({o: mhc.sinkhorn_iterate(np.exp(Z), r, o, backend=backend, dps=dps)
                for o in mhc.ORDERS})
    dr, dc = mhc.doubly_stochastic_defect(e["Bsig"], backend=backend, dps=dps)
    with mpmath.workdps(dps):
        Mm = mat(M)
        E0 = mat(np.exp(Z))                      # the float64 array pyref iterates, exactly
        ref = dict(row=SD.rowStep(Mm), col=SD.colStep(Mm), sk=SD.sinkhorn(mat(Z), r, order))
        ref.update({o: SD.sinkhornRounds(E0, r, o) for o in mhc.ORDERS})
        rr, rc = SD.dsDefect(mat(e["Bsig"]))
    N = max(n, m, Z.shape[0])
    chk = Checks()
    chk.le("sinkhorn_row_step = rowStep (relative)", relgap(got["row"], ref["row"]),
           _rho(1, N, 0.0, backend))
    chk.le("sinkhorn_col_step = colStep (relative)", relgap(got["col"], ref["col"]),
           _rho(1, N, 0.0, backend))
    for o in mhc.ORDERS:
        chk.le(f"sinkhorn_iterate ({o}) = rounds of the steps", relgap(got[o], ref[o]),
               _rho(2 * r, N, 0.0, backend))
    chk.le(f"sinkhorn(Z) ({order}) = rounds from exp Z", relgap(got["sk"], ref["sk"]),
           _rho(2 * r, N, 2 * U64, backend))
    Ta = np.abs(e["Bsig"])
    chk.le("doubly_stochastic_defect rows", gap(dr, rr),
           bound(backend, n, np.sum(Ta, axis=1) + 1))
    chk.le("doubly_stochastic_defect columns", gap(dc, rc),
           bound(backend, n, np.sum(Ta, axis=0) + 1))
    return chk.outcome()


def _F_np(W, c):
    """The sub-layer F(u) = (u ⊙ u) W + c on backend arrays [1, d] (for pyref)."""
    return lambda y: (y * y) @ W + c


def _F_list(W, c):
    """The same F on a list of length d (for the evaluator)."""
    return lambda y: [fsum(y[j] * y[j] * W[j][k] for j in range(len(y))) + c[k]
                      for k in range(len(c))]


@prop(theorems=["PLGA.Variants.Mhc.mhc_transfer_amplifies"],
      paper="mHC §3: the layer transfer X ↦ B X + C F(A X)",
      strategy=mhc_generic, examples=MHC_EXAMPLES)
def mhc_transfer_matches_spec(ex, backend, dps):
    """pyref's ``mhc_transfer`` against the evaluator's ``Mhc.transfer`` (the definition of
    ``mhc_transfer_amplifies``) on generic inputs: a nonnegative B that is not doubly stochastic
    (no ``ds_tol``), generic signed A, C, X, and a nonlinear F(u) = (u ⊙ u) W + c (so C F(AX)
    differs from F(CAX) and from every linear rearrangement); and an exactly doubly stochastic
    B (a dyadic mixture of permutations) with ``ds_tol`` given. Bound (float64): AX index n,
    u ⊙ u index 2n + 1, (u ⊙ u) W + c index 2n + d + 2, C y one product, B X index n, the sum:
    D = 2n + d + 4 on |B||X| + |C|((|A||X|)⊙(|A||X|)|W| + |c|)."""
    e = ex
    X, A, C, W, c = e["X"], e["A"], e["C"], e["W"], e["c"]
    n, d = X.shape
    with ctx(backend, dps):
        Wb, cb = conv(backend, dps, W, c)
        out = {k: mhc.mhc_transfer(X, e[k], A, C, _F_np(Wb, cb), ds_tol=tol, backend=backend,
                                   dps=dps) for k, tol in (("Bt", None), ("Bds", 1e-12))}
    with mpmath.workdps(dps):
        Fl = _F_list(mat(W), mat(c)[0])
        Av, Cv = mat(A)[0], [row[0] for row in mat(C)]
        ref = {k: SD.transfer(mat(e[k]), Av, Cv, Fl, mat(X)) for k in ("Bt", "Bds")}
    AX = np.abs(A) @ np.abs(X)
    Ty = np.abs(C) @ ((AX * AX) @ np.abs(W) + np.abs(c))
    chk = Checks()
    for k, lab in (("Bt", "nonnegative B"), ("Bds", "doubly stochastic B, ds_tol")):
        chk.le(f"mhc_transfer = transfer ({lab})", gap(out[k], ref[k]),
               bound(backend, 2 * n + d + 4, np.abs(e[k]) @ np.abs(X) + Ty))
    return chk.outcome()
