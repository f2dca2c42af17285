"""Properties for ``Formal/Attention`` (SDPA inclusion, softmax facts, masks, G-cache
exactness, absorption), evaluated on ``pyref.plga`` and ``pyref``'s models.

The Lean statements use the *ideal* masked softmax (masked weights exactly 0); pyref
implements both the authors' additive ``-1e9`` mask and the exact one
(``masked_softmax(mode="exact")``). Properties about the ideal softmax use the exact mode;
the causal-mask property also checks the additive mode in float64, where
``exp(-1e9)`` underflows to exactly 0 (spec G.10)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ..registry import Outcome, prop
from ..strategies import UNIT, matrix, qkv
from ._util import bound, conv, ctx, maxabs

NS = "PLGA.Attention."


def _T(Q, K, V):
    """|Q||K|ᵀ|V| bound for attention outputs: weights are in [0, 1] and sum to 1."""
    return np.max(np.abs(V)) * (1 + np.max(np.abs(Q)) * np.max(np.abs(K)) * Q.shape[1])


@prop(theorems=[NS + "plgaAttention_one_eq_sdpaAttention", NS + "scores_one_eq_sdpaScores"],
      paper="SDPA inclusion (PLGA with G = I is SDPA, at the output, every mask)", strategy=qkv)
def sdpa_inclusion_at_identity(ex, backend, dps):
    """pyref's PLGA attention with G = I equals pyref's separate SDPA code path
    (outputs and weights), for the drawn mask."""
    Q, K, V, mask = ex
    I = np.eye(Q.shape[1])
    o1, w1 = pyref.plga.plga_attention(Q, K, V, I, mask=mask, backend=backend, dps=dps)
    o2, w2 = pyref.plga.sdpa_attention(Q, K, V, mask=mask, backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = maxabs(o1 - o2) + maxabs(w1 - w2)
    # float64: Q·I is exact, then both paths form the same products; scores agree to
    # 2γ·|Q||K|·dk, weights move by at most twice the score error, outputs by that times |V|
    k = 4 * Q.shape[1] + K.shape[0] + 8
    S_mag = 1 + np.max(np.abs(Q)) * np.max(np.abs(K)) * Q.shape[1]
    return Outcome(dev, bound(backend, k, _T(Q, K, V)) + bound(backend, k, S_mag))


@prop(theorems=[NS + "plgaAttention_smul_one_eq_sdpaAttention", NS + "scores_smul_one_eq_sdpaScores",
                NS + "plgaAttention_eq_sdpaAttention_mul"],
      paper="SDPA inclusion with temperature (G = c·I)",
      strategy=lambda: st.tuples(qkv(), st.sampled_from([0.5, 2.0, -1.0, 3.0])))
def sdpa_inclusion_scalar_operator(ex, backend, dps):
    """PLGA attention with G = c·I equals SDPA on the queries scaled by c (temperature 1/c)."""
    (Q, K, V, mask), c = ex
    with ctx(backend, dps):
        Qb, cI = conv(backend, dps, Q, c * np.eye(Q.shape[1]))   # c·I is exact in float64
        Qc = Qb * cI[0, 0]                                          # c·Q in the backend's arithmetic
    o1, _ = pyref.plga.plga_attention(Qb, K, V, cI, mask=mask, backend=backend, dps=dps)
    o2, _ = pyref.plga.sdpa_attention(Qc, K, V, mask=mask, backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = maxabs(o1 - o2)
    return Outcome(dev, bound(backend, 4 * Q.shape[1] + K.shape[0] + 8, abs(c) * _T(Q, K, V)))


@st.composite
def score_rows(draw):
    n = draw(st.integers(1, 12))
    x = np.array(draw(st.lists(UNIT.map(lambda v: 20 * v), min_size=n, max_size=n)))
    keep = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    keep[draw(st.integers(0, n - 1))] = True
    c = draw(st.sampled_from([0.0, 1.0, -7.5, 100.0]))
    return x, keep, c


@prop(theorems=[NS + "maskedSoftmax_sum_one", NS + "maskedSoftmax_pos", NS + "maskedSoftmax_nonneg",
                NS + "maskedSoftmax_eq_zero", NS + "maskedDenom_pos", NS + "maskedDenom_nonneg",
                NS + "attnWeights_masked", NS + "attnWeights_row_sum_one",
                NS + "softmax_pos", NS + "softmax_sum_one"],
      paper="Prop 5.2 (masked softmax: positive on the allowed set, 0 off it, rows sum to 1)",
      strategy=score_rows)
def masked_softmax_is_a_distribution(ex, backend, dps):
    """pyref's exact masked softmax: > 0 exactly on the allowed keys, = 0 elsewhere, sum 1."""
    x, keep, _ = ex
    w = pyref.plga.masked_softmax(x[None], mask=(~keep[None]).astype(float), mode="exact",
                                  backend=backend, dps=dps)[0]
    bad = sum(1 for wi, k in zip(w, keep) if (k and not wi > 0) or (not k and wi != 0))
    with ctx(backend, dps):
        dev = maxabs(np.sum(w) - 1) + bad
    return Outcome(dev, bound(backend, len(x) + 4, 1.0))


@prop(theorems=[NS + "maskedSoftmax_shift", NS + "softmax_shift", NS + "maskedSoftmax_congr"],
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
    with ctx(backend, dps):
        dev = maxabs(w1 - w2)
    # float64: x + c rounds each entry (|δ| ≤ u·|x + c|); softmax weights move by ≤ 2·max|δ|
    T = 1 + np.max(np.abs(x)) + abs(c)
    return Outcome(dev, bound(backend, len(x) + 8, T))


@prop(theorems=[NS + "maskedSoftmax_eq_iff_shift", NS + "softmax_eq_iff_shift", NS + "attnWeights_eq_iff_rowShift"],
      paper="Prop 5.2(iii) (equal rows iff a common shift on the allowed set)",
      strategy=lambda: st.tuples(score_rows(), st.integers(0, 11), st.sampled_from([1e-3, 0.5, 3.0])),
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
    if len(allowed) == 1:  # a single allowed key: every perturbation is a common shift
        return Outcome(diff + same, 1e-40, met=False)
    # the perturbed row must differ by far more than the 50-digit round-off
    return Outcome(same + (0.0 if diff > 1e-30 else 1.0), 1e-40)


@st.composite
def token_batches(draw):
    S = draw(st.integers(1, 8))
    toks = draw(st.lists(st.integers(0, 9), min_size=S, max_size=S))
    return np.array([toks])


@prop(theorems=[NS + "attnWeights_masked", NS + "maskedSoftmax_pos"],
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
    mode = "exact" if backend == "mp" else "additive"
    w = pyref.plga.masked_softmax(E[rows], mask=M[rows], mode=mode, backend=backend, dps=dps)
    bad = 0
    for wi, ai, ei in zip(w, allowed[rows], E[rows]):
        top = max(e for e, a in zip(ei, ai) if a)
        for v, a, e in zip(wi, ai, ei):
            # positivity of allowed weights is exact arithmetic; float64 exp underflows to 0
            # below e^-745, so only allowed keys within 700 of the row maximum must be > 0
            must_be_pos = a and (backend == "mp" or top - e < 700)
            bad += int((must_be_pos and not v > 0) or (not a and v != 0))
    return Outcome(float(bad), 0.0)


@st.composite
def small_model(draw):
    cfg = pyref.PLDRConfig(num_layers=1, d_model=4 * draw(st.integers(1, 2)), num_heads=2, dff=6, a_dff=4,
                           num_res_units=1, num_glu_blocks=2, vocab_size=11, max_seq_len=16)
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(st.lists(st.integers(0, 10), min_size=1, max_size=6))
    return cfg, seed, toks


@prop(theorems=[NS + "mha_gcache_exact"],
      paper="G-cache exactness, one way (multi-head layer)", strategy=small_model)
def mha_gcache_exact_layer(ex, backend, dps):
    """pyref's PLGA multi-head sublayer (``pyref.plga._mha``, the function the model calls per
    layer) run twice on the same input: once recomputing A → A_LM → G_LM, once with the G-cache
    holding the recomputed operators. Lean: equal operators give equal layer outputs. Exact
    (bound 0): both calls perform the same operations on bitwise-equal operands."""
    cfg, seed, toks = ex
    model = pyref.PLDRModel.random(cfg, seed=seed)
    b = pyref.get_backend(backend, dps)
    with b.context():
        P = model._backend_params(b)
        lp = P["layers"][0]["mha"]
        tok = np.array([toks])
        x = P["emb"][tok] * b.sqrt(b.const(cfg.d_model))
        mask = pyref.plga.causal_pad_mask(tok)
        y1, ded, _, gc = pyref.plga._mha(b, cfg, lp, x, mask, mode="plga")
        y2, _, _, _ = pyref.plga._mha(b, cfg, lp, x, mask, gc=gc, mode="plga")
        dev = maxabs(y1 - y2)
    return Outcome(dev, 0.0)


@st.composite
def curvature_inputs(draw):
    n = draw(st.integers(1, 8))
    return draw(matrix(n, n)), draw(matrix(n, n, structure=False))


@prop(theorems=[NS + "energyCurvature_one_left", NS + "energyCurvature_zero_left"],
      paper="G_LM = a·A_P + b_a (spec A.4 step 8: a matrix product)", strategy=curvature_inputs)
def energy_curvature_is_matrix_product(ex, backend, dps):
    """pyref's G_LM with a = I is A_P + b_a, and with a = 0 is b_a. Exact in every arithmetic
    (bound 0): the only nonzero products are by 1, and adding exact zeros is exact."""
    A_P, b_a = ex
    n = A_P.shape[0]
    G1 = pyref.plga.energy_curvature_tensor(A_P, np.eye(n), b_a, backend=backend, dps=dps)
    G0 = pyref.plga.energy_curvature_tensor(A_P, np.zeros((n, n)), b_a, backend=backend, dps=dps)
    with ctx(backend, dps):
        a_p, ba = conv(backend, dps, A_P, b_a)
        dev = maxabs(G1 - (a_p + ba)) + maxabs(G0 - ba)
    return Outcome(dev, 0.0)
