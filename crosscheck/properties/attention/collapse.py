"""Cross-check properties of ``Formal/Attention/Collapse.lean``: ``collapse_along_trajectory``,
``collapse_exact_invariance`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, Outcome, prop
from ...spec_eval import decode as dc
from ...spec_eval import model as ev
from .._arith import conv, ctx, maxabs
from .._util import generic_plga_state_dict
from ..spec._shared import cmp, ev_ctx
from ._shared import _a_zero_sd, _cfg, _fwd_dev, _model_queries_matter, _tokens, model_case

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.invariantAlong_of_invariantOn":
        "logical implication between invariance hypotheses (set ⇒ trajectory); no numeric content, "
        "the collapse conclusions it feeds are checked",
    "PLGA.Attention.invariantAlong_of_constOn":
        "logical implication between invariance hypotheses (closed set ⇒ trajectory); no numeric "
        "content",
    "PLGA.Attention.constOn_univ_of_exactlyInvariant":
        "logical implication (constant generators are constant on every set); no numeric content",
}


# ================================================================== collapse (Thm 5.4(ii))
@st.composite
def trajectory_case(draw):
    L, d, seed, toks = draw(model_case())
    other = draw(_tokens(1, 6))
    return L, d, seed, toks, other


@prop(theorems=["PLGA.Attention.plgaDecoder_pinLayers_of_invariantAlong",
                "PLGA.Attention.run_eq_decoderLayer_of_gen_eq",
                "PLGA.Attention.model_collapse_on_reachable",
                "PLGA.Attention.plgaDecoder_gcache_prefill_exact",
                "PLGA.Attention.plgaDecoder_gcache_exact",
                "PLGA.Attention.decoderLayer_gcache_exact", "PLGA.Attention.pinned_run",
                "PLGA.Spec.decoder_collapse",
                "PLGA.Spec.decoder_gcache_exact",
                "PLGA.Spec.decoder_gcache_prefill_exact",
                "PLGA.Spec.opsAlong_layers_cons"],
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
    and every other operation is the same on bitwise-equal operands. mp formula anchors
    (1e-40·scale, :mod:`crosscheck.spec_eval`): the full model's logits on x equal the Lean
    ``logits``, and the G-cached call on x' equals spec B's G-cached call with the evaluator's
    operators of x; only when neither sequence starts with the pad id (a fully masked first row
    carries the rounding of its scores − 10⁹, 10⁹·2⁻¹⁶⁹ ≈ 10⁻⁴², which the harness bound does not
    budget for)."""
    L, d, seed, toks, other = ex
    cfg = _cfg(L, d)
    sd = generic_plga_state_dict(cfg, seed)
    full = pyref.PLDRModel.from_state_dict(sd, cfg)
    out = full.forward([toks], backend=backend, dps=dps)
    G = [dd["G_LM"][0] for dd in out.deductive]
    pinned = full.to_constant_operator(G=G)
    o_pin = pinned.forward([toks], backend=backend, dps=dps)
    o_gc = full.forward([toks], backend=backend, dps=dps, gcache=out.gcache)
    o_pin2 = pinned.forward([other], backend=backend, dps=dps)
    o_gc2 = full.forward([other], backend=backend, dps=dps, gcache=out.gcache)
    ch = Checks()
    with ctx(backend, dps):
        ch.exact("pinned = full, G-cached = full (on x), G-cached = pinned (on x')",
                 max(_fwd_dev(out, o_pin), _fwd_dev(out, o_gc), _fwd_dev(o_pin2, o_gc2)))
    if backend == "mp" and toks[0] != 0 and other[0] != 0:   # formula anchors (see docstring)
        with ev_ctx(dps):
            F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
            cmp(ch, "full model logits = Lean logits", out.logits[0], ev.logits(F, M, toks), "mp")
            gc = dc.forward(F, M, toks)["gc"]
            cmp(ch, "G-cached logits on x' = evaluator's G-cached call", o_gc2.logits[0],
                dc.forward(F, M, other, gc=gc)["logits"], "mp")
    # InvariantAlong holds by construction (operators recorded on x)
    return ch.outcome(met=_model_queries_matter(toks))


@st.composite
def invariant_case(draw):
    L, d, seed, _ = draw(model_case())
    inputs = draw(st.lists(_tokens(1, 6), min_size=2, max_size=3))
    return L, d, seed, inputs


@prop(theorems=["PLGA.Attention.plgaDecoder_collapse",
                "PLGA.Attention.plgaDecoder_collapse_on_closed_set",
                "PLGA.Attention.plgaDecoder_collapse_on_reachable",
                "PLGA.Attention.plgaDecoder_gcache_exact"],
      paper="Thm 5.4(ii) (exact input invariance: the full decoder is the collapsed one on every "
            "input)",
      strategy=invariant_case)
def collapse_exact_invariance(ex, backend, dps):
    """A PLDR model whose generators are exactly input invariant (a = 0, b_a = G*_l, so G_LM = G*_l
    for every input: ``ExactlyInvariant``, hence constant on every closed/reachable set) equals the
    collapsed ConstantGModel with G*_l pinned on each of 2–3 drawn token inputs (decoder output and
    logits), and a G-cache filled on the first input is exact on every other input
    (``plgaDecoder_gcache_exact``: the recomputed operators there equal the cached ones). The
    hypothesis is verified, not assumed: every recorded G_LM must equal G*_l (part of the
    deviation).

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
