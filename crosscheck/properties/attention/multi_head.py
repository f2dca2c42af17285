"""Cross-check properties of ``Formal/Attention/MultiHead.lean``: ``mha_sdpa_inclusion``,
``decoder_sdpa_inclusion`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import const, mat
from .._arith import ctx, maxabs, mp_bound
from .._util import generic_state_dict
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
    paths run the same operations on bitwise-equal operands.

    mp, formula level: pyref's c·I sublayer also equals the Lean ``mhaSDPA`` with scale √d_k/c
    evaluated independently (:mod:`crosscheck.spec_eval.model`, 70 digits; additive mask as in the
    model), within 1e-40·scale."""
    (d, X, p, mask, _), c = ex
    cfg = _cfg(1, d)
    H, dk = 2, d // 2
    o1, _ = _mha(backend, dps, cfg, p, X, mask, "constant",
                 G=c * np.broadcast_to(np.eye(dk), (H, dk, dk)))
    q = dict(p)
    q["wq.weight"], q["wq.bias"] = c * p["wq.weight"], c * p["wq.bias"]
    o2, _ = _mha(backend, dps, cfg, q, X, mask, "sdpa")
    ch = Checks()
    with ctx(backend, dps):
        ch.exact(f"c·I sublayer = SDPA sublayer on c·Q̂ (c = {c})", maxabs(o1 - o2))
    if backend == "mp":
        with mpmath.workdps(dps + 20):
            ref = _ev_mha_sdpa(p, X[0], mask[0, 0], cfg, mat(c))
            dev = max(abs(mpmath.mpf(x) - y) for xr, yr in zip(np.asarray(o1[0]).tolist(), ref)
                      for x, y in zip(xr, yr))
        ch.le("c·I sublayer = Lean mhaSDPA with scale √d_k/c", dev,
              mp_bound(max(abs(float(y)) for r in ref for y in r)))
    return ch.outcome(met=_queries_matter(mask))


def _ev_lean_params(p, prefix=""):
    """Lean ``MHAParams`` (W of shape [in][out]) from torch-layout projection weights."""
    out = {}
    for lean, key in (("Q", "wq"), ("K", "wk"), ("V", "wv"), ("O", "dense")):
        out["W" + lean] = ev.transpose(mat(p[prefix + key + ".weight"]))
        out["b" + lean] = mat(p[prefix + key + ".bias"])
    return out


def _ev_mha_sdpa(p, X, mask, cfg, c):
    """The Lean ``mhaSDPA`` on X [S, d] at scale √d_k/c, RoPE at positions 0…S−1, the model's
    additive mask (mask 1 = masked)."""
    S, dk = len(X), cfg.d_k
    acfg = {"mask": [[m == 0 for m in r] for r in mask], "scale": mpmath.sqrt(dk) / c,
            "rope": ev.ropeRows(range(S), dk, const(cfg.rope_base)), "dk": dk,
            "H": cfg.num_heads, "additive": True}
    return ev.mha(acfg, _ev_lean_params(p), None, mat(X))


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
    the two models execute the same operations on bitwise-equal operands.

    mp, formula level: the c·I model's logits also equal the Lean ``sdpaDecoder`` with score scale
    √d_k/c followed by the head, evaluated independently (:mod:`crosscheck.spec_eval.model`, 70
    digits), within 1e-40·scale, when the first token is not the pad id (a fully masked first row
    carries the rounding of its scores − 10⁹, 10⁹·2⁻¹⁶⁹ ≈ 10⁻⁴², which that bound does not budget
    for)."""
    (L, d, seed, toks), c = ex
    cfg = _cfg(L, d)
    sd = generic_state_dict(pyref.ConstantGModel.random(cfg, seed=seed), seed)
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
    ch = Checks()
    with ctx(backend, dps):
        ch.exact(f"ConstantGModel(c·I) = SDPAModel on c·W_Q (c = {c})", _fwd_dev(o1, o2))
    if backend == "mp" and toks[0] != 0:   # a pad-first row: see the docstring
        with mpmath.workdps(dps + 20):
            F, M = ev.prims(cfg), ev.modelSpec(sd, cfg, learned=False)
            acfg = ev.config(M, toks)
            acfg["scale"] = acfg["scale"] / mat(c)
            X = ev.sdpaDecoder(F, acfg, M["layers"], ev.embed(F, M, toks))
            ref = ev.affine(X, M["Wout"], M["bout"])
            dev = max(abs(mpmath.mpf(x) - y) for xr, yr in
                      zip(np.asarray(o1.logits[0]).tolist(), ref) for x, y in zip(xr, yr))
        ch.le("ConstantGModel(c·I) logits = Lean sdpaDecoder with scale √d_k/c", dev,
              mp_bound(max(abs(float(y)) for r in ref for y in r)))
    return ch.outcome(met=_model_queries_matter(toks))
