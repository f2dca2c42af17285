"""Model-level properties for ``Formal/Attention`` (namespace ``PLGA.Attention``): multi-head
and whole-decoder SDPA inclusion, inference collapse (Thm 5.4(ii)), absorption of a constant
operator into the query projection, the G-cache and its failing converse, and the softmax facts
not covered by :mod:`.attention`. Everything is evaluated on ``pyref``'s own code paths: its
multi-head sublayer ``pyref.plga._mha`` (the function ``PLDRModel.forward`` calls per layer),
its three model classes (``PLDRModel``, ``ConstantGModel``, ``SDPAModel``), its G-cache, and
its public per-head functions.

Correspondence with the Lean objects (row convention, spec A.4):

* ``affine X W b = X W + 𝟙 bᵀ`` is pyref's ``Linear`` with torch weight ``Wᵀ``: head ``h`` of
  ``wq.weight`` ([out, in]) is the row block ``h·d_k … h·d_k + d_k − 1`` (Lean ``headIdx``), so
  ``absorbWeight``/``absorbBias`` (``W_h ↦ W_h G_h``, ``b_h ↦ b_hᵀ G_h``) become
  ``wq_h ↦ G_hᵀ wq_h`` and ``bq_h ↦ bq_h G_h`` (:func:`_absorb`);
* ``rotRows R`` is pyref's interleaved RoPE (row ``t`` times ``R_tᵀ``); ``noRope`` is realized by
  substituting the identity for ``pyref.plga._apply_rope`` for the duration of one call
  (:func:`_rope_off`: pyref's model has no RoPE switch) or, for per-head checks, by
  ``apply_rope`` at position 0 (exactly the identity);
* an operator commuting with every rotation is block-diagonal with 2×2 blocks ``a·1 + b·J`` on the
  interleaved pairs (:func:`_commuting_op`);
* ``PLGALayer.gen`` is pyref's metric learner (``PLDRModel``), ``pinLayers`` is
  ``ConstantGModel`` (``PLDRModel.to_constant_operator(G=…)``), ``sdpaDecoder`` is ``SDPAModel``;
  the whole-model comparisons compare both the decoder output (``ForwardOutput.hidden``, the
  Lean ``plgaDecoder`` value on ``X = embed(tokens)``) and the logits.

Several Lean identities are *structural* and pyref realizes both sides with the same sequence of
floating-point operations on bitwise-equal operands (e.g. ``Q̂·I`` is exact, multiplying by a
power of two is exact, a cached operator is the recomputed one bit for bit); those properties use
bound 0 on both backends and say why. Where the two sides round differently (absorption) the
float64 bound is derived in :func:`_attn_bound`; whole-model comparisons that round differently
run at 50 digits only.
"""

from __future__ import annotations

import contextlib
from unittest import mock

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ..registry import Outcome, prop
from ..strategies import matrix, random_mask
from .attention import score_rows
from ._util import bound, conv, ctx, generic_plga_state_dict, maxabs, state_dict_with_biases

NS = "PLGA.Attention."

#: theorems of ``Formal/Attention`` with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    # Softmax.lean
    NS + "attn_div_pos": "order helper (a/b > 0 for a, b > 0) used only inside the softmax proofs, whose statements are checked",
    NS + "attn_ne_of_pos": "order helper (a > 0 ⇒ a ≠ 0) used only inside the softmax proofs, whose statements are checked",
    NS + "maskedSoftmax_of_none": "no pyref counterpart: pyref's exact masked softmax rejects a fully masked row (ValueError) and the "
                                  "authors' additive −1e9 mask turns it into a common shift (softmax of the unmasked row), not the Lean 0 row",
    # Basic.lean
    NS + "plgaAttention_congr_op": "rewriting by a hypothesis G = G' (a function of equal arguments); its model-level use, cached operators "
                                   "equal to the recomputed ones give equal outputs, is checked by collapse_along_trajectory",
    # MultiHead.lean: index algebra of the head split (pyref: numpy reshape/transpose, exact data movement)
    NS + "headIdx_lt": "Nat index bound h·d_k + j < H·d_k (well-formedness of Fin indices); no computation",
    NS + "headDim_pos": "Nat fact (a feature index exists only if d_k > 0); no computation",
    NS + "headOf_headIdx": "Nat division identity (h·d_k + j)/d_k = h of the head split; pyref's reshape realizes it by construction",
    NS + "coordOf_headIdx": "Nat modulo identity (h·d_k + j) % d_k = j of the head split; pyref's reshape realizes it by construction",
    NS + "headIdx_headOf_coordOf": "Nat identity (c/d_k)·d_k + c % d_k = c of the head split; no computation",
    NS + "splitHead_concatHeads": "index algebra (split ∘ concat = id), exact data movement; pyref's head convention is exercised by "
                                  "mha_absorption, which absorbs G*_h into the headIdx block of W_Q",
    NS + "concatHeads_splitHead": "index algebra (concat ∘ split = id), exact data movement (numpy reshape); nothing numeric",
    NS + "splitVec_concatVec": "index algebra for bias vectors (split ∘ concat = id), exact data movement; nothing numeric",
    # Collapse.lean
    NS + "invariantAlong_of_invariantOn": "logical implication between invariance hypotheses (set ⇒ trajectory); no numeric content, "
                                          "the collapse conclusions it feeds are checked",
    NS + "invariantAlong_of_constOn": "logical implication between invariance hypotheses (closed set ⇒ trajectory); no numeric content",
    NS + "constOn_univ_of_exactlyInvariant": "logical implication (constant generators are constant on every set); no numeric content",
    # Cache.lean
    NS + "invariantAlong_opsAlong": "structural (rfl): operators recorded along a trajectory are the ones recomputed on it; its "
                                    "consequence plgaDecoder_gcache_prefill_exact is checked by collapse_along_trajectory",
    # Absorb.lean
    NS + "splitHead_affine": "definitional (rfl): head h of X W + 𝟙bᵀ is X W_h + 𝟙b_hᵀ (a column block); its absorbed form "
                             "splitHead_affine_absorb is checked by query_absorption",
}

MODEST = st.sampled_from([1.0, 0.5, 2.0, 1e-3, 10.0])   # keeps scores far below the 1e9 mask
POW2 = st.sampled_from([1.0, 0.5, 2.0, -1.0, 4.0, -0.25])


# ------------------------------------------------------------------------------ helpers
def _cfg(L: int, d: int) -> pyref.PLDRConfig:
    return pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=2, dff=6, a_dff=4, num_res_units=1,
                            num_glu_blocks=2, vocab_size=11, max_seq_len=16)


@contextlib.contextmanager
def _rope_off(off: bool):
    """Lean ``cfg.rope = noRope``: pyref's attention always rotates, so for one call the rotation
    function its multi-head sublayer looks up (``pyref.plga._apply_rope``) is the identity."""
    if not off:
        yield
        return
    with mock.patch.object(pyref.plga, "_apply_rope", lambda b, x, positions, base: x):
        yield


def _commuting_op(ab: np.ndarray) -> np.ndarray:
    """blockdiag_j (a_j·1 + b_j·J) on interleaved pairs (2j, 2j+1), J = [[0, −1], [1, 0]]: commutes
    with every RoPE rotation rot(φ) = cos φ·1 + sin φ·J (both lie in the commutative algebra ℝ[J])."""
    dk = 2 * len(ab)
    G = np.zeros((dk, dk))
    for j, (a, b) in enumerate(ab):
        G[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[a, -b], [b, a]]
    return G


def _absorb(wq, bq, G):
    """Lean ``absorbParams`` in pyref's layout: ``wq_h ↦ G_hᵀ wq_h``, ``bq_h ↦ bq_h G_h`` (row block h
    of the torch weight is W_hᵀ). Works on float64 or mpf arrays (call inside the mp context)."""
    H, dk, _ = G.shape
    wq2, bq2 = wq.copy(), bq.copy()
    for h in range(H):
        s = slice(h * dk, (h + 1) * dk)
        wq2[s] = G[h].T @ wq[s]
        bq2[s] = bq[s] @ G[h]
    return wq2, bq2


def _mha(backend, dps, cfg, p, X, mask, mode, G=None, no_rope=False):
    """pyref's multi-head sublayer on X [1, S, d]: returns (output [1, S, d], kv [K̂, V])."""
    b = pyref.get_backend(backend, dps)
    with b.context(), _rope_off(no_rope):
        pb = {k: b.asarray(v) for k, v in p.items()}
        out, _ded, kv, _gc = pyref.plga._mha(b, cfg, pb, b.asarray(X), mask, mode=mode,
                                            G_const=None if G is None else b.asarray(G))
    return out, kv


def _attn_bound(backend, a, dk, T, Qs, Kmax, Vmax):
    """Bound on max|O₁ − O₂| for two evaluations of softmax(Q_i K̂ᵀ/√d_k + M·(−1e9)) V with the
    same K̂, V, M and queries within γ_a·Qs (entrywise) of the same exact Z, |Z| ≤ Qs:

    * scores: |E_i − E*| ≤ γ_{a+d_k+3}·Escale, Escale = √d_k·Kmax·Qs (product, √d_k and division
      roundings), so δ = max|E₁ − E₂| ≤ 2γ_{a+d_k+3}·Escale; allowed entries get + (−0) exactly,
      masked ones underflow to weight 0 (scores ≪ 1e9 by the strategies, one allowed key per row);
    * softmax: ‖s(E₁) − s(E₂)‖₁ ≤ e^{2δ} − 1 ≤ 4δ; pyref's own rounding (x − max: u·|x − max| ≤
      2u·Escale, exp ≤ 2u, sum γ_T, division u) moves each side by ≤ 2γ_{T+7}(1 + 2·Escale) in ℓ₁;
    * output: ‖Δw‖₁·Vmax plus 2γ_T·Vmax for the two products.

    Total ≤ 18·γ_K·Vmax·(1 + Escale) with K = a + d_k + T + 10, i.e. ``fp_bound(9K, Vmax(1+Escale))``
    (γ_{9K} ≥ 9γ_K). mp: the harness' 50-digit bound on the same scale."""
    K = a + dk + T + 10
    scale = Vmax * (1.0 + np.sqrt(dk) * Kmax * Qs)
    return bound(backend, 9 * K, scale), 9 * K, scale


def _queries_matter(mask) -> bool:
    """Non-vacuity: some query row attends ≥ 2 keys. A row with one allowed key has weight 1 on it
    whatever the queries and the operator; a fully masked row (additive mask) attends all T keys."""
    m = np.asarray(mask).reshape(-1, np.shape(mask)[-1])
    allowed = (m == 0).sum(axis=-1)
    return bool(np.any(allowed >= 2) or (m.shape[-1] >= 2 and np.any(allowed == 0)))


def _model_queries_matter(toks) -> bool:
    return _queries_matter(pyref.plga.causal_pad_mask(np.array([toks]))[0, 0])


def _tokens(lo=1, hi=6, pad=True):
    return st.lists(st.integers(0 if pad else 1, 10), min_size=lo, max_size=hi)


def _fwd_dev(o1, o2) -> float:
    """max deviation of decoder output (hidden) and logits between two forward passes."""
    return max(maxabs(o1.hidden - o2.hidden), maxabs(o1.logits - o2.logits))


def _fwd_scale(o) -> float:
    return max(1.0, maxabs(o.hidden), maxabs(o.logits))


# ================================================================ SDPA inclusion (multi-head)
@st.composite
def mha_inputs(draw, generic_G=False):
    d = draw(st.sampled_from([4, 8]))
    S = draw(st.integers(2, 6))        # S = 1: one key, weight 1 whatever the queries/operator
    X = draw(matrix(S, d, magnitude=MODEST))[None]
    seed = draw(st.integers(0, 2 ** 16))
    wscale = draw(MODEST)
    rng = np.random.default_rng(seed)
    p = {}
    for n in ("wq", "wk", "wv", "dense"):
        p[n + ".weight"] = rng.uniform(-1, 1, (d, d)) * wscale
        p[n + ".bias"] = rng.uniform(-1, 1, d) * wscale * draw(st.sampled_from([0.0, 1.0]))
    mask = random_mask(draw, S, S)[None, None]
    return d, X, p, mask, rng


@prop(theorems=[NS + "mha_one_eq_mhaSDPA", NS + "mha_smul_one_eq_mhaSDPA"],
      paper="SDPA inclusion, multi-head layer (G_h = I, and temperature form G_h = c·I)",
      strategy=lambda: st.tuples(mha_inputs(), POW2))
def mha_sdpa_inclusion(ex, backend, dps):
    """pyref's multi-head sublayer with the constant operator c·I in every head (``mode="constant"``)
    equals its separate SDPA code path (``mode="sdpa"``, no operator product), same projections,
    biases, RoPE and mask; c = 1 is ``mha_one_eq_mhaSDPA``. For c ≠ 1 the Lean right side is SDPA
    with scale s/c; pyref's SDPA has the fixed scale √d_k, so it is realized as SDPA on the queries
    c·Q̂ = RoPE(X (c·W_Q) + c·b_Q) (RoPE is linear; c·q̂ k̂ᵀ/s = q̂ k̂ᵀ/(s/c)).

    Bound 0 on both backends: c is a power of two, so c·W_Q, c·b_Q, the projection and the RoPE of
    c·Q equal c times the unscaled values exactly (scaling by 2^k commutes with binary rounding), and
    Q̂·(c·I) = c·Q̂ exactly (the other products are exact zeros); from the scores on, both paths run
    the same operations on bitwise-equal operands."""
    (d, X, p, mask, _), c = ex
    cfg = _cfg(1, d)
    H, dk = 2, d // 2
    o1, _ = _mha(backend, dps, cfg, p, X, mask, "constant", G=c * np.broadcast_to(np.eye(dk), (H, dk, dk)))
    q = dict(p)
    q["wq.weight"], q["wq.bias"] = c * p["wq.weight"], c * p["wq.bias"]
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "sdpa")
    with ctx(backend, dps):
        dev = maxabs(o1 - o2)
    return Outcome(dev, 0.0, met=_queries_matter(mask), note="" if dev == 0 else f"c={c}")


@st.composite
def model_case(draw, pad=True, layers=(1, 2)):
    L = draw(st.sampled_from(list(layers)))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(_tokens(2, 6, pad))     # length 1: attention weight 1 whatever the operator
    return L, d, seed, toks


@prop(theorems=[NS + "decoderLayer_one_eq_sdpaDecoderLayer", NS + "plgaDecoder_identityLayers_eq_sdpaDecoder",
                NS + "plgaDecoder_scalarLayers_eq_sdpaDecoder"],
      paper="SDPA inclusion, decoder layer and whole decoder (every layer pinned to I, or to c·I)",
      strategy=lambda: st.tuples(model_case(), POW2))
def decoder_sdpa_inclusion(ex, backend, dps):
    """pyref's ConstantGModel with G = c·I in every layer and head equals pyref's SDPAModel with the
    same weights (c = 1: the identity layers), at the decoder output and the logits, on token inputs
    with causal + pad masks; L = 1 is the single decoder layer (composed with pyref's embedding and
    head, which preserve the equality). For c ≠ 1 the SDPA side has W_Q, b_Q scaled by c in every
    layer (SDPA at scale s/c realized on the queries, as in ``mha_sdpa_inclusion``).

    Bound 0 on both backends, for the reason given in ``mha_sdpa_inclusion`` (c is a power of two):
    the two models execute the same operations on bitwise-equal operands."""
    (L, d, seed, toks), c = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 7)
    sd = state_dict_with_biases(pyref.ConstantGModel.random(cfg, seed=seed), rng)
    H, dk = cfg.num_heads, cfg.d_k
    plga = pyref.ConstantGModel.from_state_dict(sd, cfg, G=[c * np.broadcast_to(np.eye(dk), (H, dk, dk))] * L)
    sd2 = dict(sd)
    for l in range(L):
        for leaf in ("weight", "bias"):
            k = f"decoder.dec_layers.{l}.mha1.wq.{leaf}"
            sd2[k] = c * sd[k]
    sdpa = pyref.SDPAModel.from_state_dict(sd2, cfg)
    o1 = plga.forward([toks], backend=backend, dps=dps)
    o2 = sdpa.forward([toks], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = _fwd_dev(o1, o2)
    return Outcome(dev, 0.0, met=_model_queries_matter(toks))


# ===================================================================== zero values (converse i)
@prop(theorems=[NS + "mha_zero_values", NS + "values_zero", NS + "plgaAttention_zero_values"],
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
        Qhat = pyref.rope.apply_rope((X[0] @ p["wq.weight"].T + p["wq.bias"])[:, :dk], backend=backend, dps=dps)
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


@prop(theorems=[NS + "energyCurvature_zero_left", NS + "metricTensor_zero_ne_ones"],
      paper="G-cache converse failure (ii): the a = 0 degeneracy and the distinguishing metric tensors",
      strategy=witness_parts)
def converse_witness_components(ex, backend, dps):
    """The two ingredients of the formal counterexample, on pyref's functions:
    ``energy_curvature_tensor(A_P, a = 0, b_a) = b_a`` for any A_P (exact: 0·x and sums of zeros
    are exact, 0 + b = b), and with W = I, b = 0 the metric tensors of A = 0 and A = 𝟙𝟙ᵀ differ at
    entry (0,0): ``metric_tensor`` gives exactly ε (iSwiGLU(0) = 0) versus σ(1) + ε (Lean
    ``metricTensor_zero_ne_ones``; the values are checked, which implies ≠ since σ(1) ≈ 0.73).

    Bound: 0 for the exact parts; σ(1) + ε is compared with a 60-digit reference: float64 pyref
    evaluates 1·(1·σ(1)) + ε with σ = 1/(1 + e^{−1}) (exp ≤ 1 ulp, then +, ÷, ×, +), ≤ γ₆(σ(1)+ε) from
    exact, plus u for rounding the reference: ``fp_bound(6, 1 + ε)``; mp: 1e-40."""
    n, eps, AP, ba = ex
    G = pyref.plga.energy_curvature_tensor(AP, np.zeros((n, n)), ba, backend=backend, dps=dps)
    M0 = pyref.plga.metric_tensor(np.zeros((n, n)), np.eye(n), np.zeros((n, n)), eps=eps, backend=backend, dps=dps)
    M1 = pyref.plga.metric_tensor(np.ones((n, n)), np.eye(n), np.zeros((n, n)), eps=eps, backend=backend, dps=dps)
    b = pyref.get_backend(backend, dps)
    with b.context():
        e = b.const(eps)
        exact_dev = maxabs(G - b.asarray(ba)) + maxabs(np.array([M0[0, 0] - e]))
    with mpmath.workdps(60):
        ref = 1 / (1 + mpmath.exp(-1)) + (b.const(eps) if b.is_mp else mpmath.mpf(float(e)))
    with b.context():
        ref_b = +ref if b.is_mp else float(ref)
        approx_dev = abs(float(M1[0, 0] - ref_b))
    if exact_dev != 0:
        return Outcome(exact_dev + approx_dev, 0.0, note="exact part nonzero")
    return Outcome(approx_dev + float(M0[0, 0] == M1[0, 0]), bound(backend, 6, 1 + eps))


# ================================================================== collapse (Thm 5.4(ii))
@st.composite
def trajectory_case(draw):
    L, d, seed, toks = draw(model_case())
    other = draw(_tokens(1, 6))
    return L, d, seed, toks, other


@prop(theorems=[NS + "plgaDecoder_pinLayers_of_invariantAlong", NS + "run_eq_decoderLayer_of_gen_eq",
                NS + "model_collapse_on_reachable", NS + "plgaDecoder_gcache_prefill_exact",
                NS + "plgaDecoder_gcache_exact", NS + "decoderLayer_gcache_exact", NS + "pinned_run"],
      paper="Thm 5.4(ii) (inference collapse along a trajectory) and G-cache prefill exactness",
      strategy=trajectory_case)
def collapse_along_trajectory(ex, backend, dps):
    """Run pyref's full PLDR model (generic metric learner: nonzero biases, O(1) W, b, P, a, b_a) on
    tokens x, record every layer's G_LM along the trajectory (Lean ``opsAlong``), then (i) build
    the collapsed model with those operators pinned (``to_constant_operator(G=…)``, metric learner
    deleted) and (ii) rerun the full model with its G-cache filled from that pass. Both equal the
    full model on x, at the decoder output and the logits (the model-level statement composes the
    stack with pyref's embedding and head); L = 1 is the one-layer statement. (iii) ``pinned_run``:
    on a second input x', the G-cached full model (generators replaced by the cached constants)
    equals the pinned ConstantGModel, i.e. pyref's G-cache runs exactly the decoder layers with
    the constants (there the full model may differ: the converse direction is not claimed).

    Bound 0 on both backends: the pinned / cached operators are the recomputed ones bit for bit,
    and every other operation is the same on bitwise-equal operands."""
    L, d, seed, toks, other = ex
    cfg = _cfg(L, d)
    full = pyref.PLDRModel.from_state_dict(generic_plga_state_dict(cfg, seed), cfg)
    out = full.forward([toks], backend=backend, dps=dps)
    G = [dd["G_LM"][0] for dd in out.deductive]
    pinned = full.to_constant_operator(G=G)
    o_pin = pinned.forward([toks], backend=backend, dps=dps)
    o_gc = full.forward([toks], backend=backend, dps=dps, gcache=out.gcache)
    o_pin2 = pinned.forward([other], backend=backend, dps=dps)
    o_gc2 = full.forward([other], backend=backend, dps=dps, gcache=out.gcache)
    with ctx(backend, dps):
        dev = max(_fwd_dev(out, o_pin), _fwd_dev(out, o_gc), _fwd_dev(o_pin2, o_gc2))
    # InvariantAlong holds by construction (operators recorded on x)
    return Outcome(dev, 0.0, met=_model_queries_matter(toks))


@st.composite
def invariant_case(draw):
    L, d, seed, _ = draw(model_case())
    inputs = draw(st.lists(_tokens(1, 6), min_size=2, max_size=3))
    return L, d, seed, inputs


def _a_zero_sd(cfg, seed, Gstar):
    """A generic PLDR state dict with a = 0 and b_a = G*_l in every layer: G_LM ≡ G*_l."""
    sd = generic_plga_state_dict(cfg, seed)
    for l in range(cfg.num_layers):
        m = f"decoder.dec_layers.{l}.mha1.plgatt_layer."
        sd[m + "alst"] = np.zeros_like(sd[m + "alst"])
        sd[m + "balst"] = Gstar[l]
    return sd


@prop(theorems=[NS + "plgaDecoder_collapse", NS + "plgaDecoder_collapse_on_closed_set",
                NS + "plgaDecoder_collapse_on_reachable", NS + "plgaDecoder_gcache_exact"],
      paper="Thm 5.4(ii) (exact input invariance: the full decoder is the collapsed one on every input)",
      strategy=invariant_case)
def collapse_exact_invariance(ex, backend, dps):
    """A PLDR model whose generators are exactly input invariant (a = 0, b_a = G*_l, so G_LM = G*_l
    for every input: ``ExactlyInvariant``, hence constant on every closed/reachable set) equals the
    collapsed ConstantGModel with G*_l pinned on each of 2–3 drawn token inputs (decoder output and
    logits), and a G-cache filled on the first input is exact on every other input
    (``plgaDecoder_gcache_exact``: the recomputed operators there equal the cached ones). The
    hypothesis is verified, not assumed: every recorded G_LM must equal G*_l (part of the deviation).

    Bound 0 on both backends: a·A_P with a = 0 is an exact zero, so G_LM = b_a bit for bit, and the
    compared models then run the same operations on bitwise-equal operands."""
    L, d, seed, inputs = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 3)
    Gstar = [rng.uniform(-1, 1, (cfg.num_heads, cfg.d_k, cfg.d_k)) for _ in range(L)]
    full = pyref.PLDRModel.from_state_dict(_a_zero_sd(cfg, seed, Gstar), cfg)
    pinned = full.to_constant_operator(G=Gstar)
    dev = 0.0
    cache = None
    for toks in inputs:
        out = full.forward([toks], backend=backend, dps=dps)
        cache = cache or out.gcache
        o_pin = pinned.forward([toks], backend=backend, dps=dps)
        o_gc = full.forward([toks], backend=backend, dps=dps, gcache=cache)
        with ctx(backend, dps):
            Gb = conv(backend, dps, *Gstar)
            dev = max(dev, _fwd_dev(out, o_pin), _fwd_dev(out, o_gc),
                      max(maxabs(dd["G_LM"][0] - g) for dd, g in zip(out.deductive, Gb)))
    return Outcome(dev, 0.0, met=any(_model_queries_matter(t) for t in inputs))


@st.composite
def converse_case(draw):
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(1, 5))
    x1 = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S))
    x2 = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S))
    h0 = draw(st.integers(0, 1))
    return d, seed, x1, x2, h0


@prop(theorems=[NS + "gcache_exact_converse_fails"],
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
            dev = max(dev, _fwd_dev(o, full.forward([x], backend=backend, dps=dps, gcache=o1.gcache)))
            dev = max(dev, _fwd_dev(o, pinned.forward([x], backend=backend, dps=dps)))
        dA = maxabs(o1.deductive[0]["A"][0, h0] - o2.deductive[0]["A"][0, h0])
        dALM = maxabs(o1.deductive[0]["A_LM"][0, h0] - o2.deductive[0]["A_LM"][0, h0])
    distinct = dA > 1e-30 and dALM > 1e-30
    return Outcome(dev + (0.0 if distinct else 1.0), 0.0, met=x1 != x2)


# ============================================================================ softmax facts
def score_row():
    """(scores, allowed-key mask) rows: ``attention.score_rows`` without its shift."""
    return score_rows().map(lambda ex: ex[:2])


@prop(theorems=[NS + "maskedSoftmax_eq_mul_inv"],
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
    return Outcome(dev, bound(backend, len(x) + 5, 1 + 2 * np.max(np.abs(x))))


@st.composite
def avg_inputs(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S, T, dv = draw(st.integers(1, 6)), draw(st.integers(1, 6)), draw(st.integers(1, 4))
    Q = draw(matrix(S, dk, magnitude=MODEST, structure=False))
    K = draw(matrix(T, dk, magnitude=MODEST))
    V = draw(matrix(T, dv, magnitude=st.sampled_from([1.0, 1e-3, 1e3])))
    G = draw(st.one_of(st.none(), matrix(dk, dk, magnitude=MODEST, structure=False)))
    return Q, K, V, G, random_mask(draw, S, T)


@prop(theorems=[NS + "maskedSoftmax_avg_le"],
      paper="Prop 5.2 / authors' softmax_avg_le (an attention output never exceeds its largest allowed value)",
      strategy=avg_inputs)
def attention_average_below_max(ex, backend, dps):
    """Every entry of pyref's per-head attention output softmax_M(Q̂GK̂ᵀ/√d_k) V is at most the
    largest value V[p, j] over the keys p its row may attend (the statement with v = V[:, j] and M
    that maximum). Magnitudes keep |scores| ≤ 10·80·10·√8 < 3e4, so the −1e9 mask underflows to
    weight 0 in float64 and to < e^{−9e8} at 50 digits: the ideal mask of the Lean statement.

    float64 bound (violation max(0, O − M)): Σŵ_i v_i with ŵ ≥ 0 and v_i ≤ M on allowed keys is
    ≤ M·Σŵ_i ≤ M + γ_{T+2}|M| (normalization round-off), plus γ_T·Σŵ|v| for the sum:
    ≤ 2γ_{T+3}·max|V| = ``fp_bound(T+3, max|V|)``."""
    Q, K, V, G, mask = ex
    O, _ = pyref.plga.plga_attention(Q, K, V, G, mask=mask, backend=backend, dps=dps)
    viol = 0.0
    with ctx(backend, dps):
        for t in range(Q.shape[0]):
            Mx = conv(backend, dps, V[mask[t] == 0].max(axis=0))[0]    # largest allowed value per column
            viol = max(viol, float(np.max(to_float64(O[t] - Mx))))      # difference taken in the backend
    return Outcome(viol, bound(backend, K.shape[0] + 3, np.max(np.abs(V))))


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
    bq = draw(matrix(1, H * dk, magnitude=MODEST, structure=False))[0] * draw(st.sampled_from([0.0, 1.0]))
    kind = draw(st.sampled_from(["rope", "rope", "norope"]))
    if kind == "rope":
        G = np.stack([_commuting_op(draw(matrix(dk // 2, 2, magnitude=MODEST, structure=False))) for _ in range(H)])
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


@prop(theorems=[NS + "absorb_operator_linear", NS + "affine_mul", NS + "rotRows_mul_of_commute",
                NS + "splitHead_affine_absorb", NS + "queries_absorbParams", NS + "rotRows_noRope",
                NS + "noRope_commutes"],
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
                exact += maxabs(pyref.rope.apply_rope(Q[:, s], positions=pos, backend=backend, dps=dps) - Q[:, s])
                exact += maxabs(R0 @ Gb[h] - Gb[h] @ R0)
    if exact:
        return Outcome(exact + dev, 0.0, note="position-0 RoPE is not exactly the identity")
    return Outcome(dev, bound(backend, n + dk + 7, _Qscale(X, wq, bq, G)))


@st.composite
def single_head_case(draw):
    dk = draw(st.sampled_from([2, 4, 6]))
    n, S, T, dv = draw(st.integers(1, 5)), draw(st.integers(1, 6)), draw(st.integers(2, 6)), draw(st.integers(1, 3))
    X = draw(matrix(S, n, magnitude=MODEST))
    W = draw(matrix(n, dk, magnitude=MODEST, structure=False))
    bias = draw(matrix(1, dk, magnitude=MODEST, structure=False))[0] * draw(st.sampled_from([0.0, 1.0]))
    K = draw(matrix(T, dk, magnitude=MODEST))
    V = draw(matrix(T, dv, magnitude=MODEST, structure=False))
    rope = draw(st.booleans())
    if rope:
        G = _commuting_op(draw(matrix(dk // 2, 2, magnitude=MODEST, structure=False)))
    else:
        G = draw(matrix(dk, dk, magnitude=MODEST))
    return X, W, bias, G, K, V, random_mask(draw, S, T), rope


@prop(theorems=[NS + "plgaAttention_absorb", NS + "plgaAttention_rope_absorb"],
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
    bnd, _, _ = _attn_bound(backend, X.shape[1] + dk + 7, dk, K.shape[0], _Qscale(X, W.T, bias, G[None]),
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


@prop(theorems=[NS + "mha_eq_mhaSDPA_absorbParams", NS + "mha_eq_mhaSDPA_absorbParams_noRope"],
      paper="Thm 5.4(ii) absorption, multi-head layer (PLGA with constant G*_h = SDPA with absorbParams)",
      strategy=mha_absorb_case)
def mha_absorption(ex, backend, dps):
    """pyref's multi-head sublayer with constant per-head operators G*_h (``mode="constant"``) equals
    its SDPA path (``mode="sdpa"``) with W_Q, b_Q reparametrized per head (:func:`_absorb`, Lean
    ``absorbParams``), same K, V, W_O, b_O, mask. With RoPE, G*_h is block-diagonal a·1 + b·J
    (commuting); without RoPE (pyref's rotation replaced by the identity for the call, Lean
    ``noRope``) G*_h is arbitrary.

    float64 bound: per head :func:`_attn_bound` (a = d + d_k + 7, Qs from :func:`_Qscale`,
    Kmax/Vmax of the computed K̂, V, identical on both sides), then the output projection:
    |Δout| ≤ d·max|W_O|·β_head + 2γ_{d+1}(d·max|O|·max|W_O| + max|b_O|), covered by
    ``fp_bound(9K + d + 2, 2(d·max|W_O|·scale + max|b_O|))`` with K, scale from :func:`_attn_bound`."""
    d, X, p, mask, G, rope = ex
    cfg = _cfg(1, d)
    dk = d // 2
    S = X.shape[1]
    o1, kv = _mha(backend, dps, cfg, p, X, mask, "constant", G=G, no_rope=not rope)
    b = pyref.get_backend(backend, dps)
    with b.context():
        Wb, Bb, Gb = conv(backend, dps, p["wq.weight"], p["wq.bias"], G)
        q = dict(p)
        q["wq.weight"], q["wq.bias"] = _absorb(Wb, Bb, Gb)           # mpf arrays at 50 digits for mp
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "sdpa", no_rope=not rope)
    with ctx(backend, dps):
        dev = maxabs(o1 - o2)
        Kmax, Vmax = maxabs(kv[0]), maxabs(kv[1])
    _, k, scale = _attn_bound(backend, d + dk + 7, dk, S, _Qscale(X[0], p["wq.weight"], p["wq.bias"], G),
                              Kmax, Vmax)
    Wo, bo = np.max(np.abs(p["dense.weight"])), np.max(np.abs(p["dense.bias"]))
    return Outcome(dev, bound(backend, k + d + 2, 2 * (d * Wo * scale + bo)), met=_queries_matter(mask))


@st.composite
def decoder_absorb_case(draw):
    L, d, seed, toks = draw(model_case(pad=False))
    kind = draw(st.sampled_from(["pinned", "invariant", "norope"]))
    return L, d, seed, toks, kind


def _dyadic_absorb_setup(cfg, rng, commuting):
    """Per-layer W_Q, b_Q with entries k/64 and G*_h with entries k/8: every entry of G_hᵀ wq_h and
    bq_h G_h is a sum of ≤ d_k terms k/512 with |k| ≤ 2^11, so the absorbed weights are exact in
    float64 (pyref's state dicts are float64) and the 50-digit comparison sees no weight rounding."""
    H, dk, d = cfg.num_heads, cfg.d_k, cfg.d_model
    out = []
    for _ in range(cfg.num_layers):
        wq = rng.integers(-64, 65, (d, d)) / 64.0
        bq = rng.integers(-64, 65, d) / 64.0
        if commuting:
            G = np.stack([_commuting_op(rng.integers(-16, 17, (dk // 2, 2)) / 8.0) for _ in range(H)])
        else:
            G = rng.integers(-16, 17, (H, dk, dk)) / 8.0
        wq2, bq2 = _absorb(wq, bq, G)
        with mpmath.workdps(60):   # exactness of the float64 absorption, verified
            e1, e2 = _absorb(pyref.to_mp(wq, 60), pyref.to_mp(bq, 60), pyref.to_mp(G, 60))
            assert np.all(e1 == pyref.to_mp(wq2, 60)) and np.all(e2 == pyref.to_mp(bq2, 60))
        out.append((wq, bq, G, wq2, bq2))
    return out


@prop(theorems=[NS + "decoderLayer_eq_sdpaDecoderLayer_absorb", NS + "plgaDecoder_pinLayers_eq_sdpaDecoder",
                NS + "plgaDecoder_eq_sdpaDecoder_of_invariantAlong", NS + "plgaDecoder_eq_sdpaDecoder_noRope"],
      paper="Thm 5.4(ii): the collapsed / input-invariant PLDR decoder is an SDPA decoder with W_Q G*, b_Q G*",
      strategy=decoder_absorb_case, backends=("mp",))
def decoder_absorption(ex, backend, dps):
    """Whole-decoder absorption on pyref's models (decoder output and logits), against pyref's
    SDPAModel whose W_Q, b_Q are reparametrized per layer and head (:func:`_absorb`):
    "pinned": ConstantGModel with RoPE-commuting G*_l (``plgaDecoder_pinLayers_eq_sdpaDecoder``;
    L = 1: ``decoderLayer_eq_sdpaDecoderLayer_absorb``); "invariant": the full PLDR model with
    a = 0, b_a = G*_l commuting, so G_LM = G*_l along every trajectory (verified), with RoPE
    (``plgaDecoder_eq_sdpaDecoder_of_invariantAlong``); "norope": the same with arbitrary G*_l and
    pyref's rotation replaced by the identity in both models (``plgaDecoder_eq_sdpaDecoder_noRope``).
    Tokens avoid the pad id, so no row is fully masked.

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
    for l, (wq, bq, G, wq2, bq2) in enumerate(setup):
        m = f"decoder.dec_layers.{l}.mha1.wq."
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
            dev += sum(maxabs(dd["G_LM"][0] - g) for dd, g in zip(o1.deductive, conv(backend, dps, *Gs)))
        scale = max(_fwd_scale(o1), _fwd_scale(o2))
    return Outcome(dev, bound(backend, 10 ** 4, scale), met=_model_queries_matter(toks))
