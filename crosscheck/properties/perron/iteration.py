"""Cross-check properties of ``Formal/Perron/Iteration.lean``: ``perron_power_iteration`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import mpmath

from ...registry import Checks, prop
from ._shared import (
    DPS,
    MP,
    Analysis,
    _f,
    _mv,
    analyse,
    build_matrix,
    nonpositive,
    perron_case,
    power_iteration,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Perron.cancel_left":
        "cancelling a positive factor in ≤; field order helper",
    "PLGA.Perron.minRatio_spec":
        "minRatio is a lower bound of the ratios and attained; the definition of a finite minimum",
    "PLGA.Perron.maxRatio_spec":
        "maxRatio is an upper bound of the ratios and attained; the definition of a finite maximum",
    "PLGA.Perron.le_minRatio":
        "c x ≤ y ⇒ c ≤ min y/x; min helper whose instance is the checked lo_le_lo_succ",
    "PLGA.Perron.maxRatio_le":
        "y ≤ c x ⇒ max y/x ≤ c; max helper whose instance is the checked hi_succ_le_hi",
    "PLGA.Perron.piter_succ":
        "definitional unfolding p_{k+1} = A p_k / m_k (the identity itself is checked as "
        "mulVec_piter)",
}


def _hilbert(x, y):
    """Hilbert's projective distance log max(x/y) − log min(x/y) of positive vectors."""
    q = [s / t for s, t in zip(x, y)]
    return mpmath.log(max(q)) - mpmath.log(min(q))


def check_iteration(ch: Checks, an: Analysis, seq):
    """Iteration.lean and Existence.lean on the computed sequence (see perron_power_iteration)."""
    a, n, eps, K = an.a, an.n, an.eps, an.K
    with mpmath.workdps(DPS):
        theta = eps * eps / (K * K * n)
        ch.exact("θ = ε²/(K²n) > 0", 0 if theta > 0 else 1)

        def tolr(M):
            return an.err_r + MP * abs(M)

        for k, (p, y, m, M) in enumerate(seq):
            rb = MP * max(y)
            ch.exact("p_k > 0, A p_k > 0, m_k > 0",
                     sum(1 for t in p if not t > 0) + sum(1 for t in y if not t > 0)
                     + (0 if m > 0 else 1))
            ch.le("m_k p_k ≤ A p_k ≤ M_k p_k",
                  max(max(m * s - t, t - M * s) for s, t in zip(p, y)), rb)
            ch.le("y_i = m_k p_i attained (exists_minRatio_eq)",
                  min(abs(t - m * s) for s, t in zip(p, y)), rb)
            ch.le("m_k ≤ M_k", m - M, MP * abs(M))
            ch.le("ε p_l ≤ K p_j (balance)", eps * max(p) - K * min(p), MP * K * max(p))
            ch.le("m_k ≤ r ≤ M_k (sequences meet at r)", max(m - an.r, an.r - M), tolr(M))
            # weights of the contraction: θ (A p)_i ≤ A_ij p_j
            ch.le("θ (A p)_i ≤ A_ij p_j",
                  max(theta * y[i] - a[i, j] * p[j] for i in range(n) for j in range(n)), rb)
            z = _mv(a, y)
            c = M - theta * (M - m)
            ch.le("A(A p) ≤ (M − θ(M − m)) A p", max(s - c * t for s, t in zip(z, y)), MP * max(z))
            if k + 1 < len(seq):
                p1, _, m1, M1 = seq[k + 1]
                ch.le("A p_k = m_k p_{k+1}", max(abs(t - m * s) for s, t in zip(p1, y)), rb)
                ch.le("p_k ≤ p_{k+1}", max(s - t for s, t in zip(p, p1)), MP * max(p1))
                ch.le("m_k ≤ m_{k+1}", m - m1, MP * abs(M))
                ch.le("M_{k+1} ≤ M_k", M1 - M, MP * abs(M))
                ch.le("M_{k+1} ≤ M_k − θ(M_k − m_k)", M1 - c, MP * abs(M))
        # convergence to pyref's Perron vector (Birkhoff: d_H(Ax, Av) ≤ τ d_H(x, v), hence
        # d_H(x, v) ≤ d_H(x, Ax)/(1 − τ) = log(M/m)/(1 − τ) for any positive x)
        p, _, m, M = seq[-1]
        one_minus_tau = 1 - an.tau
        if one_minus_tau > 0:
            lim = (mpmath.log(M / m) + mpmath.log(an.cw_hi / an.cw_lo)) / one_minus_tau
            ch.le("d_H(p_K, v̂) ≤ (log(M_K/m_K) + log(CW(v̂)))/(1 − τ)", _hilbert(p, an.v),
                  lim + MP * n)


@prop(theorems=["PLGA.Perron.piter_pos", "PLGA.Perron.mulVec_piter_pos", "PLGA.Perron.lo_pos",
                "PLGA.Perron.lo_mul_le", "PLGA.Perron.le_hi_mul", "PLGA.Perron.mulVec_piter",
                "PLGA.Perron.lo_le_hi", "PLGA.Perron.piter_le_succ", "PLGA.Perron.lo_le_lo_succ",
                "PLGA.Perron.hi_succ_le_hi", "PLGA.Perron.piter_balanced",
                "PLGA.Perron.mulVec_mulVec_le_contract", "PLGA.Perron.contractRate_pos",
                "PLGA.Perron.hi_succ_le_contract", "PLGA.Perron.minRatio_mul_le",
                "PLGA.Perron.le_maxRatio_mul", "PLGA.Perron.exists_minRatio_eq",
                "PLGA.Perron.collatz_sequences_meet", "PLGA.Perron.power_iteration_converges",
                "PLGA.Perron.exists_perron_pair"],
      paper="Thm 3.8 step 8 (existence by the normalized power iteration; "
            "Collatz–Wielandt squeeze)",
      strategy=lambda: perron_case(hi=8), backends=("mp",), cost=0.5)
def perron_power_iteration(ex, backend, dps):
    """The Lean iteration ``p₀ = 𝟙, p_{k+1} = A p_k / m_k`` run at 50 digits on pyref's A_LM
    until ``M_k − m_k ≤ 1e-45 M_k`` (≤ 300 steps): ``p_k, A p_k, m_k > 0``;
    ``m_k p_k ≤ A p_k ≤ M_k p_k`` with the minimum attained; ``A p_k = m_k p_{k+1}``;
    ``p_k ≤ p_{k+1}``; ``m_k ↑``, ``M_k ↓``, ``m_k ≤ M_k``; balance ``ε p_l ≤ K p_j``; the weights
    ``θ (A p)_i ≤ A_ij p_j`` and the contraction ``A(Ap) ≤ (M − θ(M − m)) Ap``,
    ``M_{k+1} ≤ M_k − θ(M_k − m_k)`` with ``θ = ε²/(K²n)``; ``m_k ≤ r ≤ M_k`` for pyref's root (the
    sequences meet there); and convergence of ``p_k`` to pyref's Perron vector in Hilbert's
    metric, ``d_H(p_K, v̂) ≤ (log(M_K/m_K) + log(max/min CW ratio of v̂))/(1 − τ)`` (Birkhoff's
    contraction τ at 50 digits). mp only: the monotonicity steps are differences far below
    float64 resolution once the sequences have converged."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    seq = power_iteration(an)
    ch = Checks()
    check_iteration(ch, an, seq)
    p, _, m, M = seq[-1]
    conv_ok = _f((M - m) / M) <= 1e-40
    return ch.outcome(note="converged to 1e-40 within 300 steps" if conv_ok
                      else "not converged to 1e-40 within 300 steps (slow: |λ₂|/r near 1)")
