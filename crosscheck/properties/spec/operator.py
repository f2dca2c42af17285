"""Cross-check properties of ``Formal/Spec/Operator.lean`` (and the generator lemmas of
``Formal/Spec/Decoder.lean``): ``spec_operator_assembly``.

Conventions and tolerances: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from .._arith import bound, ctx, maxabs
from .._util import generic_plga_state_dict

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


def _units(sd, m, cfg):
    """pyref's public Φ_res unit format, read from the state dict of one attention layer."""
    units = []
    for u in range(cfg.num_res_units):
        r = f"{m}reslayerAs.{u}."
        blocks = [tuple(sd[f"{r}denseAs.{g}.gluw{i}.{leaf}"] for i in (1, 2, 3)
                        for leaf in ("weight", "bias"))
                  for g in range(cfg.num_glu_blocks)]
        units.append({"blocks": blocks, "gamma": sd[r + "layernormA.weight"],
                      "beta": sd[r + "layernormA.bias"]})
    return units


def _layer0_chain(sd, cfg, toks, backend, dps):
    """The Spec chain of layer 0, rebuilt from pyref's public component functions: X⁰ =
    LN_emb(√d·E[tok]), Q̂ = RoPE(X⁰W_Qᵀ + b_Q) per head, D = Q̂ᵀQ̂, A = Φ_res(LN_A(D)), A_LM,
    A_P, G_LM; and the scores E = Q̂ G K̂ᵀ/√d_k (Lean ``headQ``, ``headA``, ``headALM``,
    ``headAP``, ``headG``)."""
    b = pyref.get_backend(backend, dps)
    kw = {"backend": backend, "dps": dps}
    d, H, dk, S = cfg.d_model, cfg.num_heads, cfg.d_k, len(toks)
    m = "decoder.dec_layers.0.mha1."
    with b.context():
        x = b.asarray(sd["decoder.embedding.weight"])[np.array(toks)] * b.sqrt(b.const(d))
    x = pyref.layers.layer_norm(x, sd["decoder.layernorm1.weight"], sd["decoder.layernorm1.bias"],
                                eps=cfg.ln_eps, **kw)                                     # [S,d]

    def heads(name):
        y = pyref.layers.linear(x, sd[m + name + ".weight"], sd[m + name + ".bias"], **kw)
        y = np.ascontiguousarray(np.transpose(y.reshape(S, H, dk), (1, 0, 2)))          # [H,S,dk]
        return pyref.rope.apply_rope(y, np.arange(S), base=cfg.rope_base, **kw)

    Q, K = heads("wq"), heads("wk")
    D = pyref.plga.density(Q, **kw)                                                    # [H,dk,dk]
    A = pyref.layers.layer_norm(D, sd[m + "layernorm1.weight"], sd[m + "layernorm1.bias"],
                                eps=cfg.ln_eps, **kw)
    A = pyref.plga.residual_metric_learner(A, _units(sd, m, cfg), eps=cfg.ln_eps, **kw)
    op = m + "plgatt_layer."
    A_LM = pyref.plga.metric_tensor(A, sd[op + "Wlst"], sd[op + "blst"], eps=cfg.metric_eps, **kw)
    A_P = pyref.plga.potential_tensor(A_LM, sd[op + "pwlst"], **kw)
    G = pyref.plga.energy_curvature_tensor(A_P, sd[op + "alst"], sd[op + "balst"], **kw)
    E = pyref.plga.attention_scores(Q, K, G, **kw)
    return {"A": A, "A_LM": A_LM, "A_P": A_P, "G_LM": G, "E": E}


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
    A_P, G_LM and scores E it reports
    equal the Spec chain rebuilt from pyref's public component functions on the layer's own
    input (``headG_eq``: G_LM = a·(metricTensor σ W (Φ_res(LN_A(Q̂ᵀQ̂))) b ε)^{⊙P} + b_a with
    Q̂ the rotated queries of that head). On the reported tensors: A_LM ≥ ε and > 0 entrywise,
    A_P = exp(P·log A_LM) > 0 entrywise (``headAP_eq_hadPow_rpow``: the power is the ExpLog
    one), and the Perron–Frobenius conclusions for every head's A_LM.

    mp only, at 50 digits: both sides run < 10^4 roundings each on the same operands, so
    they differ by at most the harness bound 1e-40·max|value| (``mp_bound``); A_P against
    exp(P log A_LM) is evaluated at 80 digits, so the same bound applies. The positivity
    checks are exact (bound 0)."""
    d, H, n_units, n_blocks, seed, toks = ex
    cfg = pyref.PLDRConfig(num_layers=1, d_model=d, num_heads=H, dff=6, a_dff=4,
                           num_res_units=n_units, num_glu_blocks=n_blocks, vocab_size=11,
                           max_seq_len=16)
    sd = generic_plga_state_dict(cfg, seed)
    out = pyref.PLDRModel.from_state_dict(sd, cfg).forward([toks], backend=backend, dps=dps)
    rep = {k: v[0] for k, v in out.deductive[0].items()}
    ref = _layer0_chain(sd, cfg, toks, backend, dps)
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
