"""Cross-check properties of ``Formal/Attention/MultiHead.lean``: ``mha_sdpa_inclusion``,
``decoder_sdpa_inclusion`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Outcome, prop
from .._arith import ctx, maxabs
from .._util import state_dict_with_biases
from ._shared import (
    _cfg,
    _fwd_dev,
    _mha,
    _model_queries_matter,
    _queries_matter,
    mha_inputs,
    model_case,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.headIdx_lt":
        "Nat index bound h·d_k + j < H·d_k (well-formedness of Fin indices); no computation",
    "PLGA.Attention.headDim_pos":
        "Nat fact (a feature index exists only if d_k > 0); no computation",
    "PLGA.Attention.headOf_headIdx":
        "Nat division identity (h·d_k + j)/d_k = h of the head split; pyref's reshape realizes it "
        "by construction",
    "PLGA.Attention.coordOf_headIdx":
        "Nat modulo identity (h·d_k + j) % d_k = j of the head split; pyref's reshape realizes it "
        "by construction",
    "PLGA.Attention.headIdx_headOf_coordOf":
        "Nat identity (c/d_k)·d_k + c % d_k = c of the head split; no computation",
    "PLGA.Attention.splitHead_concatHeads":
        "index algebra (split ∘ concat = id), exact data movement; pyref's head convention is "
        "exercised by mha_absorption, which absorbs G*_h into the headIdx block of W_Q",
    "PLGA.Attention.concatHeads_splitHead":
        "index algebra (concat ∘ split = id), exact data movement (numpy reshape); nothing "
        "numeric",
    "PLGA.Attention.splitVec_concatVec":
        "index algebra for bias vectors (split ∘ concat = id), exact data movement; nothing "
        "numeric",
}


POW2 = st.sampled_from([1.0, 0.5, 2.0, -1.0, 4.0, -0.25])


@prop(theorems=["PLGA.Attention.mha_one_eq_mhaSDPA", "PLGA.Attention.mha_smul_one_eq_mhaSDPA"],
      paper="SDPA inclusion, multi-head layer (G_h = I, and temperature form G_h = c·I)",
      strategy=lambda: st.tuples(mha_inputs(), POW2))
def mha_sdpa_inclusion(ex, backend, dps):
    """pyref's multi-head sublayer with the constant operator c·I in every head
    (``ConstantOperator``) equals its separate SDPA code path (``IdentityOperator``, no operator
    product), same projections, biases, RoPE and mask; c = 1 is ``mha_one_eq_mhaSDPA``. For c ≠ 1
    the Lean right side is SDPA with scale s/c; pyref's SDPA has the fixed scale √d_k, so it is
    realized as SDPA on the queries c·Q̂ = RoPE(X (c·W_Q) + c·b_Q) (RoPE is linear; c·q̂ k̂ᵀ/s = q̂
    k̂ᵀ/(s/c)).

    Bound 0 on both backends: c is a power of two, so c·W_Q, c·b_Q, the projection and the RoPE of
    c·Q equal c times the unscaled values exactly (scaling by 2^k commutes with binary rounding),
    and Q̂·(c·I) = c·Q̂ exactly (the other products are exact zeros); from the scores on, both
    paths run the same operations on bitwise-equal operands."""
    (d, X, p, mask, _), c = ex
    cfg = _cfg(1, d)
    H, dk = 2, d // 2
    o1, _ = _mha(backend, dps, cfg, p, X, mask, "constant",
                 G=c * np.broadcast_to(np.eye(dk), (H, dk, dk)))
    q = dict(p)
    q["wq.weight"], q["wq.bias"] = c * p["wq.weight"], c * p["wq.bias"]
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "sdpa")
    with ctx(backend, dps):
        dev = maxabs(o1 - o2)
    return Outcome(dev, 0.0, met=_queries_matter(mask), note="" if dev == 0 else f"c={c}")


@prop(theorems=["PLGA.Attention.decoderLayer_one_eq_sdpaDecoderLayer",
                "PLGA.Attention.plgaDecoder_identityLayers_eq_sdpaDecoder",
                "PLGA.Attention.plgaDecoder_scalarLayers_eq_sdpaDecoder"],
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
    G = [c * np.broadcast_to(np.eye(dk), (H, dk, dk))] * L
    plga = pyref.ConstantGModel.from_state_dict(sd, cfg, G=G)
    sd2 = dict(sd)
    for li in range(L):
        for leaf in ("weight", "bias"):
            k = f"decoder.dec_layers.{li}.mha1.wq.{leaf}"
            sd2[k] = c * sd[k]
    sdpa = pyref.SDPAModel.from_state_dict(sd2, cfg)
    o1 = plga.forward([toks], backend=backend, dps=dps)
    o2 = sdpa.forward([toks], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = _fwd_dev(o1, o2)
    return Outcome(dev, 0.0, met=_model_queries_matter(toks))
