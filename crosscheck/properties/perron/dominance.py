"""Cross-check properties of ``Formal/Perron/Dominance.lean``: ``perron_dominance`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

from ...registry import Checks, prop
from ._shared import analyse, build_matrix, check_dominance, nonpositive, perron_case

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
}


@prop(theorems=["PLGA.Perron.absv_eigenvalue_le_of_nonneg", "PLGA.Perron.real_eigenvalue_bounds",
                "PLGA.Perron.real_eigenvalue_dominated", "PLGA.Perron.cmod_eigenvalue_le_of_nonneg",
                "PLGA.Perron.complex_eigenvalue_shifted_bound",
                "PLGA.Perron.complex_eigenvalue_dominated", "PLGA.Perron.cmod_fsum_le",
                "PLGA.Perron.absv_mulVec_le"],
      paper="Thm 3.8 step 6 (dominance: |λ| < r for λ ≠ r; spectrum in the disc |λ − ε| ≤ r − ε)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_dominance(ex, backend, dps):
    """Every eigenvalue of pyref's A_LM (mpmath, 50 digits, tolerance 2κ_j·MP·‖A‖_F plus the
    root error): ``|λ| ≤ r``, ``|λ − ε| ≤ r − ε``, real ones in ``[2ε − r, r]``, and ``r − |λ|``
    above the resolution for λ ≠ r; on each eigenvector the triangle inequalities the proof
    uses (for A and for A − εI). mp only: float64 eigenvalues of a nearly reducible A_LM are
    perturbations of size κ_j·u·‖A‖, which says nothing about the exact spectrum the theorem
    is about; at 50 digits the same perturbation is 10^-33 below the margins."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_dominance(ch, an)
    return ch.outcome()
