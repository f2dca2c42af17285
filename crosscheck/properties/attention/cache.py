"""Cross-check properties of ``Formal/Attention/Cache.lean``: ``mha_gcache_exact_layer``,
``energy_curvature_is_matrix_product``, ``zero_values_hide_the_operator``,
``converse_witness_components``, ``gcache_converse_counterexample`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
import pyref.attention

from ...registry import Checks, Outcome, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import mat
from ...strategies import matrix
from .._arith import bound, conv, ctx, maxabs
from ._shared import MODEST, _a_zero_sd, _cfg, _fwd_dev, _mha, _queries_matter, mha_inputs

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.invariantAlong_opsAlong":
        "structural (rfl): operators recorded along a trajectory are the ones recomputed on it; "
        "its consequence plgaDecoder_gcache_prefill_exact is checked by collapse_along_trajectory",
}


@st.composite
def small_model(draw):
    cfg = pyref.PLDRConfig(num_layers=1, d_model=4 * draw(st.integers(1, 2)), num_heads=2,
                           dff=6, a_dff=4,
                           num_res_units=1, num_glu_blocks=2, vocab_size=11, max_seq_len=16)
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(st.lists(st.integers(0, 10), min_size=1, max_size=6))
    return cfg, seed, toks


@prop(theorems=["PLGA.Attention.mha_gcache_exact"],
      paper="G-cache exactness, one way (multi-head layer)", strategy=small_model)
def mha_gcache_exact_layer(ex, backend, dps):
    """pyref's PLGA multi-head sublayer (``pyref.attention.multi_head_attention``, the function the
    model calls per layer) run twice on the same input: once recomputing A → A_LM → G_LM, once with
    the G-cache holding the recomputed operators. Lean: equal operators give equal layer outputs.
    Exact (bound 0): both calls perform the same operations on bitwise-equal operands."""
    cfg, seed, toks = ex
    model = pyref.PLDRModel.random(cfg, seed=seed)
    b = pyref.get_backend(backend, dps)
    with b.context():
        P = model.backend_params(b)
        lp = P.layers[0].attention
        tok = np.array([toks])
        x = P.embedding[tok] * b.sqrt(b.const(cfg.d_model))
        mask = pyref.plga.causal_pad_mask(tok)
        y1, ded, _, gc = pyref.attention.multi_head_attention(b, cfg, lp, x, mask)
        y2, _, _, _ = pyref.attention.multi_head_attention(b, cfg, lp, x, mask, gc=gc)
        dev = maxabs(y1 - y2)
    return Outcome(dev, 0.0)


@st.composite
def curvature_inputs(draw):
    """Generic (A_P, b_a, a) from a drawn seed: A_P > 0 like a potential tensor, b_a and a with
    uniform entries of a drawn magnitude."""
    n = draw(st.integers(1, 8))
    mag = draw(MODEST)
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 32 - 1)))
    return (rng.uniform(0.1, 2.0, (n, n)) * mag, rng.uniform(-1, 1, (n, n)) * mag,
            rng.uniform(-1, 1, (n, n)))


@prop(theorems=["PLGA.Attention.energyCurvature_one_left",
                "PLGA.Attention.energyCurvature_zero_left"],
      paper="G_LM = a·A_P + b_a (spec A.4 step 8: a matrix product)", strategy=curvature_inputs)
def energy_curvature_is_matrix_product(ex, backend, dps):
    """pyref's ``energy_curvature_tensor(A_P, a, b_a)`` for a generic full matrix a (uniform
    entries: not I, 0, diagonal or commuting with A_P, so a·A_P, A_P·a, a ⊙ A_P and aᵀ·A_P all
    differ) equals the Lean ``energyCurvature a A_P b_a = a·A_P + b_a`` evaluated independently
    (:mod:`crosscheck.spec_eval.model`, 20 extra digits); and the two theorems: with a = I it is
    A_P + b_a, with a = 0 it is b_a.

    Bounds: the theorems are exact in every arithmetic (bound 0: the only nonzero products are by
    1, and adding exact zeros is exact); the generic formula within ``fp_bound(n+1, |a||A_P| +
    |b_a|)`` in float64 (Higham §3.1: n products and n additions per entry), 1e-40 times that
    scale in mp."""
    A_P, b_a, a = ex
    n = A_P.shape[0]
    G = pyref.plga.energy_curvature_tensor(A_P, a, b_a, backend=backend, dps=dps)
    G1 = pyref.plga.energy_curvature_tensor(A_P, np.eye(n), b_a, backend=backend, dps=dps)
    G0 = pyref.plga.energy_curvature_tensor(A_P, np.zeros((n, n)), b_a, backend=backend, dps=dps)
    ch = Checks()
    with ctx(backend, dps):
        a_p, ba = conv(backend, dps, A_P, b_a)
        ch.exact("energyCurvature_one_left: I·A_P + b_a = A_P + b_a", maxabs(G1 - (a_p + ba)))
        ch.exact("energyCurvature_zero_left: 0·A_P + b_a = b_a", maxabs(G0 - ba))
    with mpmath.workdps(dps + 20):
        ref = ev.energyCurvature(mat(a), mat(A_P), mat(b_a))
        dev = max(abs(mpmath.mpf(x) - y) for xr, yr in zip(np.asarray(G).tolist(), ref)
                  for x, y in zip(xr, yr))
        ch.le("generic a: a·A_P + b_a = Lean energyCurvature", dev,
              bound(backend, n + 1, np.max(np.abs(a) @ np.abs(A_P) + np.abs(b_a))))
    return ch.outcome()


# ===================================================================== zero values (converse i)
@prop(theorems=["PLGA.Attention.mha_zero_values", "PLGA.Attention.values_zero",
                "PLGA.Attention.plgaAttention_zero_values"],
      paper="G-cache converse failure (i): with zero values the output does not see the operator",
      strategy=lambda: st.tuples(mha_inputs(), matrix(4, 4, structure=False)))
def zero_values_hide_the_operator(ex, backend, dps):
    """With W_V = 0 and b_V = 0, pyref's multi-head sublayer gives the same output for two different
    per-head operators G ≠ G' (``mha_zero_values``); its value tensor V is exactly 0
    (``values_zero``, read from the returned KV-cache); and pyref's per-head ``plga_attention`` with
    V = 0 returns exactly 0 for any operator (``plgaAttention_zero_values``, on the sublayer's own
    Q̂, K̂ of head 0). Non-vacuity: G' = G + Δ with Δ ≠ 0 (met iff G ≠ G').

    Bound 0 on both backends: X·0 + 0, w·0 and their sums are exact zeros, and 0·W_O + b_O = b_O."""
    (d, X, p, mask, rng), D = ex
    cfg = _cfg(1, d)
    H, dk = 2, d // 2
    G = rng.uniform(-2, 2, (H, dk, dk))
    Delta = D[:dk, :dk].copy()
    Delta[0, 0] += 1.0                                    # G' ≠ G guaranteed
    G2 = G + np.stack([Delta] * H)
    met = bool(np.any(G != G2)) and _queries_matter(mask)
    q = dict(p)
    q["wv.weight"], q["wv.bias"] = np.zeros((d, d)), np.zeros(d)
    o1, kv = _mha(backend, dps, cfg, q, X, mask, "constant", G=G)
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "constant", G=G2)
    S = X.shape[1]
    with ctx(backend, dps):
        Khat, V = kv[0], kv[1]                                            # [1, S, H, dk]
        Qhat = pyref.rope.apply_rope((X[0] @ p["wq.weight"].T + p["wq.bias"])[:, :dk],
                                     backend=backend, dps=dps)
        O0, _ = pyref.plga.plga_attention(Qhat, Khat[0, :, 0, :], np.zeros((S, dk)), G[0],
                                          mask=mask[0, 0], backend=backend, dps=dps)
        bO = conv(backend, dps, p["dense.bias"])[0]
        dev = maxabs(o1 - o2) + maxabs(V) + maxabs(O0) + maxabs(o1 - bO)
    return Outcome(dev, 0.0, met=met)


# ============================================================ converse (ii): witness components
@st.composite
def witness_parts(draw):
    n = draw(st.integers(1, 6))
    eps = draw(st.sampled_from([0.0, 1e-9, 1e-3, 0.5]))
    AP = draw(matrix(n, n, magnitude=MODEST)) ** 2 + 1e-9              # a potential tensor is > 0
    ba = draw(matrix(n, n, magnitude=MODEST))
    return n, eps, AP, ba


@prop(theorems=["PLGA.Attention.energyCurvature_zero_left",
                "PLGA.Attention.metricTensor_zero_ne_ones"],
      paper="G-cache converse failure (ii): the a = 0 degeneracy and the distinguishing metric "
            "tensors",
      strategy=witness_parts)
def converse_witness_components(ex, backend, dps):
    """The two ingredients of the formal counterexample, on pyref's functions:
    ``energy_curvature_tensor(A_P, a = 0, b_a) = b_a`` for any A_P (exact: 0·x and sums of zeros
    are exact, 0 + b = b), and with W = I, b = 0 the metric tensors of A = 0 and A = 𝟙𝟙ᵀ differ at
    entry (0,0): ``metric_tensor`` gives exactly ε (iSwiGLU(0) = 0) versus σ(1) + ε (Lean
    ``metricTensor_zero_ne_ones``; the values are checked, which implies ≠ since σ(1) ≈ 0.73).

    Bound: 0 for the exact parts; σ(1) + ε is compared with a 60-digit reference: float64 pyref
    evaluates 1·(1·σ(1)) + ε with σ = 1/(1 + e^{−1}) (exp ≤ 1 ulp, then +, ÷, ×, +), ≤ γ₆(σ(1)+ε)
    from exact, plus u for rounding the reference: ``fp_bound(6, 1 + ε)``; mp: 1e-40."""
    n, eps, AP, ba = ex
    G = pyref.plga.energy_curvature_tensor(AP, np.zeros((n, n)), ba, backend=backend, dps=dps)
    M0 = pyref.plga.metric_tensor(np.zeros((n, n)), np.eye(n), np.zeros((n, n)), eps=eps,
                                  backend=backend, dps=dps)
    M1 = pyref.plga.metric_tensor(np.ones((n, n)), np.eye(n), np.zeros((n, n)), eps=eps,
                                  backend=backend, dps=dps)
    b = pyref.get_backend(backend, dps)
    with b.context():
        e = b.const(eps)
        exact_dev = maxabs(G - b.asarray(ba)) + maxabs(np.array([M0[0, 0] - e]))
    with mpmath.workdps(60):
        ref = 1 / (1 + mpmath.exp(-1)) + (b.const(eps) if b.is_mp else mpmath.mpf(float(e)))
    with b.context():
        if b.is_arb:   # the ball of σ(1) + ε itself: |M1 − ref| is a ball containing the error
            approx_dev = abs(M1[0, 0] - (b.sigmoid(np.array([1.0]))[0] + e))
        else:
            ref_b = +ref if b.is_mp else float(ref)
            approx_dev = abs(float(M1[0, 0] - ref_b))
    if exact_dev != 0:
        return Outcome(exact_dev + approx_dev, 0.0, note="exact part nonzero")
    return Outcome(approx_dev + float(M0[0, 0] == M1[0, 0]), bound(backend, 6, 1 + eps))


@st.composite
def converse_case(draw):
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(1, 5))
    x1 = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S))
    x2 = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S))
    h0 = draw(st.integers(0, 1))
    return d, seed, x1, x2, h0


@prop(theorems=["PLGA.Attention.gcache_exact_converse_fails"],
      paper="G-cache exactness is one-way: exact caching does not imply invariance of A or A_LM",
      strategy=converse_case, backends=("mp",))
def gcache_converse_counterexample(ex, backend, dps):
    """The a = 0, b_a = G* witness on pyref's one-layer PLDR model, for two distinct inputs
    x₁ ≠ x₂ (met iff they differ) and a head h₀: (1) the recomputed G_LM is G* on both inputs;
    (2) the G-cached decoder (cache filled on x₁) and the collapsed model with G* pinned both equal
    the uncached decoder on x₁ and on x₂; yet (3) the upstream tensors differ between the inputs:
    A(x₁)_{h₀} ≠ A(x₂)_{h₀} and A_LM(x₁)_{h₀} ≠ A_LM(x₂)_{h₀}. (1)–(2) are exact (bound 0, see
    ``collapse_exact_invariance``); (3) counts as failed unless the difference exceeds 1e-30, 10^10
    times the 50-digit bound, so it certifies that the exact values differ. mp only: (3) is a claim
    about exact inequality, which needs the 50-digit margin (float64 has no rigorous error bound for
    Φ_res here)."""
    d, seed, x1, x2, h0 = ex
    cfg = _cfg(1, d)
    rng = np.random.default_rng(seed + 5)
    Gstar = [rng.uniform(-1, 1, (cfg.num_heads, cfg.d_k, cfg.d_k))]
    full = pyref.PLDRModel.from_state_dict(_a_zero_sd(cfg, seed, Gstar), cfg)
    pinned = full.to_constant_operator(G=Gstar)
    o1 = full.forward([x1], backend=backend, dps=dps)
    o2 = full.forward([x2], backend=backend, dps=dps)
    dev = 0.0
    with ctx(backend, dps):
        (Gb,) = conv(backend, dps, Gstar[0])
        for o, x in ((o1, x1), (o2, x2)):
            dev = max(dev, maxabs(o.deductive[0]["G_LM"][0] - Gb))
            dev = max(dev,
                      _fwd_dev(o, full.forward([x], backend=backend, dps=dps, gcache=o1.gcache)))
            dev = max(dev, _fwd_dev(o, pinned.forward([x], backend=backend, dps=dps)))
        dA = maxabs(o1.deductive[0]["A"][0, h0] - o2.deductive[0]["A"][0, h0])
        dALM = maxabs(o1.deductive[0]["A_LM"][0, h0] - o2.deductive[0]["A_LM"][0, h0])
    distinct = dA > 1e-30 and dALM > 1e-30
    return Outcome(dev + (0.0 if distinct else 1.0), 0.0, met=x1 != x2)
