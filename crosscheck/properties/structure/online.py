"""Cross-check properties of ``Formal/Structure/Online.lean``: ``causal_block_equals_online``,
``global_gram_not_prefix_consistent``, ``cumulative_gram_running_sum`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, combine, prop
from ...spec_eval import decode as dc
from ...spec_eval import model as ev
from ...strategies import matrix
from .._arith import bound, ctx, maxabs
from .._util import generic_plga_state_dict, state_dict_with_biases
from ..spec._shared import cmp, ev_ctx
from ._shared import _phi_res_mat, _ub

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Online.online_causal":
        "holds for every function by construction (onlineOut reads F on x.take t, so equal "
        "prefixes give equal arguments); nothing numeric beyond the row-locality checked by "
        "causal_block_equals_online",
    "PLGA.Online.constNil_prefixConsistent":
        "the empty decoder (no output rows) has no pyref counterpart; a logical remark about the "
        "definition",
    "PLGA.Online.constNil_not_prefixConsistentShaped":
        "the empty decoder has no pyref counterpart; a logical remark about the definition",
    "PLGA.Online.rowMapDecoder_getElem?":
        "definitional (list indexing of rowMapDecoder); its pyref instance (block row t = "
        "f(x_{≤t})) is checked by causal_block_equals_online",
    "PLGA.Online.rowMapDecoder_lengthPreserving":
        "List.map/range length lemma; pyref's decoders return one row per token (checked as part "
        "of causal_block_equals_online)",
    "PLGA.Online.globalSumDecoder_lengthPreserving":
        "length of List.map for the toy decoder x ↦ x + Σx; no pyref counterpart",
    "PLGA.Online.rowLocal_id":
        "the identity decoder is causal; logical, no pyref counterpart",
    "PLGA.Online.cumGramLayer_rowLocal":
        "logical consequence of rowMapDecoder_rowLocal; pyref has no causal-Gram layer, its rows "
        "(online PLDR calls) are checked by global_gram_not_prefix_consistent "
        "(cumGramLayer_getElem?)",
    "PLGA.Online.cumGramLayer_prefixConsistentShaped":
        "logical consequence of rowMapDecoder_prefixConsistentShaped for the abstract "
        "cumGramLayer, which pyref does not implement as a block layer",
}


def _cfg(L: int, d: int) -> pyref.PLDRConfig:
    return pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=2, dff=6, a_dff=4, num_res_units=1,
                            num_glu_blocks=2, vocab_size=11, max_seq_len=16)


# ================================================ 3. online contract on a causal model
@st.composite
def causal_case(draw):
    L = draw(st.sampled_from([1, 2]))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(2, 6))
    # first token not the pad id: a row whose keys are all pads is fully masked, and the authors'
    # additive −1e9 mask then shifts every score of that row equally, so it attends every key,
    # future ones included (pyref reproduces this; such a row is not causal)
    x = [draw(st.integers(1, 10))] + draw(st.lists(st.integers(0, 10), min_size=S - 1,
                                                   max_size=S - 1))
    r = draw(st.integers(0, S - 1))
    suffix = draw(st.lists(st.integers(0, 10), min_size=0, max_size=3))
    prompt = draw(st.lists(st.integers(1, 10), min_size=1, max_size=3))
    steps = draw(st.integers(2, 4))   # ≥ 2: at least one KV-cached call after the prefill
    return L, d, seed, x, r, suffix, prompt, steps


def _fwd_dev(o1, i1, o2, i2):
    return max(maxabs(o1.logits[0, i1] - o2.logits[0, i2]),
               maxabs(o1.hidden[0, i1] - o2.hidden[0, i2]))


@prop(theorems=["PLGA.Online.stack_block_eq_online", "PLGA.Online.block_eq_online_of_shaped",
                "PLGA.Online.prefixConsistentShaped_getElem",
                "PLGA.Online.prefixConsistentShaped_of_rowLocal",
                "PLGA.Online.prefixConsistent_of_rowLocal",
                "PLGA.Online.rowMapDecoder_block_eq_online", "PLGA.Online.rowMapDecoder_rowLocal",
                "PLGA.Online.rowMapDecoder_prefixConsistent",
                "PLGA.Online.rowMapDecoder_prefixConsistentShaped", "PLGA.Online.stack_rowLocal",
                "PLGA.Online.stack_foldl_rowLocal", "PLGA.Online.stack_foldl_lengthPreserving",
                "PLGA.Online.rowLocal_comp", "PLGA.Online.rowLocal_take"],
      paper="Rem 4.7 / Def 4.8 (a causal decoder stack: block scoring = sequential scoring = "
            "KV-cached decoding)",
      strategy=causal_case, backends=("mp",))
def causal_block_equals_online(ex, backend, dps):
    """pyref's ConstantGModel (constant per-layer operator G, random biases; no Gram, so every layer
    is row-local: a Lean ``stack`` of causal, length-preserving layers, composed with the row-wise
    embedding and head) on tokens x (first token not the pad id):

    * block = sequential (``stack_block_eq_online``, ``block_eq_online_of_shaped``,
      ``prefixConsistentShaped_getElem``, the
      ``rowMapDecoder`` form with f(prefix) = last row of the forward on the prefix): row t of the
      block forward equals the last row of the forward on x[:t+1] (logits and decoder output);
    * row-locality (``stack_rowLocal``, ``rowLocal_take``, ``rowLocal_comp``): a sequence y sharing
      x's first r+1 tokens (then a different suffix) has the same rows 0…r;
    * length preservation: one output row per token;
    * KV-cached greedy decoding (``generate(prompt, n, kvcache=True, gcache=False)``, n ≥ 2, so at
      least one cached call): step i's logits equal row S0−1+i of the block forward on the final
      token sequence (the sequential scoring realized by the cache; the pad logit's bias is −50,
      so greedy decoding never emits the pad id, which cached calls would not mask, spec B).

    * formula anchor: the block logits equal the decoder with the constant operators assembled by
      the independent evaluator (:mod:`crosscheck.spec_eval.decode`, 1e-40·scale).

    Would fail if a cached call rotated the new token at position n_cached + 1. (The full PLGA
    model's KV-cached path — frozen prefill A, so not prefix-consistent — is checked against spec B
    by ``model_forward_matches_spec`` and ``model_generate_matches_spec``.)

    mp only. Both sides perform the same mpf operations on the same operands, except that the block
    forward's masked keys contribute softmax weights e^{−10⁹+O(1)} < 10^{−4·10⁸}, which vanish in
    the 50-digit rounding of every sum they join; the harness bound 1e-40·scale (scale = max(1,
    |logits|, |hidden|)) is therefore far above the possible deviation. A float64 bound would need a
    network-wide round-off analysis (BLAS blocking differs between a block of S rows and a
    prefix)."""
    L, d, seed, x, r, suffix, prompt, steps = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 13)
    base = pyref.ConstantGModel.random(cfg, seed=seed)
    sd = state_dict_with_biases(base, rng)
    sd["final_layer.bias"][0] = -50.0
    Gs = [rng.uniform(-1, 1, (cfg.num_heads, cfg.d_k, cfg.d_k)) for _ in range(L)]
    model = pyref.ConstantGModel.from_state_dict(sd, cfg, G=Gs)
    S = len(x)
    blk = model.forward([x], backend=backend, dps=dps)
    parts = []
    scale = 1.0
    with ctx(backend, dps):
        scale = max(scale, maxabs(blk.logits), maxabs(blk.hidden))
        shape_bad = float(blk.logits.shape[1] != S or blk.hidden.shape[1] != S)
    dev_pre = 0.0
    for t in range(S):
        o = model.forward([x[:t + 1]], backend=backend, dps=dps)
        with ctx(backend, dps):
            dev_pre = max(dev_pre, _fwd_dev(blk, t, o, t))
            shape_bad += float(o.logits.shape[1] != t + 1)
    y = x[:r + 1] + suffix
    oy = model.forward([y], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev_loc = max(_fwd_dev(blk, i, oy, i) for i in range(r + 1))
    g = model.generate(prompt, steps, kvcache=True, gcache=False, backend=backend, dps=dps)
    toks = [int(t) for t in g.tokens[0]]
    full = model.forward([toks], backend=backend, dps=dps)
    S0 = len(prompt)
    with ctx(backend, dps):
        dev_kv = max(maxabs(sl[0] - full.logits[0, S0 - 1 + i])
                     for i, sl in enumerate(g.step_logits))
        scale = max(scale, maxabs(full.logits))
    bnd = bound(backend, 10 ** 4, scale)
    parts += [("length preservation", shape_bad, 0.0),
              ("block row t = forward(x[:t+1]) last row", dev_pre, bnd),
              ("row-locality (shared prefix)", dev_loc, bnd),
              ("KV-cached step logits = block rows", dev_kv, bnd),
              ("greedy decoding emitted the pad id", float(0 in toks[:-1]), 0.0)]
    with ev_ctx(dps):   # formula anchor: the block forward = the evaluator's pinned decoder
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg, learned=False)
        ch = Checks()
        cmp(ch, "block logits = the Lean decoder with the constant operators", blk.logits[0],
            dc.forward(F, M, x, ops="constant", G=dc.constantOps(Gs))["logits"], "mp")
    return combine(parts + ch.items)


# ============================= 4. the global Gram is not prefix-consistent; the causal fix
def _layer0_queries(sd, cfg, toks, b):
    """Rotated queries q̂ [H, S, d_k] of layer 0, from pyref's public functions exactly as its
    forward computes them (embedding·√d, LN_emb, W_Q x + b_Q, per-head RoPE at positions 0…S−1)."""
    d, H, dk = cfg.d_model, cfg.num_heads, cfg.d_k
    be, dps = b.name, b.dps
    with b.context():
        E = b.asarray(sd["decoder.embedding.weight"])[np.asarray(toks)] * b.sqrt(b.const(d))
        X = pyref.layers.layer_norm(E, sd["decoder.layernorm1.weight"],
                                    sd["decoder.layernorm1.bias"],
                                    eps=cfg.ln_eps, backend=be, dps=dps)
        q = pyref.layers.linear(X, sd["decoder.dec_layers.0.mha1.wq.weight"],
                                sd["decoder.dec_layers.0.mha1.wq.bias"],
                                backend=be, dps=dps)
        qh = np.ascontiguousarray(np.transpose(q.reshape(len(toks), H, dk), (1, 0, 2)))
        return pyref.rope.apply_rope(qh, positions=list(range(len(toks))), base=cfg.rope_base,
                                     backend=be, dps=dps)


def _layer0_head_A(sd, cfg, D, b):
    """Everything the layer does to a Gram D before the metric tensor: LN_A then Φ_res
    (pyref's public functions, the model's own parameters)."""
    m = "decoder.dec_layers.0.mha1."
    units = []
    for u in range(cfg.num_res_units):
        r = m + f"reslayerAs.{u}."
        blocks = [tuple(sd[r + f"denseAs.{g}.{n}"]
                        for n in ("gluw1.weight", "gluw1.bias", "gluw2.weight", "gluw2.bias",
                                                            "gluw3.weight", "gluw3.bias"))
                  for g in range(cfg.num_glu_blocks)]
        units.append({"blocks": blocks, "gamma": sd[r + "layernormA.weight"],
                      "beta": sd[r + "layernormA.bias"]})
    return _phi_res_mat(D, sd[m + "layernorm1.weight"], sd[m + "layernorm1.bias"], units,
                        cfg.ln_eps, b.name, b.dps)


@st.composite
def global_case(draw):
    L = draw(st.sampled_from([1, 1, 2]))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(3, 6))
    x = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S,
                      unique=draw(st.sampled_from([True, True, False]))))
    z = draw(matrix(3, d // 2, structure=False))
    return L, d, seed, x, z


def _causal_gram_parts(b, backend, dps, model, inputs, blk, pres):
    """The causal cumulative Gram on layer 0's rotated queries: gram_append (the running sum of
    q̂_t q̂_tᵀ is D_t), gram_quadratic_nonneg (z_kᵀ D_t z_k ≥ 0), and the A of layer 0 head 0 in the
    online calls (``pres``) from D_t and in the block call (``blk``) from D_{S−1}; model =
    (state dict, config, d), inputs = (tokens x, test vectors z)."""
    sd, cfg, d = model
    x, z = inputs
    S = len(x)
    parts = []
    qh = _layer0_queries(sd, cfg, x, b)                                   # [H, S, dk]
    with b.context():
        zb = b.asarray(z)
        qf = to_float64(qh)
        T = float(np.max(np.swapaxes(np.abs(qf), -1, -2) @ np.abs(qf)))
        run = None
        for t in range(S):
            o = pyref.plga.density(qh[:, t:t + 1, :], backend=backend, dps=dps)     # q̂_t q̂_tᵀ
            run = o if run is None else run + o
            Dt = pyref.plga.density(qh[:, :t + 1, :], backend=backend, dps=dps)
            parts.append((f"gram_append t={t}", maxabs(run - Dt), bound(backend, S + 1, T)))
            quad = np.sum((zb @ Dt) * zb, axis=-1)                          # [H, 3]: z_kᵀ D_t z_k
            Tz = float(np.max(np.sum((np.abs(z) @ np.abs(to_float64(Dt))) * np.abs(z), axis=-1)))
            parts.append((f"gram_quadratic_nonneg t={t}",
                          max(0.0, -float(np.min(to_float64(quad)))),
                          bound(backend, 2 * (d // 2) + 2, Tz)))
            A_on = _layer0_head_A(sd, cfg, run, b)
            with b.context():
                scale = max(1.0, maxabs(A_on))
                parts.append((f"online call uses the causal Gram D_t, t={t}",
                              maxabs(pres[t].deductive[0]["A"][0] - A_on),
                              bound(backend, 10 ** 4, scale)))
        A_blk = _layer0_head_A(sd, cfg, run, b)
        parts.append(("block call uses the global Gram D_{S-1}",
                      maxabs(blk.deductive[0]["A"][0] - A_blk),
                      bound(backend, 10 ** 4, max(1.0, maxabs(A_blk)))))
    return parts


@prop(theorems=["PLGA.Online.globalGramLayer_not_prefixConsistent",
                "PLGA.Online.globalSumDecoder_not_prefixConsistent",
                "PLGA.Online.globalSumDecoder_not_prefixConsistentShaped",
                "PLGA.Online.gram_append", "PLGA.Online.gramAux_append",
                "PLGA.Online.gram_quadratic_nonneg", "PLGA.Online.gramAux_quadratic_nonneg",
                "PLGA.Online.cumGramLayer_getElem?", "PLGA.Online.cumGramLayer_block_eq_online"],
      paper="Rem 4.7 / Def 4.8 (PLGA's global Gram is not prefix-consistent; the causal cumulative "
            "Gram D_t is the fix)",
      strategy=global_case, backends=("mp",))
def global_gram_not_prefix_consistent(ex, backend, dps):
    """pyref's PLDR model (generic O(1) operator parameters, nonzero biases; tokens without pad):

    * the converse witness (``globalGramLayer_not_prefixConsistent``, and the PLGA instance of
      ``globalSumDecoder_not_prefixConsistent(Shaped)``: rows see the whole sequence): some row
      1 ≤ t ≤ S−2 of the block forward differs from the last row of the forward on x[:t+1] by more
      than 1e-30 (10¹⁰ times the 50-digit bound, so the exact values differ). Row 0 attends only key
      0 (weight 1 whatever G), row S−1 is the full sequence, and a row whose keys are copies of one
      token averages equal value vectors whatever G, so met requires S ≥ 3 and two distinct tokens
      in x[:S−1]. Also the
      Lean witness itself on ``pyref.plga.density``: d = 1, q̂ = x = [0, 1], head D = D₀₀: the block
      Gram gives 1, the prefix Gram 0 (exact);
    * the fix, the causal cumulative Gram D_t = Σ_{p≤t} q̂_p q̂_pᵀ (``gram_append``): with layer 0's
      rotated queries (recomputed with pyref's public functions), the running sum D_{t−1} +
      density(q̂_t) equals ``pyref.plga.density`` of the prefix, and zᵀD_t z ≥ 0
      (``gram_quadratic_nonneg``) for three random z per head;
    * ``cumGramLayer_getElem?`` / ``cumGramLayer_block_eq_online``: the online (sequential) call on
      x[:t+1] computes A = Φ_res(LN_A(D_t)) from the causal Gram D_t (pyref's deductive ``A`` equals
      LN_A and Φ_res applied to the running sum): sequential scoring of pyref IS the cumulative-Gram
      layer, while the block call uses D_{S−1} for every row (checked: its A is
      Φ_res(LN_A(D_{S−1}))).

    mp only: the witness is a claim about exact inequality, certified by the 50-digit margin
    (float64 has no rigorous round-off bound through Φ_res and the network). The Gram identities
    compare the same mpf operations in the same order (pyref's object-array matmul sums p = 0, 1, …
    left to right, like the running sum), then identical LN_A/Φ_res calls: bound 1e-40·scale."""
    L, d, seed, x, z = ex
    cfg = _cfg(L, d)
    sd = generic_plga_state_dict(cfg, seed)
    model = pyref.PLDRModel.from_state_dict(sd, cfg)
    b = pyref.get_backend(backend, dps)
    S = len(x)
    blk = model.forward([x], backend=backend, dps=dps)
    pres = [model.forward([x[:t + 1]], backend=backend, dps=dps) for t in range(S)]
    parts = []
    with b.context():
        wit = max([maxabs(blk.logits[0, t] - pres[t].logits[0, -1]) for t in range(1, S - 1)],
                  default=0.0)
    parts.append((f"no witness row (max deviation {float(wit):.3e})", 0.0 if wit > 1e-30 else 1.0,
                  0.0))   # arb: `>` holds only when certain
    # the Lean witness on pyref's density: x = [0, 1], d = 1, head D = D00
    Db = pyref.plga.density(np.array([[0.0], [1.0]]), backend=backend, dps=dps)
    Dp = pyref.plga.density(np.array([[0.0]]), backend=backend, dps=dps)
    parts.append(("Lean witness [0, 1]", abs(float(Db[0, 0]) - 1.0) + abs(float(Dp[0, 0])), 0.0))
    parts += _causal_gram_parts(b, backend, dps, (sd, cfg, d), (x, z), blk, pres)
    # a witness needs a row 1 ≤ t ≤ S−2 whose allowed keys carry different values: rows attending
    # only copies of one token average identical value vectors whatever the weights (and G)
    return combine(parts, met=S >= 3 and len(set(x[:S - 1])) >= 2)


@st.composite
def gram_case(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S = draw(st.integers(1, 8))
    Q = draw(matrix(S, dk))
    z = draw(matrix(1, dk, structure=False))[0]
    return Q, z


@prop(theorems=["PLGA.Online.gram_append", "PLGA.Online.gramAux_append",
                "PLGA.Online.gram_quadratic_nonneg", "PLGA.Online.gramAux_quadratic_nonneg",
                "PLGA.Online.dot_mulVec_add", "PLGA.Online.dot_mulVec_outer"],
      paper="Def 4.8 (the causal Gram's O(d²) online update D_t = D_{t−1} + q̂_t q̂_tᵀ, PSD on "
            "every prefix)",
      strategy=gram_case)
def cumulative_gram_running_sum(ex, backend, dps):
    """Rotated queries q̂_p = RoPE(Q)_p at positions 0…S−1 (``pyref.rope.apply_rope``): the running
    sum D_t = D_{t−1} + q̂_t q̂_tᵀ (outer products from ``pyref.plga.density`` of one row) equals
    ``pyref.plga.density`` of the prefix (``gram_append``); zᵀD_t z ≥ 0 (``gram_quadratic_nonneg``);
    zᵀ(D_{t−1} + q̂q̂ᵀ)z = zᵀD_{t−1}z + zᵀ(q̂q̂ᵀ)z (``dot_mulVec_add``) and zᵀ(q̂q̂ᵀ)z = (q̂·z)²
    (``dot_mulVec_outer``).

    float64 bounds: running sum and matmul are two orders of the same t+1 products, each within
    γ_{t+1}·(|Q̂|ᵀ|Q̂|): ``fp_bound(S+1, max |Q̂|ᵀ|Q̂|)``; quadratic forms within
    γ_{2d+2}·|z|ᵀ|A||z| of exact (``fp_bound(2d+2, ·)`` for a comparison of two). mp: 1e-40 times
    the same scales."""
    Q, z = ex
    S, dk = Q.shape
    b = pyref.get_backend(backend, dps)
    with b.context():
        qh = pyref.rope.apply_rope(b.asarray(Q), positions=list(range(S)), backend=backend, dps=dps)
        zb = b.asarray(z)
        qf = np.abs(to_float64(qh))
        T = float(np.max(qf.T @ qf))
        az = np.abs(z)
        parts = []
        run = None
        for t in range(S):
            o = pyref.plga.density(qh[t:t + 1], backend=backend, dps=dps)
            if run is not None:
                lhs = zb @ ((run + o) @ zb)
                rhs = zb @ (run @ zb) + zb @ (o @ zb)
                Ts = float(az @ (np.abs(to_float64(run)) + np.abs(to_float64(o))) @ az)
                parts.append(("dot_mulVec_add", maxabs(np.array([lhs - rhs])),
                              _ub(backend, 2 * dk + 2, Ts)))
            qz = qh[t] @ zb
            parts.append(("dot_mulVec_outer", maxabs(np.array([zb @ (o @ zb) - qz * qz])),
                          _ub(backend, 2 * dk + 2, float(qf[t] @ az) ** 2)))
            run = o if run is None else run + o
            Dt = pyref.plga.density(qh[:t + 1], backend=backend, dps=dps)
            parts.append(("gram_append", maxabs(run - Dt), _ub(backend, S + 1, T)))
            quad = zb @ (Dt @ zb)
            parts.append(("gram_quadratic_nonneg", max(0.0, -float(quad)),
                          _ub(backend, 2 * dk + 2, float(az @ np.abs(to_float64(Dt)) @ az))))
    return combine(parts)
