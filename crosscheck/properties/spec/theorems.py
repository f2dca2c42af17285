"""Cross-check properties of ``Formal/Spec/Theorems.lean``: ``spec_curvature_constant_model``
(the parameter-level SDPA inclusion). The G-cache, collapse and absorption corollaries are
checked by the Attention properties that run pyref's full PLDR model
(``collapse_along_trajectory``, ``decoder_absorption``), which list them; the Perron and
positivity corollaries by ``spec_operator_assembly`` (:mod:`.operator`).

Conventions and tolerances: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import decode as dc
from ...spec_eval import model as ev
from ...spec_eval._scalar import mat
from .._arith import ctx, maxabs
from ..attention._shared import _a_zero_sd, _cfg, _fwd_dev, _model_queries_matter, model_case
from ._shared import cmp, ev_ctx

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}


@st.composite
def curvature_case(draw):
    L, d, seed, toks = draw(model_case())
    c = draw(st.sampled_from([1.0, 1.0, 0.5, -2.0, 3.0]))
    return L, d, seed, toks, c


@prop(theorems=["PLGA.Spec.pinLayers_layers_one", "PLGA.Spec.decoder_pinned_one_eq_sdpaDecoder",
                "PLGA.Spec.headG_eq_ba_of_a_eq_zero", "PLGA.Spec.layers_eq_of_curvatureConst",
                "PLGA.Spec.decoder_eq_sdpaDecoder_of_curvatureConst_one",
                "PLGA.Spec.decoder_eq_sdpaDecoder_of_curvatureConst_smul",
                "PLGA.Spec.logits_eq_sdpaLogits_of_curvatureConst_one"],
      paper="SDPA inclusion for the assembled model (a = 0, b_a = c·I in every head)",
      strategy=curvature_case)
def spec_curvature_constant_model(ex, backend, dps):
    """pyref's full PLDR model with generic parameters except a = 0 and b_a = c·I in every
    layer and head (Lean ``CurvatureConst``): every reported G_LM is c·I exactly
    (``headG_eq_ba_of_a_eq_zero``), the model equals the ConstantGModel with G = c·I
    (``layers_eq_of_curvatureConst``; with the SDPA temperature form checked by
    ``decoder_sdpa_inclusion`` this is the ``_smul`` corollary), and for c = 1 it equals pyref's
    SDPAModel with the same remaining parameters (``to_sdpa``), at the decoder output and the
    logits.

    Bound 0 on both backends: a·A_P with a = 0 is an exact zero (A_P is finite), so
    G_LM = c·I bit for bit; with G = I the product Q̂·I adds exact zeros, so the PLGA scores
    equal the SDPA path's Q̂K̂ᵀ bit for bit, and every other operation is the same on
    bitwise-equal operands.

    mp, formula level (:mod:`crosscheck.spec_eval.model`, 70 digits, bound 1e-40·scale): every
    reported G_LM equals the evaluator's ``headG`` at that layer's input (a·A_P + b_a with a = 0:
    ``headG_eq_ba_of_a_eq_zero``), and the logits equal the Lean ``sdpaDecoder`` with score scale
    √d_k/c followed by the head (``decoder_eq_sdpaDecoder_of_curvatureConst_smul``; c = 1:
    ``sdpaLogits``, ``logits_eq_sdpaLogits_of_curvatureConst_one``); when the first token is not the
    pad id (a fully masked first row carries the rounding of its scores − 10⁹, 10⁹·2⁻¹⁶⁹ ≈ 10⁻⁴²,
    which the harness bound does not budget for)."""
    L, d, seed, toks, c = ex
    cfg = _cfg(L, d)
    cI = c * np.eye(cfg.d_k)
    Gs = [np.broadcast_to(cI, (cfg.num_heads, cfg.d_k, cfg.d_k)).copy() for _ in range(L)]
    full = pyref.PLDRModel.from_state_dict(_a_zero_sd(cfg, seed, Gs), cfg)
    out = full.forward([toks], backend=backend, dps=dps)
    ch = Checks()
    with ctx(backend, dps):
        b = pyref.get_backend(backend, dps)
        for li, ded in enumerate(out.deductive):
            ch.exact(f"layer {li}: G_LM = c·I", maxabs(ded["G_LM"][0] - b.asarray(Gs[li])))
        const = full.to_constant_operator(G=Gs).forward([toks], backend=backend, dps=dps)
        ch.exact("PLDR(a = 0, b_a = c·I) = ConstantGModel(c·I)", _fwd_dev(out, const))
        if c == 1.0:
            sdpa = full.to_sdpa().forward([toks], backend=backend, dps=dps)
            ch.exact("PLDR(a = 0, b_a = I) = SDPAModel", _fwd_dev(out, sdpa))
    if backend == "mp" and toks[0] != 0:   # a pad-first row: see the docstring
        _evaluator_parts(ch, full.state_dict(), cfg, toks, out, dps, c)
    return ch.outcome(met=_model_queries_matter(toks))


def _evaluator_parts(ch, sd, cfg, toks, out, dps, c):
    """The a = 0, b_a = c·I model against the evaluator: layer-by-layer G_LM = Lean ``headG``
    (the layer inputs from the evaluator's decode, :func:`dc.forward`), logits = ``sdpaDecoder``
    at scale √d_k/c, and = ``sdpaLogits`` for c = 1."""
    with ev_ctx(dps):
        F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
        tr = dc.forward(F, M, toks)
        for li in range(cfg.num_layers):
            cmp(ch, f"layer {li}: G_LM = Lean headG", out.deductive[li]["G_LM"][0],
                tr["layers"][li]["G_LM"], "mp")
        acfg = ev.config(M, toks)
        acfg["scale"] = acfg["scale"] / mat(c)
        X = ev.sdpaDecoder(F, acfg, M["layers"], ev.embed(F, M, toks))
        cmp(ch, "logits = Lean sdpaDecoder (scale √d_k/c) + head", out.logits[0],
            ev.affine(X, M["Wout"], M["bout"]), "mp")
        if c == 1.0:
            cmp(ch, "logits = Lean sdpaLogits", out.logits[0], ev.sdpaLogits(F, M, toks), "mp")
