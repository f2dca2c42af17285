"""Cross-check properties of ``Formal/Spec/Operator.lean`` (and the generator lemmas of
``Formal/Spec/Decoder.lean``): ``spec_operator_assembly``.

Conventions and tolerances: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import model as ev
from .._arith import bound, ctx, maxabs
from .._util import generic_plga_state_dict
from ._shared import ev_ctx

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}


@st.composite
def assembly_case(draw):
    d = draw(st.sampled_from([4, 8]))
    H = draw(st.sampled_from([1, 2]))
    n_units = draw(st.integers(1, 2))
    n_blocks = 2   # Formal.Structure.RowMap.UnitParams: two SwiGLU blocks per unit (the paper)
    seed = draw(st.integers(0, 2 ** 16))
    toks = draw(st.lists(st.integers(1, 10), min_size=2, max_size=6))
    return d, H, n_units, n_blocks, seed, toks


def _layer0_chain(sd, cfg, toks):
    """The Spec chain of layer 0 (Lean ``headQ``, ``headA``, ``opALM``, ``opAP``, ``opG``) and the
    scores, per head, from :mod:`crosscheck.spec_eval.model` (no pyref code): X⁰ = ``embed``,
    Q̂ = ``headQ`` (RoPE of X⁰W_Q + b_Q, head split), A = ``prefillA`` (Φ_res(LN_A(Q̂ᵀQ̂))),
    (A_LM, A_P, G_LM), E = ``scores √d_k Q̂ G K̂``. Returns name -> nested list [H][·][·]."""
    F, M = ev.prims(cfg), ev.modelSpec(sd, cfg)
    acfg = ev.config(M, toks)
    X = ev.embed(F, M, toks)
    L = M["layers"][0]
    out = {k: [] for k in ("A", "A_LM", "A_P", "G_LM", "E")}
    for h in range(cfg.num_heads):
        p = L["learner"]["weights"][h]
        Q = ev.headQ(acfg, L["attn"], X, h)
        A = ev.headA(F, acfg, L["attn"], L["learner"], X, h)
        A_LM = ev.opALM(F, p, A)
        A_P = ev.opAP(p, A_LM)
        G = ev.opG(p, A_P)
        E = ev.scores(acfg["scale"], Q, G, ev.keys(acfg, L["attn"], X, h))
        for k, v in zip(out, (A, A_LM, A_P, G, E)):
            out[k].append(v)
    return out


def _perron_parts(ch, A_LM, dps):
    """Thm 3.8 on the model's A_LM of every head (``headALM_perron_frobenius``): a strictly
    positive eigenvector with residual at working precision, and the root between the smallest
    and the largest row sum (Collatz–Wielandt with the all-ones vector)."""
    for h in range(A_LM.shape[0]):
        res = pyref.analysis.perron(A_LM[h], dps=dps)
        with mpmath.workdps(dps):
            M = [[mpmath.mpf(v) for v in row] for row in np.asarray(A_LM[h])]
            sums = [mpmath.fsum(r) for r in M]
            r = res.root
            ch.exact(f"head {h}: Perron vector > 0", sum(1.0 for v in res.vector if not v > 0))
            ch.le(f"head {h}: ‖Av − rv‖", float(res.residual), 1e-40 * float(max(sums)))
            ch.le(f"head {h}: min row sum ≤ r", float(min(sums) - r), 1e-40 * float(max(sums)))
            ch.le(f"head {h}: r ≤ max row sum", float(r - max(sums)), 1e-40 * float(max(sums)))


@prop(theorems=["PLGA.Spec.headG_eq", "PLGA.Spec.prefillA_eq_phiResMat",
                "PLGA.Spec.headA_eq_phiResMat", "PLGA.Spec.metricLearner_up",
                "PLGA.Spec.metricLearner_ALM", "PLGA.Spec.metricLearner_gen",
                "PLGA.Spec.layer_gen_eq", "PLGA.Spec.layer_gen_eq_headALM",
                "PLGA.Spec.layer_gen_eq_metricLearner_gen", "PLGA.Spec.headALM_entry_ge",
                "PLGA.Spec.headALM_entry_pos", "PLGA.Spec.headAP_eq_hadPow_rpow",
                "PLGA.Spec.headAP_pos", "PLGA.Spec.headALM_perron_frobenius",
                "PLGA.Spec.headALM_isPerronFrobenius_of_pairs"],
      paper="spec A.4 steps 1–8 (the deductive operator of a layer), Prop 3.7, Thm 3.8",
      strategy=assembly_case, backends=("mp",), cost=0.5)
def spec_operator_assembly(ex, backend, dps):
    """Layer 0 of pyref's full PLDR model (generic parameters: nonzero biases, O(1) W, b, P, a,
    b_a; 1–2 residual units of two SwiGLU blocks each, as Lean's ``UnitParams``): the A, A_LM,
    A_P, G_LM and scores E it reports equal the Spec chain evaluated independently of pyref
    (:mod:`crosscheck.spec_eval.model`: explicit mpmath loops written from the Lean definitions,
    no pyref code) on
    the same weights and tokens (``headG_eq``: G_LM = a·(metricTensor σ W (Φ_res(LN_A(Q̂ᵀQ̂)))
    b ε)^{⊙P} + b_a with Q̂ the rotated queries of that head). On the reported tensors: A_LM ≥ ε
    and > 0 entrywise, A_P = exp(P·log A_LM) > 0 entrywise (``headAP_eq_hadPow_rpow``: the
    power is the ExpLog one), and the Perron–Frobenius conclusions for every head's A_LM.

    mp only, at 50 digits: each side runs < 10^4 roundings of relative size 10^-49 in a
    different order (and A_P as x^p against exp(p·log x)), so they differ by at most the
    harness bound 1e-40·max|value| (``mp_bound``); A_P against exp(P log A_LM) is evaluated
    at 80 digits, so the same bound applies. The positivity checks are exact (bound 0)."""
    d, H, n_units, n_blocks, seed, toks = ex
    cfg = pyref.PLDRConfig(num_layers=1, d_model=d, num_heads=H, dff=6, a_dff=4,
                           num_res_units=n_units, num_glu_blocks=n_blocks, vocab_size=11,
                           max_seq_len=16)
    sd = generic_plga_state_dict(cfg, seed)
    out = pyref.PLDRModel.from_state_dict(sd, cfg).forward([toks], backend=backend, dps=dps)
    rep = {k: v[0] for k, v in out.deductive[0].items()}
    with ev_ctx(dps):
        ref = {k: np.array(v, dtype=object) for k, v in _layer0_chain(sd, cfg, toks).items()}
    ch = Checks()
    with ctx(backend, dps):
        for k in ("A", "A_LM", "A_P", "G_LM", "E"):
            ch.le(f"reported {k} = Spec chain", maxabs(rep[k] - ref[k]),
                  bound(backend, 0, maxabs(ref[k])))
        eps = pyref.get_backend(backend, dps).const(cfg.metric_eps)
        ch.exact("A_LM ≥ ε", sum(1.0 for v in np.asarray(rep["A_LM"]).ravel() if v < eps))
        ch.exact("A_LM > 0", sum(1.0 for v in np.asarray(rep["A_LM"]).ravel() if not v > 0))
        ch.exact("A_P > 0", sum(1.0 for v in np.asarray(rep["A_P"]).ravel() if not v > 0))
    P = sd["decoder.dec_layers.0.mha1.plgatt_layer.pwlst"]
    with mpmath.workdps(80):
        rpow = np.vectorize(lambda a, p: mpmath.exp(mpmath.mpf(p) * mpmath.log(a)),
                            otypes=[object])(np.asarray(rep["A_LM"]), P)
        dev = maxabs(np.asarray(rep["A_P"]) - rpow)
    ch.le("A_P = exp(P·log A_LM)", dev, bound(backend, 0, maxabs(rpow)))
    _perron_parts(ch, rep["A_LM"], dps)
    return ch.outcome()
