"""Cross-check properties of ``Formal/Attention/Softmax.lean``:
``masked_softmax_is_a_distribution``, ``softmax_shift_invariant``, ``softmax_equal_iff_shift``,
``causal_mask_weights``, ``masked_softmax_matches_definition``, ``attention_average_below_max``
and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, Outcome, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import eye, mat
from ...strategies import matrix, random_mask
from .._arith import bound, conv, ctx, maxabs
from ..spec._shared import anchor
from ._shared import MODEST, score_rows

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.maskedSoftmax_of_none":
        "no pyref counterpart: pyref's exact masked softmax rejects a fully masked row "
        "(ValueError) and the authors' additive −1e9 mask turns it into a common shift (softmax of "
        "the unmasked row), not the Lean 0 row",
}


@prop(theorems=["PLGA.Attention.maskedSoftmax_sum_one", "PLGA.Attention.maskedSoftmax_pos",
                "PLGA.Attention.maskedSoftmax_nonneg", "PLGA.Attention.maskedSoftmax_eq_zero",
                "PLGA.Attention.maskedDenom_pos", "PLGA.Attention.maskedDenom_nonneg",
                "PLGA.Attention.attnWeights_masked", "PLGA.Attention.attnWeights_row_sum_one",
                "PLGA.Attention.softmax_pos", "PLGA.Attention.softmax_sum_one"],
      paper="Prop 5.2 (masked softmax: positive on the allowed set, 0 off it, rows sum to 1)",
      strategy=lambda: score_rows(scales=(20.0, 1000.0)))
def masked_softmax_is_a_distribution(ex, backend, dps):
    """pyref's exact masked softmax: > 0 exactly on the allowed keys, = 0 elsewhere, sum 1. Scores
    up to ±1000, where e^x overflows float64 (beyond 709.78) unless the row maximum is subtracted.

    float64: the weights are e_i/Σe with e_i = exp(x_i − max) ≤ 1 and the maximum's e = 1 exactly,
    so the sum carries n + 4 roundings of weights ≤ 1 whatever the scores' size (bound
    ``fp_bound(n+4, 1)``; the rounding of x_i − max changes e_i, not Σ e_i/Σe); an allowed weight
    must be > 0 when x_i ≥ max − 700 (e_i ≥ e^−700 ≈ 1e−304 above the smallest normal 2.2e−308, the
    subtraction's error ≤ 2000u is negligible, and the division by Σe ≤ 12 stays above 0); further
    below the maximum float64 underflows to 0 (mp, exact arithmetic, keeps every allowed weight
    positive). mp: the weights also equal the Lean ``maskedSoftmax`` evaluated independently
    (formula anchor, scale 1 + 2max|x|: the max shift's rounding is relative to the scores)."""
    x, keep, _ = ex
    w = pyref.plga.masked_softmax(x[None], mask=(~keep[None]).astype(float), mode="exact",
                                  backend=backend, dps=dps)[0]
    top = max(xi for xi, k in zip(x, keep) if k)
    must = keep & ((backend == "mp") | (x >= top - 700))
    bad = sum(1 for wi, k, m in zip(w, keep, must) if (m and not wi > 0) or (not k and wi != 0))
    ch = Checks()
    ch.exact("weights > 0 exactly on the allowed keys, = 0 elsewhere", float(bad))
    with ctx(backend, dps):
        ch.le("weights sum to 1", maxabs(np.sum(w) - 1), bound(backend, len(x) + 4, 1.0))
    anchor(ch, "masked softmax", backend, dps, w,
           lambda: ev.maskedSoftmax(list(keep), mat(x)), 1 + 2 * np.max(np.abs(x)))
    return ch.outcome()


@prop(theorems=["PLGA.Attention.maskedSoftmax_shift", "PLGA.Attention.softmax_shift",
                "PLGA.Attention.maskedSoftmax_congr"],
      paper="Prop 5.2(iii) (shift invariance)", strategy=score_rows)
def softmax_shift_invariant(ex, backend, dps):
    """softmax_M(x + c·1) = softmax_M(x) for a common shift c."""
    x, keep, c = ex
    m = (~keep[None]).astype(float)
    with ctx(backend, dps):
        xb, cb = conv(backend, dps, x, np.array(c))
        xs = xb + cb                                  # the shift in the backend's arithmetic
    w1 = pyref.plga.masked_softmax(xb[None], mask=m, mode="exact", backend=backend, dps=dps)
    w2 = pyref.plga.masked_softmax(xs[None], mask=m, mode="exact", backend=backend, dps=dps)
    ch = Checks()
    with ctx(backend, dps):
        # float64: x + c rounds each entry (|δ| ≤ u·|x + c|); softmax weights move by ≤ 2·max|δ|
        T = 1 + np.max(np.abs(x)) + abs(c)
        ch.le("softmax_M(x + c) = softmax_M(x)", maxabs(w1 - w2), bound(backend, len(x) + 8, T))
    anchor(ch, "shifted masked softmax", backend, dps, w2[0],
           lambda: ev.maskedSoftmax(list(keep), mat(x)), 1 + 2 * T)
    return ch.outcome()


@prop(theorems=["PLGA.Attention.maskedSoftmax_eq_iff_shift", "PLGA.Attention.softmax_eq_iff_shift",
                "PLGA.Attention.attnWeights_eq_iff_rowShift"],
      paper="Prop 5.2(iii) (equal rows iff a common shift on the allowed set)",
      strategy=lambda: st.tuples(score_rows(), st.integers(0, 11),
                                 st.sampled_from([1e-3, 0.5, 3.0])),
      backends=("mp",))
def softmax_equal_iff_shift(ex, backend, dps):
    """Converse direction, at 50 digits: perturbing one allowed score (not a common shift)
    changes the masked softmax row; a common shift does not. (mp only: the converse is about
    exact equality, which float64 cannot decide for small perturbations.)"""
    (x, keep, c), k, delta = ex
    allowed = np.flatnonzero(keep)
    m = (~keep[None]).astype(float)
    y = x.copy()
    y[allowed[k % len(allowed)]] += delta
    w_x = pyref.plga.masked_softmax(x[None], mask=m, mode="exact", backend=backend, dps=dps)
    w_y = pyref.plga.masked_softmax(y[None], mask=m, mode="exact", backend=backend, dps=dps)
    with ctx(backend, dps):
        xb, cb = conv(backend, dps, x, np.array(c))
        xs = xb + cb
    w_s = pyref.plga.masked_softmax(xs[None], mask=m, mode="exact", backend=backend, dps=dps)
    with ctx(backend, dps):
        diff = maxabs(w_x - w_y)
        same = maxabs(w_x - w_s)
    ch = Checks()
    ch.le("a common shift gives the same row", same, 1e-40)
    # the perturbed row must differ by far more than the 50-digit round-off
    if len(allowed) > 1:
        ch.exact("a perturbation of one allowed score changes the row",
                 0.0 if diff > 1e-30 else 1.0)
    anchor(ch, "masked softmax of the perturbed row", backend, dps, w_y[0],
           lambda: ev.maskedSoftmax(list(keep), mat(y)), 1 + 2 * np.max(np.abs(y)))
    # a single allowed key: every perturbation is a common shift (hypothesis not met)
    return ch.outcome(met=len(allowed) > 1)


@st.composite
def token_batches(draw):
    S = draw(st.integers(1, 8))
    toks = draw(st.lists(st.integers(0, 9), min_size=S, max_size=S))
    return np.array([toks])


@prop(theorems=["PLGA.Attention.attnWeights_masked", "PLGA.Attention.maskedSoftmax_pos"],
      paper="causal/pad mask (masked keys get weight exactly 0, allowed keys > 0)",
      strategy=lambda: st.tuples(token_batches(), matrix(8, 8, structure=False)))
def causal_mask_weights(ex, backend, dps):
    """pyref's training mask (causal + pad) then softmax: future and padded keys get weight
    exactly 0, every other key a positive weight. mp uses the exact masked softmax (the Lean
    one); float64 uses the authors' additive −1e9 mask, where exp underflows to exactly 0."""
    toks, E = ex
    S = toks.shape[1]
    E = E[:S, :S]
    M = pyref.plga.causal_pad_mask(toks)[0, 0]                    # [S, S], 1 = masked
    allowed = np.array([[p <= t and toks[0, p] != 0 for p in range(S)] for t in range(S)])
    rows = allowed.any(axis=1)
    if not rows.any():
        return Outcome(0.0, 0.0, met=False)
    mode = "exact" if backend in ("mp", "arb") else "additive"
    w = pyref.plga.masked_softmax(E[rows], mask=M[rows], mode=mode, backend=backend, dps=dps)
    bad = 0
    for wi, ai, ei in zip(w, allowed[rows], E[rows]):
        top = max(e for e, a in zip(ei, ai) if a)
        for v, a, e in zip(wi, ai, ei):
            # positivity of allowed weights is exact arithmetic; float64 exp underflows to 0
            # below e^-745, so only allowed keys within 700 of the row maximum must be > 0
            must_be_pos = a and (backend in ("mp", "arb") or top - e < 700)
            bad += int((must_be_pos and not v > 0) or (not a and v != 0))
    ch = Checks()
    ch.exact("masked keys weight 0, allowed keys > 0", float(bad))
    anchor(ch, "masked softmax of the training mask", backend, dps, w,
           lambda: [ev.maskedSoftmax(list(a), r) for a, r in zip(allowed[rows], mat(E[rows]))],
           1 + 2 * np.max(np.abs(E)))
    return ch.outcome()


# ============================================================================ softmax facts
def score_row():
    """(scores, allowed-key mask) rows: ``attention.score_rows`` without its shift."""
    return score_rows().map(lambda ex: ex[:2])


@prop(theorems=["PLGA.Attention.maskedSoftmax_eq_mul_inv"],
      paper="Prop 5.2 (the masked softmax weight is exp(x_i)·Z⁻¹ on allowed keys, 0 elsewhere)",
      strategy=score_row)
def masked_softmax_matches_definition(ex, backend, dps):
    """pyref's exact masked softmax (max-subtracted, e/Σe) equals the Lean formula evaluated
    literally in the backend: (if allowed then exp(x_i) else 0)·(Σ_allowed exp(x_j))⁻¹ (no shift).
    This pins pyref's softmax to the definition (the other softmax properties check consequences).

    float64 bound: pyref rounds x − max (abs. error u·|x − max| ≤ 2u·max|x|, a relative error of the
    weight), exp (≤ 2u), the sum (γ_n) and the division; the reference rounds exp, sum, inverse and
    product; weights are ≤ 1, so |Δ| ≤ 2γ_{n+5}(1 + 2·max|x|) = ``fp_bound(n+5, 1 + 2 max|x|)``.
    Masked entries are exactly 0 on both sides."""
    x, keep = ex
    m = (~keep[None]).astype(float)
    w = pyref.plga.masked_softmax(x[None], mask=m, mode="exact", backend=backend, dps=dps)[0]
    b = pyref.get_backend(backend, dps)
    with b.context():
        xb = b.asarray(x)
        num = np.where(keep, b.exp(np.where(keep, xb, b.const(0))), b.const(0))
        ref = num * (b.const(1) / np.sum(num))
        dev = maxabs(w - ref) + float(sum(1 for wi, k in zip(w, keep) if not k and wi != 0))
    ch = Checks()
    ch.le("pyref = the Lean formula in the backend", dev,
          bound(backend, len(x) + 5, 1 + 2 * np.max(np.abs(x))))
    anchor(ch, "masked softmax", backend, dps, w, lambda: ev.maskedSoftmax(list(keep), mat(x)),
           1 + 2 * np.max(np.abs(x)))
    return ch.outcome()


@st.composite
def avg_inputs(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S, T, dv = draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 4))
    Q = draw(matrix(S, dk, magnitude=MODEST, structure=False))
    K = draw(matrix(T, dk, magnitude=MODEST))
    V = draw(matrix(T, dv, magnitude=st.sampled_from([1.0, 1e-3, 1e3])))
    G = draw(st.one_of(st.none(), matrix(dk, dk, magnitude=MODEST, structure=False)))
    return Q, K, V, G, random_mask(draw, S, T)


@prop(theorems=["PLGA.Attention.maskedSoftmax_avg_le", "PLGA.Attention.maskedSoftmax_avg_ge",
                "PLGA.Attention.softmax_avg_le", "PLGA.Attention.softmax_avg_ge"],
      paper="Prop 5.2 / Prop 3.12(ii) / authors' softmax_avg_le (an attention output lies between "
            "the smallest and the largest allowed value: the convex-hull bound)",
      strategy=avg_inputs)
def attention_average_below_max(ex, backend, dps):
    """Every entry of pyref's per-head attention output softmax_M(Q̂GK̂ᵀ/√d_k) V is at most the
    largest and at least the smallest value V[p, j] over the keys p its row may attend (the
    statements with v = V[:, j] and M, m those extrema; rows with every key allowed are the
    unmasked ``softmax_avg_le``/``softmax_avg_ge``). Magnitudes keep |scores| ≤ 10·80·10·√8 < 3e4,
    so the −1e9 mask underflows to weight 0 in float64 and to < e^{−9e8} at 50 digits: the ideal
    mask of the Lean statement.

    float64 bound (violations max(0, O − M) and max(0, m − O)): Σŵ_i v_i with ŵ ≥ 0 and v_i ≤ M on
    allowed keys is ≤ M·Σŵ_i ≤ M + γ_{T+2}|M| (normalization round-off), plus γ_T·Σŵ|v| for the
    sum: ≤ 2γ_{T+3}·max|V| = ``fp_bound(T+3, max|V|)``; the lower side is the mirror image."""
    Q, K, V, G, mask = ex
    out, _ = pyref.plga.plga_attention(Q, K, V, G, mask=mask, backend=backend, dps=dps)
    viol, viol_lo = 0.0, 0.0
    with ctx(backend, dps):
        for t in range(Q.shape[0]):
            # largest and smallest allowed value per column
            Mx = conv(backend, dps, V[mask[t] == 0].max(axis=0))[0]
            Mn = conv(backend, dps, V[mask[t] == 0].min(axis=0))[0]
            # differences taken in the backend
            viol = max(viol, float(np.max(to_float64(out[t] - Mx))))
            viol_lo = max(viol_lo, float(np.max(to_float64(Mn - out[t]))))
    ch = Checks()
    ch.le("output ≤ largest allowed value", viol, bound(backend, K.shape[0] + 3, np.max(np.abs(V))))
    ch.le("output ≥ smallest allowed value", viol_lo,
          bound(backend, K.shape[0] + 3, np.max(np.abs(V))))
    s = np.sqrt(Q.shape[1])
    anchor(ch, "per-head attention output", backend, dps, out, lambda: ev.plgaAttention(
        [[m == 0 for m in r] for r in mask], mpmath.sqrt(Q.shape[1]), mat(Q),
        eye(Q.shape[1]) if G is None else mat(G), mat(K), mat(V), True),
        np.max(np.abs(V)) * (1 + 2 * np.max(np.abs(Q) @ np.abs(np.eye(Q.shape[1]) if G is None
                                                               else G) @ np.abs(K).T) / s))
    return ch.outcome()
