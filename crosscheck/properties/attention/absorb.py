"""Cross-check properties of ``Formal/Attention/Absorb.lean``: ``query_absorption``,
``single_head_absorption``, ``mha_absorption``, ``decoder_absorption`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Outcome, prop
from ...strategies import matrix, random_mask
from .._arith import bound, conv, ctx, maxabs
from .._util import state_dict_with_biases
from ._shared import (
    MODEST,
    _a_zero_sd,
    _absorb,
    _cfg,
    _fwd_dev,
    _mha,
    _model_queries_matter,
    _queries_matter,
    _rope_off,
    mha_inputs,
    model_case,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.vecMul_vecMul":
        "associativity of a row vector times a matrix product (Mat.mul_assoc on one row), used "
        "only inside the proofs of the model-level RoPE converse (Formal/Spec/Rope.lean), whose "
        "statements are checked by spec_rope_score_absorption",
    "PLGA.Attention.vec_ext_dot":
        "generic extensionality of vectors through dot products (test against basis vectors), "
        "used only inside the proof of Spec.commutes_of_headScores_absorb, whose statement is "
        "checked by spec_rope_score_absorption",
}


def _commuting_op(ab: np.ndarray) -> np.ndarray:
    """blockdiag_j (a_j·1 + b_j·J) on interleaved pairs (2j, 2j+1), J = [[0, −1], [1, 0]]: commutes
    with every RoPE rotation rot(φ) = cos φ·1 + sin φ·J (both lie in the commutative algebra
    ℝ[J])."""
    dk = 2 * len(ab)
    G = np.zeros((dk, dk))
    for j, (a, b) in enumerate(ab):
        G[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[a, -b], [b, a]]
    return G


def _attn_bound(backend, a, dk, T, Qs, Kmax, Vmax):
    """Bound on max|O₁ − O₂| for two evaluations of softmax(Q_i K̂ᵀ/√d_k + M·(−1e9)) V with the
    same K̂, V, M and queries within γ_a·Qs (entrywise) of the same exact Z, |Z| ≤ Qs:

    * scores: |E_i − E*| ≤ γ_{a+d_k+3}·Escale, Escale = √d_k·Kmax·Qs (product, √d_k and division
      roundings), so δ = max|E₁ − E₂| ≤ 2γ_{a+d_k+3}·Escale; allowed entries get + (−0) exactly,
      masked ones underflow to weight 0 (scores ≪ 1e9 by the strategies, one allowed key per row);
    * softmax: ‖s(E₁) − s(E₂)‖₁ ≤ e^{2δ} − 1 ≤ 4δ; pyref's own rounding (x − max: u·|x − max| ≤
      2u·Escale, exp ≤ 2u, sum γ_T, division u) moves each side by ≤ 2γ_{T+7}(1 + 2·Escale) in ℓ₁;
    * output: ‖Δw‖₁·Vmax plus 2γ_T·Vmax for the two products.

    Total ≤ 18·γ_K·Vmax·(1 + Escale) with K = a + d_k + T + 10, i.e. ``fp_bound(9K,
    Vmax(1+Escale))`` (γ_{9K} ≥ 9γ_K). mp: the harness' 50-digit bound on the same scale."""
    K = a + dk + T + 10
    scale = Vmax * (1.0 + np.sqrt(dk) * Kmax * Qs)
    return bound(backend, 9 * K, scale), 9 * K, scale


def _fwd_scale(o) -> float:
    return max(1.0, maxabs(o.hidden), maxabs(o.logits))


# ============================================================================== absorption
@st.composite
def absorb_case(draw):
    """Multi-head query projection data. kind: "rope" (random positions, RoPE-commuting G*_h),
    "norope" (all positions 0: pyref's rotation is exactly the identity; arbitrary G*_h)."""
    H = draw(st.integers(1, 2))
    dk = draw(st.sampled_from([2, 4]))
    n, S = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    X = draw(matrix(S, n, magnitude=MODEST))
    wq = draw(matrix(H * dk, n, magnitude=MODEST, structure=False))
    bq = draw(matrix(1, H * dk, magnitude=MODEST,
                     structure=False))[0] * draw(st.sampled_from([0.0, 1.0]))
    kind = draw(st.sampled_from(["rope", "rope", "norope"]))
    if kind == "rope":
        G = np.stack([_commuting_op(draw(matrix(dk // 2, 2, magnitude=MODEST, structure=False)))
                      for _ in range(H)])
        pos = draw(st.lists(st.integers(0, 1000), min_size=S, max_size=S))
    else:
        G = np.stack([draw(matrix(dk, dk, magnitude=MODEST)) for _ in range(H)])
        pos = [0] * S
    return X, wq, bq, G, kind, pos


def _Qscale(X, W, b, G):
    """max of 2·(|X||W|ᵀ + |b|)·(max column sum of |G|): bounds |R q G| and its partial products
    (RoPE mixes a pair: |Rv| ≤ |v_{2j}| + |v_{2j+1}| ≤ 2 max|v|)."""
    A = np.abs(X) @ np.abs(W).T + np.abs(b)
    gcol = max(float(np.max(np.abs(g).sum(axis=0))) for g in G)
    return 2.0 * float(np.max(A)) * gcol if A.size else 0.0


@prop(theorems=["PLGA.Attention.absorb_operator_linear", "PLGA.Attention.affine_mul",
                "PLGA.Attention.rotRows_mul_of_commute", "PLGA.Attention.splitHead_affine_absorb",
                "PLGA.Attention.queries_absorbParams", "PLGA.Attention.rotRows_noRope",
                "PLGA.Attention.noRope_commutes"],
      paper="Thm 5.4(ii) absorption, query level ((XW + 𝟙bᵀ)G = X(WG) + 𝟙(bᵀG), crossing RoPE)",
      strategy=absorb_case)
def query_absorption(ex, backend, dps):
    """For each head h: pyref's rotated queries of the absorbed projection (``linear`` with
    G_hᵀ wq_h, bq_h G_h, then ``apply_rope``) equal the original rotated queries times G_h
    (``queries_absorbParams``; head split = ``splitHead_affine_absorb``; without RoPE =
    ``affine_mul``, ``absorb_operator_linear`` when b = 0). "rope": random positions and G*_h
    commuting with every rotation (``rotRows_mul_of_commute``). "norope": ``apply_rope`` at position
    0 must be exactly the identity (``rotRows_noRope``) and R₀ G = G R₀ exactly for arbitrary G
    (``noRope_commutes``, with pyref's ``rope_matrix(0)``); both checked with bound 0.

    float64 bound: each side is within γ_{n+d_k+7}·Qs of the exact R(XW_h + b_h)G_h, Qs from
    :func:`_Qscale` (projection γ_{n+1}, G_hᵀwq_h and b_h G_h γ_{d_k}, the product by G γ_{d_k},
    RoPE two products, one sum and the cos/sin values ≤ γ₄): ``fp_bound(n + d_k + 7, Qs)``."""
    X, wq, bq, G, kind, pos = ex
    H, dk, _ = G.shape
    n = X.shape[1]
    b = pyref.get_backend(backend, dps)
    exact = 0.0
    with b.context():
        Xb, Wb, Bb, Gb = conv(backend, dps, X, wq, bq, G)
        wq2, bq2 = _absorb(Wb, Bb, Gb)
        Q = pyref.layers.linear(Xb, Wb, Bb, backend=backend, dps=dps)
        Q2 = pyref.layers.linear(Xb, wq2, bq2, backend=backend, dps=dps)
        dev = 0.0
        for h in range(H):
            s = slice(h * dk, (h + 1) * dk)
            lhs = pyref.rope.apply_rope(Q[:, s], positions=pos, backend=backend, dps=dps) @ Gb[h]
            rhs = pyref.rope.apply_rope(Q2[:, s], positions=pos, backend=backend, dps=dps)
            dev = max(dev, maxabs(lhs - rhs))
            if kind == "norope":
                R0 = pyref.rope.rope_matrix(0, dk, backend=backend, dps=dps)
                exact += maxabs(pyref.rope.apply_rope(Q[:, s], positions=pos, backend=backend,
                                                      dps=dps) - Q[:, s])
                exact += maxabs(R0 @ Gb[h] - Gb[h] @ R0)
    if exact:
        return Outcome(exact + dev, 0.0, note="position-0 RoPE is not exactly the identity")
    return Outcome(dev, bound(backend, n + dk + 7, _Qscale(X, wq, bq, G)))


@st.composite
def single_head_case(draw):
    dk = draw(st.sampled_from([2, 4, 6]))
    n, S = draw(st.integers(1, 5)), draw(st.integers(1, 6))
    T, dv = draw(st.integers(2, 6)), draw(st.integers(1, 3))
    X = draw(matrix(S, n, magnitude=MODEST))
    W = draw(matrix(n, dk, magnitude=MODEST, structure=False))
    bias = draw(matrix(1, dk, magnitude=MODEST,
                       structure=False))[0] * draw(st.sampled_from([0.0, 1.0]))
    K = draw(matrix(T, dk, magnitude=MODEST))
    V = draw(matrix(T, dv, magnitude=MODEST, structure=False))
    rope = draw(st.booleans())
    if rope:
        G = _commuting_op(draw(matrix(dk // 2, 2, magnitude=MODEST, structure=False)))
    else:
        G = draw(matrix(dk, dk, magnitude=MODEST))
    return X, W, bias, G, K, V, random_mask(draw, S, T), rope


@prop(theorems=["PLGA.Attention.plgaAttention_absorb", "PLGA.Attention.plgaAttention_rope_absorb"],
      paper="Thm 5.4(ii) absorption, single head (PLGA with constant G* = SDPA with W G*, bᵀG*)",
      strategy=single_head_case)
def single_head_absorption(ex, backend, dps):
    """pyref's per-head ``plga_attention`` on queries (RoPE of) X W + 𝟙bᵀ with operator G* equals
    pyref's ``sdpa_attention`` on queries (RoPE of) X (W G*) + 𝟙(bᵀ G*), for the drawn mask and
    arbitrary K̂, V. Without RoPE (``plgaAttention_absorb``) G* is arbitrary; with RoPE at positions
    0…S−1 (``plgaAttention_rope_absorb``) G* is block-diagonal a·1 + b·J, commuting with every
    rotation. Bound: :func:`_attn_bound` with Qs from :func:`_Qscale` and a = n + d_k + 7 (see
    ``query_absorption``)."""
    X, W, bias, G, K, V, mask, rope = ex
    dk = G.shape[0]
    pos = list(range(X.shape[0]))
    b = pyref.get_backend(backend, dps)
    with b.context():
        Xb, Wb, Bb, Gb = conv(backend, dps, X, W.T, bias, G)
        wq2, bq2 = _absorb(Wb, Bb, Gb[None])
        Q = pyref.layers.linear(Xb, Wb, Bb, backend=backend, dps=dps)
        Q2 = pyref.layers.linear(Xb, wq2, bq2, backend=backend, dps=dps)
        if rope:
            Q = pyref.rope.apply_rope(Q, positions=pos, backend=backend, dps=dps)
            Q2 = pyref.rope.apply_rope(Q2, positions=pos, backend=backend, dps=dps)
        o1, _ = pyref.plga.plga_attention(Q, K, V, Gb, mask=mask, backend=backend, dps=dps)
        o2, _ = pyref.plga.sdpa_attention(Q2, K, V, mask=mask, backend=backend, dps=dps)
        dev = maxabs(o1 - o2)
    bnd, _, _ = _attn_bound(backend, X.shape[1] + dk + 7, dk, K.shape[0],
                            _Qscale(X, W.T, bias, G[None]),
                            np.max(np.abs(K)), np.max(np.abs(V)))
    return Outcome(dev, bnd, met=_queries_matter(mask))


@st.composite
def mha_absorb_case(draw):
    d, X, p, mask, rng = draw(mha_inputs())
    H, dk = 2, d // 2
    rope = draw(st.sampled_from([True, True, False]))
    gs = draw(MODEST)
    if rope:
        G = np.stack([_commuting_op(rng.uniform(-1, 1, (dk // 2, 2)) * gs) for _ in range(H)])
    else:
        G = rng.uniform(-1, 1, (H, dk, dk)) * gs
    return d, X, p, mask, G, rope


@prop(theorems=["PLGA.Attention.mha_eq_mhaSDPA_absorbParams",
                "PLGA.Attention.mha_eq_mhaSDPA_absorbParams_noRope"],
      paper="Thm 5.4(ii) absorption, multi-head layer (PLGA with constant G*_h = SDPA with "
            "absorbParams)",
      strategy=mha_absorb_case)
def mha_absorption(ex, backend, dps):
    """pyref's multi-head sublayer with constant per-head operators G*_h (``ConstantOperator``)
    equals its SDPA path (``IdentityOperator``) with W_Q, b_Q reparametrized per head
    (:func:`_absorb`, Lean ``absorbParams``), same K, V, W_O, b_O, mask. With RoPE, G*_h is
    block-diagonal a·1 + b·J (commuting); without RoPE (pyref's rotation replaced by the
    identity for the call, Lean ``noRope``) G*_h is arbitrary.

    float64 bound: per head :func:`_attn_bound` (a = d + d_k + 7, Qs from :func:`_Qscale`,
    Kmax/Vmax of the computed K̂, V, identical on both sides), then the output projection:
    |Δout| ≤ d·max|W_O|·β_head + 2γ_{d+1}(d·max|O|·max|W_O| + max|b_O|), covered by
    ``fp_bound(9K + d + 2, 2(d·max|W_O|·scale + max|b_O|))`` with K, scale from
    :func:`_attn_bound`."""
    d, X, p, mask, G, rope = ex
    cfg = _cfg(1, d)
    dk = d // 2
    S = X.shape[1]
    o1, kv = _mha(backend, dps, cfg, p, X, mask, "constant", G=G, no_rope=not rope)
    b = pyref.get_backend(backend, dps)
    with b.context():
        Wb, Bb, Gb = conv(backend, dps, p["wq.weight"], p["wq.bias"], G)
        q = dict(p)
        q["wq.weight"], q["wq.bias"] = _absorb(Wb, Bb, Gb)  # mpf arrays at 50 digits for mp
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "sdpa", no_rope=not rope)
    with ctx(backend, dps):
        dev = maxabs(o1 - o2)
        Kmax, Vmax = maxabs(kv[0]), maxabs(kv[1])
    _, k, scale = _attn_bound(backend, d + dk + 7, dk, S,
                              _Qscale(X[0], p["wq.weight"], p["wq.bias"], G),
                              Kmax, Vmax)
    Wo, bo = np.max(np.abs(p["dense.weight"])), np.max(np.abs(p["dense.bias"]))
    return Outcome(dev, bound(backend, k + d + 2, 2 * (d * Wo * scale + bo)),
                   met=_queries_matter(mask))


@st.composite
def decoder_absorb_case(draw):
    L, d, seed, toks = draw(model_case(pad=False))
    kind = draw(st.sampled_from(["pinned", "invariant", "norope"]))
    return L, d, seed, toks, kind


def _dyadic_absorb_setup(cfg, rng, commuting):
    """Per-layer W_Q, b_Q with entries k/64 and G*_h with entries k/8: every entry of G_hᵀ wq_h and
    bq_h G_h is a sum of ≤ d_k terms k/512 with |k| ≤ 2^11, so the absorbed weights are exact in
    float64 (pyref's state dicts are float64) and the 50-digit comparison sees no weight
    rounding."""
    H, dk, d = cfg.num_heads, cfg.d_k, cfg.d_model
    out = []
    for _ in range(cfg.num_layers):
        wq = rng.integers(-64, 65, (d, d)) / 64.0
        bq = rng.integers(-64, 65, d) / 64.0
        if commuting:
            G = np.stack([_commuting_op(rng.integers(-16, 17, (dk // 2, 2)) / 8.0)
                          for _ in range(H)])
        else:
            G = rng.integers(-16, 17, (H, dk, dk)) / 8.0
        wq2, bq2 = _absorb(wq, bq, G)
        with mpmath.workdps(60):   # exactness of the float64 absorption, verified
            e1, e2 = _absorb(pyref.to_mp(wq, 60), pyref.to_mp(bq, 60), pyref.to_mp(G, 60))
            assert np.all(e1 == pyref.to_mp(wq2, 60)) and np.all(e2 == pyref.to_mp(bq2, 60))
        out.append((wq, bq, G, wq2, bq2))
    return out


@prop(theorems=["PLGA.Attention.decoderLayer_eq_sdpaDecoderLayer_absorb",
                "PLGA.Attention.plgaDecoder_pinLayers_eq_sdpaDecoder",
                "PLGA.Attention.plgaDecoder_eq_sdpaDecoder_of_invariantAlong",
                "PLGA.Attention.plgaDecoder_eq_sdpaDecoder_noRope",
                "PLGA.Spec.decoder_eq_sdpaDecoder_of_invariantAlong",
                "PLGA.Spec.logits_eq_sdpaLogits_absorb_of_invariantAlong"],
      paper="Thm 5.4(ii): the collapsed / input-invariant PLDR decoder is an SDPA decoder with W_Q "
            "G*, b_Q G*",
      strategy=decoder_absorb_case, backends=("mp",))
def decoder_absorption(ex, backend, dps):
    """Whole-decoder absorption on pyref's models (decoder output and logits), against pyref's
    SDPAModel whose W_Q, b_Q are reparametrized per layer and head (:func:`_absorb`):
    "pinned": ConstantGModel with RoPE-commuting G*_l (``plgaDecoder_pinLayers_eq_sdpaDecoder``;
    L = 1: ``decoderLayer_eq_sdpaDecoderLayer_absorb``); "invariant": the full PLDR model with
    a = 0, b_a = G*_l commuting, so G_LM = G*_l along every trajectory (verified), with RoPE
    (``plgaDecoder_eq_sdpaDecoder_of_invariantAlong``); "norope": the same with arbitrary G*_l and
    pyref's rotation replaced by the identity in both models
    (``plgaDecoder_eq_sdpaDecoder_noRope``). Tokens avoid the pad id, so no row is fully masked.

    mp only: the two decoders round differently and a rigorous float64 bound through LayerNorm,
    SwiGLU and the metric learner is impractical; at 50 digits the harness bound 1e-40·scale
    (scale = max(1, |hidden|, |logits|)) applies, with absorbed weights exact (dyadic entries)."""
    L, d, seed, toks, kind = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 11)
    setup = _dyadic_absorb_setup(cfg, rng, commuting=kind != "norope")
    if kind == "pinned":
        sd = state_dict_with_biases(pyref.ConstantGModel.random(cfg, seed=seed), rng)
    else:
        sd = _a_zero_sd(cfg, seed, [s[2] for s in setup])
    sd_abs = dict(sd)
    for li, (wq, bq, G, wq2, bq2) in enumerate(setup):
        m = f"decoder.dec_layers.{li}.mha1.wq."
        sd[m + "weight"], sd[m + "bias"] = wq, bq
        sd_abs[m + "weight"], sd_abs[m + "bias"] = wq2, bq2
    Gs = [s[2] for s in setup]
    lhs_model = (pyref.ConstantGModel.from_state_dict(sd, cfg, G=Gs) if kind == "pinned"
                 else pyref.PLDRModel.from_state_dict(sd, cfg))
    sdpa = pyref.SDPAModel.from_state_dict(sd_abs, cfg, strict=False)
    with _rope_off(kind == "norope"):
        o1 = lhs_model.forward([toks], backend=backend, dps=dps)
        o2 = sdpa.forward([toks], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = _fwd_dev(o1, o2)
        if kind != "pinned":   # the invariance hypothesis, verified: G_LM = G*_l exactly
            dev += sum(maxabs(dd["G_LM"][0] - g)
                       for dd, g in zip(o1.deductive, conv(backend, dps, *Gs)))
        scale = max(_fwd_scale(o1), _fwd_scale(o2))
    return Outcome(dev, bound(backend, 10 ** 4, scale), met=_model_queries_matter(toks))
