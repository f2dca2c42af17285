"""Cross-check properties of ``Formal/Perron/Collatz.lean``: ``perron_collatz_wielandt``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

from ...registry import Checks, prop
from ._shared import analyse, build_matrix, check_collatz, nonpositive, perron_case


@prop(theorems=["PLGA.Perron.collatz_le", "PLGA.Perron.collatz_lower", "PLGA.Perron.collatz_upper",
                "PLGA.Perron.collatz_wielandt_min_le", "PLGA.Perron.collatz_wielandt_le_max"],
      paper="Thm 3.8 step 3 (Collatz–Wielandt: min (Ax)_i/x_i ≤ r ≤ max (Ax)_i/x_i)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_collatz_wielandt(ex, backend, dps):
    """For random positive x (three decades of scale) and near-Perron probes
    ``x = v̂ ⊙ (1 + δz)`` (δ = 1e-30 at mp, 1e-8 both), ``min_i (Ax)_i/x_i ≤ r ≤ max_i (Ax)_i/x_i``
    with r the 50-digit root of the same matrix; the general comparison ``collatz_le``
    (``s w ≤ Aw`` for sparse w ≥ 0 and ``Ax ≤ Mx`` give ``s ≤ M``) needs no root at all.
    float64: each computed ratio has relative error ≤ γ_{n+1}."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_collatz(ch, an, ex.ps, ex.xs, backend, A, dps)
    return ch.outcome()
