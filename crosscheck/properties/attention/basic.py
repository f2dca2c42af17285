"""Cross-check properties of ``Formal/Attention/Basic.lean``: ``sdpa_inclusion_at_identity``,
``sdpa_inclusion_scalar_operator`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.attention`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import mat
from ...strategies import qkv
from .._arith import bound, conv, ctx, maxabs
from ..spec._shared import anchor

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Attention.plgaAttention_congr_op":
        "rewriting by a hypothesis G = G' (a function of equal arguments); its model-level use, "
        "cached operators equal to the recomputed ones give equal outputs, is checked by "
        "collapse_along_trajectory",
}


def _T(Q, K, V):
    """|Q||K|ᵀ|V| bound for attention outputs: weights are in [0, 1] and sum to 1."""
    return np.max(np.abs(V)) * (1 + np.max(np.abs(Q)) * np.max(np.abs(K)) * Q.shape[1])


@prop(theorems=["PLGA.Attention.plgaAttention_one_eq_sdpaAttention",
                "PLGA.Attention.scores_one_eq_sdpaScores"],
      paper="SDPA inclusion (PLGA with G = I is SDPA, at the output, every mask)", strategy=qkv)
def sdpa_inclusion_at_identity(ex, backend, dps):
    """pyref's PLGA attention with G = I equals pyref's separate SDPA code path
    (outputs and weights), for the drawn mask; mp: the SDPA output also equals the Lean
    ``sdpaAttention`` (additive mask) evaluated independently (formula anchor)."""
    Q, K, V, mask = ex
    eye = np.eye(Q.shape[1])
    o1, w1 = pyref.plga.plga_attention(Q, K, V, eye, mask=mask, backend=backend, dps=dps)
    o2, w2 = pyref.plga.sdpa_attention(Q, K, V, mask=mask, backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = maxabs(o1 - o2) + maxabs(w1 - w2)
    # float64: Q·I is exact, then both paths form the same products; scores agree to
    # 2γ·|Q||K|·dk, weights move by at most twice the score error, outputs by that times |V|
    k = 4 * Q.shape[1] + K.shape[0] + 8
    S_mag = 1 + np.max(np.abs(Q)) * np.max(np.abs(K)) * Q.shape[1]
    ch = Checks()
    ch.le("PLGA(G = I) = SDPA (outputs and weights)", dev,
          bound(backend, k, _T(Q, K, V)) + bound(backend, k, S_mag))
    anchor(ch, "SDPA output", backend, dps, o2, lambda: ev.sdpaAttention(
        [[m == 0 for m in r] for r in mask], mpmath.sqrt(Q.shape[1]), mat(Q), mat(K), mat(V),
        True), 2 * _T(Q, K, V))
    return ch.outcome()


@prop(theorems=["PLGA.Attention.plgaAttention_smul_one_eq_sdpaAttention",
                "PLGA.Attention.scores_smul_one_eq_sdpaScores",
                "PLGA.Attention.plgaAttention_eq_sdpaAttention_mul"],
      paper="SDPA inclusion with temperature (G = c·I)",
      strategy=lambda: st.tuples(qkv(), st.sampled_from([0.5, 2.0, -1.0, 3.0])))
def sdpa_inclusion_scalar_operator(ex, backend, dps):
    """PLGA attention with G = c·I equals SDPA on the queries scaled by c (temperature 1/c); mp: it
    also equals the Lean ``sdpaAttention`` with scale √d_k/c evaluated independently (the right
    side of ``plgaAttention_smul_one_eq_sdpaAttention``, formula anchor)."""
    (Q, K, V, mask), c = ex
    with ctx(backend, dps):
        Qb, cI = conv(backend, dps, Q, c * np.eye(Q.shape[1]))   # c·I is exact in float64
        Qc = Qb * cI[0, 0]  # c·Q in the backend's arithmetic
    o1, _ = pyref.plga.plga_attention(Qb, K, V, cI, mask=mask, backend=backend, dps=dps)
    o2, _ = pyref.plga.sdpa_attention(Qc, K, V, mask=mask, backend=backend, dps=dps)
    ch = Checks()
    with ctx(backend, dps):
        ch.le("PLGA(G = c·I) = SDPA on c·Q", maxabs(o1 - o2),
              bound(backend, 4 * Q.shape[1] + K.shape[0] + 8, abs(c) * _T(Q, K, V)))
    anchor(ch, "PLGA output with G = c·I vs Lean sdpaAttention at scale √d_k/c", backend, dps, o1,
           lambda: ev.sdpaAttention([[m == 0 for m in r] for r in mask],
                                    mpmath.sqrt(Q.shape[1]) / mat(c), mat(Q), mat(K), mat(V),
                                    True), 2 * abs(c) * _T(Q, K, V))
    return ch.outcome()
