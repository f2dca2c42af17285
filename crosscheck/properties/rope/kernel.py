"""Cross-check properties of ``Formal/Rope/Kernel.lean``: ``commutant_and_kernel_ranks`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import numpy as np

import pyref

from ...registry import Outcome, prop
from ...strategies import even_dk
from .._arith import U64
from ._shared import BASE, BETA_PI, SLACK, SVD_P

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.skipIdx_ne":
        "index bijection (skipIdx j t ≠ j) of the kernel parametrization; Nat arithmetic, no "
        "computation",
    "PLGA.Rope.skipIdx_unskipIdx":
        "index bijection (skipIdx ∘ unskipIdx = id); Nat arithmetic, no computation",
    "PLGA.Rope.unskipIdx_skipIdx":
        "index bijection (unskipIdx ∘ skipIdx = id); Nat arithmetic, no computation",
    "PLGA.Rope.kerEmbed_diag":
        "definitional (dif_pos rfl) diagonal block of kerEmbed; no computation",
    "PLGA.Rope.kerCoords_kerEmbed":
        "reading the free coordinates back out of kerEmbed p is exact data movement; no arithmetic",
    "PLGA.Rope.kernel_dim_reference":
        "Nat arithmetic 64² − 64 = 4032 (by decide): the d_k = 64 instance of the count d_k² − d_k "
        "that commutant_and_kernel_ranks measures at d_k ≤ 16; measuring it at 64 needs pyref's "
        "projection of all 4096 basis matrices (~84 s here), too slow for the fuzz profiles",
}


# ============================================================ 6. the dimension counts
@prop(theorems=["PLGA.Rope.kerIdx_count", "PLGA.Rope.commutant_add_kernel_count"],
      paper="Prop 4.1 (commutant of dimension d_k, d_k² − d_k absolute-position-sensitive "
            "directions)",
      strategy=lambda: even_dk(2, 16), backends=("float64",))
def commutant_and_kernel_ranks(dk, backend, dps):
    """The matrix M' of pyref's ``commutant_projection`` on the d_k² basis matrices E_ab: its
    singular values are within δ of those of the exact orthogonal projector (1 with multiplicity
    rank Π, 0 with multiplicity d_k² − rank Π), and so are those of I − M'; counted: rank Π = d_k,
    rank(I − Π) = d_k² − d_k = m(m−1)·4 + 2m (kerIdx_count, m = d_k/2), rank Π + rank(I − Π) = d_k²
    (commutant_add_kernel_count). δ = ‖M' − M‖_F + p·u·‖M'‖₂ ≤ 2β_Π·d_k (each column errs by
    β_Π·P|E_ab|P, Frobenius norm 2β_Π) + LAPACK's SVD error; no singular value may fall in (δ, 1 −
    δ). float64 only (pyref's projection is a float64 audit tool)."""
    d2 = dk * dk
    E = np.zeros((d2, dk, dk))
    E[np.arange(d2), np.arange(d2) // dk, np.arange(d2) % dk] = 1.0
    # column ab = vec(Π E_ab)
    M = pyref.analysis.commutant_projection(E, rope_base=BASE).reshape(d2, d2).T
    delta = (2 * BETA_PI * dk + SVD_P(d2, d2) * U64 * 1.0) * SLACK
    s = np.linalg.svd(M, compute_uv=False)
    s_c = np.linalg.svd(np.eye(d2) - M, compute_uv=False)
    m = dk // 2
    rank = int(np.sum(s > 1 - delta))
    rank_c = int(np.sum(s_c > 1 - delta))
    unclassified = (int(np.sum((s > delta) & (s < 1 - delta)))
                    + int(np.sum((s_c > delta) & (s_c < 1 - delta))))
    wrong = (abs(rank - dk) + abs(rank_c - (d2 - dk)) + abs(rank_c - (m * (m - 1) * 4 + 2 * m))
             + abs(rank + rank_c - d2) + unclassified)
    # the measured distance to {0, 1} (≤ δ) is reported when the counts are right
    dist = float(max(np.max(np.minimum(np.abs(s), np.abs(1 - s))),
                     np.max(np.minimum(np.abs(s_c), np.abs(1 - s_c)))))
    if wrong:
        return Outcome(float(wrong), 0.0,
                       note=f"rank Π = {rank}, rank(I − Π) = {rank_c}, unclassified {unclassified}")
    return Outcome(dist, delta)
