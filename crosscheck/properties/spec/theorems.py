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
from .._arith import ctx, maxabs
from ..attention._shared import _a_zero_sd, _cfg, _fwd_dev, _model_queries_matter, model_case

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
    bitwise-equal operands."""
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
    return ch.outcome(met=_model_queries_matter(toks))
