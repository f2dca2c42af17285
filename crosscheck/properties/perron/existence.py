"""Cross-check properties of ``Formal/Perron/Existence.lean``: ``perron_iterates_bounded``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import mpmath

from ...registry import Checks, Outcome, prop
from ._shared import DPS, MP, analyse, build_matrix, nonpositive, perron_case, power_iteration


@prop(theorems=["PLGA.Perron.piter_telescope", "PLGA.Perron.piter_bounded"],
      paper="Thm 3.8 step 8 (the iterates stay bounded: telescoping estimate)",
      strategy=lambda: perron_case(hi=8), backends=("mp",), cost=0.5)
def perron_iterates_bounded(ex, backend, dps):
    """With θ = ε²/(S²n), S the entry sum (the Lean instance ``contractRate ε (entrySum A) n``),
    ``h = θ m₀/2`` and J the first step with ``M_J < r + h`` (using ``r̂ − err_r`` so the
    hypothesis holds for the true r): ``p_{J+d,i}(θm₀ − (M_J − M_{J+d})) ≤ θm₀ p_{J,i}`` for every
    computed d, and the proof's bound ``p_k ≤ 2 p_J`` for every computed k. Inputs whose
    iteration does not reach such a J within 300 steps do not meet the hypothesis."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    seq = power_iteration(an)
    ch = Checks()
    with mpmath.workdps(DPS):
        th = an.eps * an.eps / (an.S * an.S * an.n)
        m0 = seq[0][2]
        h = th * m0 / 2
        J = next((k for k, s in enumerate(seq) if s[3] < an.r - an.err_r + h), None)
        if J is None:
            return Outcome(0.0, 1.0, met=False, note="no J with M_J < r + θm₀/2 within 300 steps")
        pJ, MJ = seq[J][0], seq[J][3]
        for d in range(len(seq) - J):
            p, M = seq[J + d][0], seq[J + d][3]
            lhs = [s * (th * m0 - (MJ - M)) for s in p]
            rhs = [th * m0 * s for s in pJ]
            ch.le("telescope p_{J+d}(θm₀ − (M_J − M_{J+d})) ≤ θm₀ p_J",
                  max(u - w for u, w in zip(lhs, rhs)),
                  MP * max(rhs))
        for p, _, _, _ in seq:
            ch.le("p_k ≤ 2 p_J", max(s - 2 * t for s, t in zip(p, pJ)), MP * max(pJ))
    return ch.outcome()
