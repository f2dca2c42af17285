"""Cross-check properties of ``Formal/Perron/Theorem38.lean``: ``perron_certificate_plga``,
``perron_frobenius_metric_tensor``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import mpmath

import pyref

from ...certificates import perron_certificate
from ...registry import Checks, prop
from .._arith import ctx
from ._shared import (
    DPS,
    MP,
    Case,
    analyse,
    build_matrix,
    check_collatz,
    check_dominance,
    check_one_signed,
    check_pair,
    check_positive_image,
    check_pow_pos,
    check_ranks,
    nonpositive,
    perron_case,
)

#: certificate statistics of this process (kind, metric ε) -> [certified, total]
CERT_STATS: dict[tuple[str, float], list[int]] = {}


@prop(theorems=["PLGA.Perron.collatz_wielandt_min_le", "PLGA.Perron.collatz_wielandt_le_max",
                "PLGA.Perron.complex_eigenvalue_dominated", "PLGA.Perron.real_eigenvalue_dominated",
                "PLGA.Perron.metricTensor_perron_frobenius"],
      paper="Thm 3.8 (interval certificate: Perron root enclosure, Hopf bound on the other "
            "eigenvalues)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_certificate_plga(ex, backend, dps):
    """``crosscheck.certificates.perron_certificate`` on pyref's A_LM (called at 50-digit mp
    precision, so the mpf entries are converted exactly): its rigorous claims are checked
    against the 50-digit spectrum — the enclosure ``root_lo ≤ r ≤ root_hi`` (Collatz–Wielandt),
    every other eigenvalue ``|λ| ≤ other_radius`` (Hopf: τ·ρ_hi), and
    ``min v/max v ≥ vector_ratio_lb`` (the exact vector's ratio bounded through Hilbert's metric,
    ``d_H(v̂, v) ≤ log(CW(v̂))/(1 − τ)``). These claims hold whether or not the certificate is
    conclusive (``τ·ρ_hi < ρ_lo``); the note says which. Nearly reducible A_LM (ε = 1e-9,
    entries at ε) make φ tiny and τ ≈ 1: there the certificate is honestly inconclusive."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    with mpmath.workdps(DPS):
        cert = perron_certificate(an.a)
    stats = CERT_STATS.setdefault((ex.kind, ex.eps), [0, 0])
    stats[0] += int(cert.certified)
    stats[1] += 1
    E, L, R, tol, js = an.eig
    ch = Checks()
    with mpmath.workdps(DPS):
        ch.le("root_lo ≤ r", mpmath.mpf(cert.root_lo) - an.r, an.err_r)
        ch.le("r ≤ root_hi", an.r - mpmath.mpf(cert.root_hi), an.err_r)
        for j in range(an.n):
            if j != js:
                ch.le("other |λ| ≤ τ·ρ_hi", abs(E[j]) - mpmath.mpf(cert.other_radius), tol[j])
        if cert.certified:
            # the claim "simple and strictly dominant", against the 50-digit spectrum (the
            # float fields cannot show it when Hopf's separation is below float64 resolution)
            for j in range(an.n):
                if j != js:
                    ch.margin("certified ⇒ other |λ| < r", tol[j] + an.err_r, an.r - abs(E[j]))
        ratio = min(an.v) / max(an.v)
        omt = 1 - an.tau
        if omt > 0:
            dh = mpmath.log(an.cw_hi / an.cw_lo) / omt
            ch.le("min v/max v ≥ vector_ratio_lb", mpmath.mpf(cert.vector_ratio_lb) - ratio,
                  ratio * (mpmath.exp(dh) - 1) + MP * ratio)
    return ch.outcome(note="certificate conclusive" if cert.certified
                      else f"certificate inconclusive (kind {ex.kind}, ε={ex.eps:g})")


@prop(theorems=["PLGA.Perron.metricTensor_perron_frobenius",
                "PLGA.Perron.metricTensor_isPerronFrobenius_of_pairs",
                "PLGA.Perron.perron_frobenius", "PLGA.Perron.isPerronFrobenius_of_pairs"],
      paper="Thm 3.8 (Perron–Frobenius for A_LM = iSwiGLU(WA + b) + ε, every conclusion)",
      strategy=lambda: perron_case(kinds=("pipeline", "pipeline", "random", "positive"), hi=6),
      backends=("mp",), cost=1.0)
def perron_frobenius_metric_tensor(ex, backend, dps):
    """Every field of ``IsPerronFrobenius`` at once, on pyref's A_LM (pipeline with the sigmoid
    gate; random W, A, b), each drawn pipeline evaluated at the metric ε = 1e-9 (nearly
    reducible), at the drawn ε and at ε = 0.1, plus the hypothesis ``A_LM ≥ ε`` at the metric ε
    itself; and on positive matrices
    (``perron_frobenius``): root > 0; v, y > 0 with ``Av = rv``, ``Aᵀy = ry`` (pyref's pairs, which
    witness the existence in ``perron_frobenius``/``metricTensor_perron_frobenius``);
    positive image and positive powers; nonnegative eigenvectors belong to r (one-signed
    count); Collatz–Wielandt; geometric simplicity on both sides; no Jordan block; real and
    complex dominance. Same tolerances as the single-topic properties (module docstring)."""
    ch = Checks()
    eps_list = [ex.eps] if ex.kind == "positive" else sorted({1e-9, ex.eps, 0.1})
    for eps in eps_list:
        case = Case(ex.kind, ex.n, eps, ex.parts, ex.xs, ex.zs, ex.ps, ex.k)
        A = build_matrix(case, backend, dps)
        if (bad := nonpositive(A)) is not None:
            return bad
        an = analyse(A)
        if ex.kind != "positive":
            # the hypothesis metricTensor_perron_frobenius takes from metricTensor_entry_ge:
            # A_LM ≥ ε entrywise at the *metric* ε (pyref's mp constant for it), exactly
            with ctx("mp", dps):
                e = pyref.get_backend("mp", dps).const(eps)
                ch.exact("A_LM ≥ metric ε (hypothesis via metricTensor_entry_ge)",
                         sum(1 for t in an.a.ravel() if t < e))
        check_positive_image(ch, an.a, ex.xs, "mp", dps)
        check_pow_pos(ch, an.a, "mp", dps)
        check_pair(ch, an)
        check_collatz(ch, an, ex.ps, ex.xs)
        check_one_signed(ch, an)
        check_ranks(ch, an)
        check_dominance(ch, an)
    return ch.outcome()
