"""Per-head attention of ``pyref.plga`` against the independent evaluator
(:mod:`crosscheck.spec_eval.model`): ``scores_and_masks_match_spec``,
``softmax_matches_spec``, ``head_attention_matches_spec``.

Scores, the pad-causal mask, the softmax in its two modes (the Lean ideal ``maskedSoftmax`` and
the authors' additive ``-1e9`` mask) and the per-head attention functions (PLGA with an operator,
SDPA, the constant-operator ablation) on generic Q̂, K̂, V and operators G. Where a Lean theorem
equates two attention forms, pyref computes one and the evaluator the other. Conventions and
tolerances: :mod:`crosscheck.properties.spec`, :mod:`._shared`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import eye, mat
from ...strategies import random_mask
from .._arith import bound
from ._shared import MAG, SEED, cmp, deviation, ev_ctx, exact_count, gen

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}


@st.composite
def head_case(draw):
    """(Q̂ [S, d_k], K̂ [T, d_k], V [T, d_v], G [d_k, d_k], 0/1 mask [S, T] keeping one key per
    row, tokens [1, S] with pads): generic entries from a drawn seed and magnitude."""
    dk, S, T, dv = (draw(st.sampled_from([2, 4, 6])), draw(st.integers(1, 6)),
                    draw(st.integers(1, 6)), draw(st.integers(1, 4)))
    rng = np.random.default_rng(draw(SEED))
    mag = draw(MAG)
    Q, K, V = gen(rng, (S, dk)) * mag, gen(rng, (T, dk)) * mag, gen(rng, (T, dv))
    G = gen(rng, (dk, dk))
    toks = [int(t) for t in rng.integers(0, 4, S)]
    return Q, K, V, G, random_mask(draw, S, T), toks


def _scores_bound_T(Q, G, K):
    """max of |Q̂||G||K̂|ᵀ/√d_k (G None: |Q̂||K̂|ᵀ/√d_k), the scale of the score bound."""
    L = np.abs(Q) if G is None else np.abs(Q) @ np.abs(G)
    return float(np.max(L @ np.abs(K).T)) / np.sqrt(Q.shape[1])


@prop(theorems=["PLGA.Attention.scores_one_eq_sdpaScores",
                "PLGA.Attention.plgaAttention_eq_sdpaAttention_mul"],
      paper="spec A.4 step 9 (E = (Q̂ G K̂ᵀ)/√d_k; the pad-causal training mask)",
      strategy=head_case, cost=2)
def scores_and_masks_match_spec(ex, backend, dps):
    """``attention_scores(Q̂, K̂, G)`` = Lean ``scores √d_k Q̂ G K̂`` and = ``sdpaScores √d_k (Q̂G)
    K̂`` (the score form of ``plgaAttention_eq_sdpaAttention_mul``); ``attention_scores(Q̂, K̂)``
    (G = None, pyref's SDPA path) = ``scores √d_k Q̂ I K̂`` (``scores_one_eq_sdpaScores``, pyref
    computing the right side, the evaluator the left); ``causal_pad_mask(tokens)`` = 1 −
    ``padCausalMask`` (pad id 0) exactly.

    float64 bound: the two products and the division round ≤ 2d_k + 2 times on terms bounded by
    |Q̂||G||K̂|ᵀ/√d_k (√d_k within u): ``fp_bound(2d_k+2, ·)``. mp: 1e-40 times that scale."""
    Q, K, V, G, mask, toks = ex
    dk = Q.shape[1]
    E = pyref.plga.attention_scores(Q, K, G, backend=backend, dps=dps)
    E1 = pyref.plga.attention_scores(Q, K, backend=backend, dps=dps)
    M = pyref.plga.causal_pad_mask(np.array([toks]))
    ch = Checks()
    with ev_ctx(dps):
        s = mpmath.sqrt(dk)
        Ql, Kl, Gl = mat(Q), mat(K), mat(G)
        T, T1 = _scores_bound_T(Q, G, K), _scores_bound_T(Q, None, K)
        cmp(ch, "attention_scores = scores", E, ev.scores(s, Ql, Gl, Kl), backend, 2 * dk + 2, T)
        cmp(ch, "attention_scores = sdpaScores (Q̂G)", E,
            ev.sdpaScores(s, ev.matmul(Ql, Gl), Kl), backend, 2 * dk + 2, T)
        cmp(ch, "attention_scores(G = None) = scores with G = I", E1,
            ev.scores(s, Ql, eye(dk), Kl), backend, dk + 1, T1)
    allowed = ev.padCausalMask([t == 0 for t in toks])
    ch.exact("causal_pad_mask = 1 − padCausalMask",
             exact_count(M[0, 0], [[0.0 if a else 1.0 for a in r] for r in allowed]))
    return ch.outcome()


@st.composite
def softmax_case(draw):
    n, rows = draw(st.integers(1, 8)), draw(st.integers(1, 4))
    rng = np.random.default_rng(draw(SEED))
    x = gen(rng, (rows, n), -20, 20)
    keep = rng.random((rows, n)) < 0.6
    keep[np.arange(rows), rng.integers(0, n, rows)] = True
    full = draw(st.booleans())                  # the additive mode also on fully masked rows
    return x, keep, full


@prop(theorems=["PLGA.Attention.maskedSoftmax_eq_mul_inv", "PLGA.Attention.maskedSoftmax_eq_zero",
                "PLGA.Attention.attnWeights_masked"],
      paper="Prop 5.2 (the ideal masked softmax), spec A.4 step 9 / G.10 (the additive −1e9 mask)",
      strategy=softmax_case, cost=2)
def softmax_matches_spec(ex, backend, dps):
    """``softmax(x)`` = Lean ``softmax``; ``masked_softmax(x, M, mode="exact")`` = Lean
    ``maskedSoftmax`` (exp(x_i)/Σ_allowed exp(x_j), no max shift; masked entries exactly 0);
    ``masked_softmax(x, M, mode="additive")`` = the plain softmax of x + M·(−1e9) (the authors'
    mask, evaluated literally: masked weights e^{−10⁹+O(1)}); on request a fully masked row, which
    the additive mask turns into the softmax of the shifted row.

    float64 bound (weights ≤ 1): pyref rounds x − max (relative weight error ≤ 2u·max|x|), exp
    (8u), the sum (γ_n) and the division, so |Δ| ≤ ``fp_bound(n+6, 1 + 2max|x|)``; with the
    additive mask a fully masked row's scores x − 10⁹ round to within u·10⁹: add 2·10⁹ to the
    scale. mp (50 digits): x − 10⁹ rounds to within 10⁹·10⁻⁴⁹ = 10⁻⁴⁰, so a fully masked row's
    weights move by ≤ 4·10⁻⁴⁰: scale 10 there, else 1 + 2max|x|."""
    x, keep, full = ex
    rows, n = x.shape
    M = (~keep).astype(float)
    if full:
        M[0] = 1.0
    w0 = pyref.plga.softmax(x, backend=backend, dps=dps)
    we = pyref.plga.masked_softmax(x, mask=(~keep).astype(float), mode="exact", backend=backend,
                                   dps=dps)
    wa = pyref.plga.masked_softmax(x, mask=M, mode="additive", backend=backend, dps=dps)
    T = 1 + 2 * float(np.max(np.abs(x)))
    ch = Checks()
    with ev_ctx(dps):
        xl = mat(x)
        cmp(ch, "softmax = Lean softmax", w0, [ev.softmax(r) for r in xl], backend, n + 6, T)
        cmp(ch, "masked_softmax(exact) = maskedSoftmax", we,
            [ev.maskedSoftmax(list(k), r) for k, r in zip(keep, xl)], backend, n + 6, T)
        zero = sum(1 for wr, kr in zip(we, keep) for v, k in zip(wr, kr) if not k and v != 0)
        ch.exact("masked weights are exactly 0 (maskedSoftmax_eq_zero)", float(zero))
        Ta = T + (2e9 if backend == "float64" else 10.0) * float(full)
        ref = [ev.additiveSoftmax([m == 0 for m in mr], r) for mr, r in zip(M, xl)]
        ch.le("masked_softmax(additive) = softmax(x + M·(−1e9))", deviation(wa, ref),
              bound(backend, n + 6, Ta))
    return ch.outcome()


def _attn_T(Q, G, K, V):
    """Scale of the output bound: max|V|·(1 + 2·S_mag), S_mag the score scale."""
    return float(np.max(np.abs(V))) * (1 + 2 * _scores_bound_T(Q, G, K))


@prop(theorems=["PLGA.Attention.plgaAttention_eq_sdpaAttention_mul",
                "PLGA.Attention.plgaAttention_one_eq_sdpaAttention",
                "PLGA.Attention.attnWeights_masked"],
      paper="spec A.4 steps 9–10 (softmax(E + M·(−1e9)) V per head; SDPA; the v510G ablation)",
      strategy=head_case, cost=2)
def head_attention_matches_spec(ex, backend, dps):
    """On generic Q̂, K̂, V, G and a 0/1 mask (every row keeps a key), with the model's additive
    mask semantics: ``plga_attention(Q̂, K̂, V, G)`` = Lean ``sdpaAttention`` on the queries Q̂G
    (``plgaAttention_eq_sdpaAttention_mul``: pyref the left side, the evaluator the right), its
    weights = ``attnWeights`` of ``scores``; ``sdpa_attention`` = ``plgaAttention`` with G = I
    (``plgaAttention_one_eq_sdpaAttention``, pyref the right side);
    ``constant_operator_attention`` = ``plgaAttention`` with G.

    float64 bound: scores within γ_{2d_k+2}·S_mag (S_mag = max |Q̂||G||K̂|ᵀ/√d_k); the softmax
    moves each weight by ≤ w·(2·Δscore + (T+6)u) (its Lipschitz bound and rounding), the product
    with V adds γ_T Σw|v|: ``fp_bound(2d_k+T+10, max|V|(1 + 2S_mag))``. mp: 1e-40 times that."""
    Q, K, V, G, mask, _ = ex
    dk, T = Q.shape[1], K.shape[0]
    k = 2 * dk + T + 10
    o, w = pyref.plga.plga_attention(Q, K, V, G, mask=mask, backend=backend, dps=dps)
    os_, ws = pyref.plga.sdpa_attention(Q, K, V, mask=mask, backend=backend, dps=dps)
    oc, _ = pyref.plga.constant_operator_attention(Q, K, V, G, mask=mask, backend=backend,
                                                   dps=dps)
    ch = Checks()
    with ev_ctx(dps):
        s = mpmath.sqrt(dk)
        Ql, Kl, Vl, Gl = mat(Q), mat(K), mat(V), mat(G)
        Ma = [[m == 0 for m in r] for r in mask]
        TG, TI = _attn_T(Q, G, K, V), _attn_T(Q, None, K, V)
        cmp(ch, "plga_attention = sdpaAttention (Q̂G)", o,
            ev.sdpaAttention(Ma, s, ev.matmul(Ql, Gl), Kl, Vl, True), backend, k, TG)
        cmp(ch, "plga_attention weights = attnWeights scores", w,
            ev.attnWeights(Ma, ev.scores(s, Ql, Gl, Kl), True), backend, k,
            1 + 2 * _scores_bound_T(Q, G, K))
        cmp(ch, "sdpa_attention = plgaAttention (G = I)", os_,
            ev.plgaAttention(Ma, s, Ql, eye(dk), Kl, Vl, True), backend, k, TI)
        cmp(ch, "sdpa_attention weights = attnWeights sdpaScores", ws,
            ev.attnWeights(Ma, ev.sdpaScores(s, Ql, Kl), True), backend, k,
            1 + 2 * _scores_bound_T(Q, None, K))
        cmp(ch, "constant_operator_attention = plgaAttention", oc,
            ev.plgaAttention(Ma, s, Ql, Gl, Kl, Vl, True), backend, k, TG)
    return ch.outcome()
