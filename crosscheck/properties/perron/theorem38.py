"""Cross-check properties of ``Formal/Perron/Theorem38.lean``: ``perron_certificate_plga``,
``perron_frobenius_metric_tensor``, ``perron_result_matches_spec``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.analysis import perron

from ...certificates import perron_certificate
from ...registry import Checks, prop
from ...spec_eval import analysis as sev
from ...spec_eval._scalar import fsum, mat
from .._arith import U64, ctx
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


#: working precision of the spec evaluator (30 digits above pyref's 50: its own error, ~1e-78
#: relative, is negligible against every bound below)
REF_DPS = 80

#: |fl_50(x) − x| ≤ 2^-169 |x|: mpmath's 50 digits are 169 bits
U50 = mpmath.mpf(2) ** -169


def _vector_check(ch: Checks, a, vh, vr, tau):
    """pyref's vector against the evaluator's (both a-posteriori bounded: Hilbert radius d of
    each from its own Collatz–Wielandt ratios and Birkhoff's τ). For the exact Σ = 1 vector v*:
    the ratios (v/Σv)_i/v*_i straddle 1 and span at most e^d, so |v_i/Σv − v*_i| ≤ (e^d − 1)v*_i;
    with δ = |Σv̂ − 1| (entries rounded to 50 digits) the two vectors differ by at most
    (e^{d̂} + e^{d_ref} − 2)·e^{d_ref}·v_ref,i + 2δ·v̂_i (plus 1e-70 for the reference's own
    rounding)."""
    n = len(vh)
    ch.exact("vector > 0", sum(1 for t in vh if not t > 0))
    dl = abs(fsum(vh) - 1)
    ch.le("Σ vector = 1 (50-digit rounding)", dl, n * 2 * U50)
    dh = sev.perronVectorRadius(a, vh, tau)
    dr = sev.perronVectorRadius(a, vr, tau)
    grow = (mpmath.exp(dh) + mpmath.exp(dr) - 2) * mpmath.exp(dr)
    ch.le("vector = spec Perron vector (Σ = 1)",
          max(abs(x - y) - grow * y - 2 * dl * x for x, y in zip(vh, vr)),
          mpmath.mpf(10) ** -70)


def _spectral_bound(lam, L, R, fro, full, n):
    """Bound on |ŝ − s| for pyref's second modulus: first-order perturbation |δλ_j| ≤ κ_j‖E‖₂,
    doubled for the second-order term, maximized over j (the other moduli and the Perron root:
    the max of the moduli moves by at most the largest shift). ‖E‖₂: mp (``full_spectrum_mp``)
    the backward error of mpmath's QR at 50 digits, ≤ MP·‖A‖_F with MP = 1e-40 (see the package
    docstring); float64 the rounding of A to float64 (u‖A‖_F) plus LAPACK's backward error
    10n²u‖A‖_F (Golub–Van Loan §7.5.6). Valid (returned) only when 4 max δ_j is below the
    smallest eigenvalue separation, so that the perturbed spectrum is matched one-to-one and the
    Perron index is not swapped; else None."""
    kap = sev.eigenvalueConditions(L, R)
    eps = mpmath.mpf(1e-40) if full else (1 + 10 * n * n) * mpmath.mpf(U64)
    dmax = max(k * eps * fro for k in kap)
    sep = min((abs(lam[i] - lam[j]) for i in range(n) for j in range(n) if i != j),
              default=mpmath.inf)
    return 2 * dmax if 4 * dmax < sep else None




@st.composite
def perron_spec_case(draw):
    """A positive matrix with a generic spectrum: "cyclic" = a cyclic permutation plus a random
    positive perturbation δ·U(10⁻³, 1) (complex subdominant eigenvalues of modulus ≈ 1 next to a
    root ≈ 1 + nδ/2: a wrong |λ₂| shows), or a :func:`perron_case` matrix (pyref's A_LM
    pipeline — n = 1 included —, random metric tensors, entries in [ε, 1 + ε])."""
    kind = draw(st.sampled_from(["cyclic", "cyclic", "positive", "pipeline", "random"]))
    if kind != "cyclic":
        return draw(perron_case(kinds=(kind,), lo=1 if kind == "pipeline" else 2, hi=6))
    n = draw(st.integers(2, 6))
    delta = draw(st.sampled_from([0.05, 0.3, 1.0]))
    vals = draw(st.lists(st.floats(1e-3, 1.0, allow_nan=False), min_size=n * n, max_size=n * n))
    A = np.roll(np.eye(n), 1, axis=1) + delta * np.array(vals).reshape(n, n)
    return Case("positive", n, float(A.min()), (A,))


@prop(theorems=["PLGA.Perron.perron_frobenius", "PLGA.Perron.exists_perron_pair",
                "PLGA.Perron.collatz_wielandt_min_le", "PLGA.Perron.collatz_wielandt_le_max",
                "PLGA.Perron.complex_eigenvalue_dominated"],
      paper="Thm 3.8 / spec D (every field of pyref's PerronResult against the spectrum)",
      strategy=perron_spec_case, backends=("mp",), cost=2.0)
def perron_result_matches_spec(case, backend, dps):
    """Every field of ``pyref.analysis.perron`` (both ``full_spectrum_mp`` branches on every
    input, n = 1 … 6)
    against the spec evaluator at 80 digits (``spec_eval.analysis``: ``mpmath.eig`` of the exact
    matrix; nothing of pyref's inverse iteration):

    * ``root`` = the eigenvalue of largest real part r: |r̂ − r| ≤ err(v̂) + err(v_ref), each the
      Collatz–Wielandt half-width max(M − r, r − m) of the vector's own ratios (the exact root is
      in [m, M]);
    * ``vector`` = the Σ = 1 eigenvector, > 0, bound from Hilbert's metric (:func:`_vector_check`);
    * ``second_modulus`` = max_{j≠k}|λ_j| within :func:`_spectral_bound` (+u for the float);
    * ``gap`` = r − |λ₂| and ``ratio`` = |λ₂|/r, the floats pyref forms from them: the second
      modulus bound plus u·r + err(v̂) for float(r̂) and one rounding of the result;
    * ``residual`` = ‖A v̂ − r̂ v̂‖_∞ evaluated here on the returned (50-digit) pair: pyref forms it
      from the unrounded 60-digit pair, so they differ by ≤ (‖A‖_∞ + 2r̂)·max v̂·(2^-168 +
      10^-58); and it is at pyref's promised 50-digit level, ≤ MP·(‖A‖_∞ + r̂)·max v̂.
    mp only: ``perron`` computes at ``dps`` digits whatever the input type."""
    A = build_matrix(case, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    ch = Checks()
    notes = []
    with mpmath.workdps(REF_DPS):
        a = mat(A)
        r, v, lam, L, R = sev.perronPair(a)
        tau = sev.birkhoffContraction(a)
        for full in (False, True):
            res = perron(A, dps=dps, full_spectrum_mp=full)
            notes.append(_result_checks(ch, a, res, full, (r, v, lam, L, R, tau)))
    return ch.outcome(note="; ".join(x for x in notes if x))


def _result_checks(ch: Checks, a, res, full, ref) -> str:
    """The sub-checks of one PerronResult against the evaluator's data ``ref`` = (r, v, λ, L, R,
    τ) (inside the REF_DPS context); returns a note."""
    r, v, lam, L, R, tau = ref
    n = len(a)
    tag = " (full_spectrum_mp)" if full else ""
    rh, vh = mpmath.mpf(res.root), mat(res.vector)
    lo, hi = sev.collatzWielandt(a, vh)
    lo_r, hi_r = sev.collatzWielandt(a, v)
    err = max(hi - rh, rh - lo, 0) + max(hi_r - r, r - lo_r, 0) + mpmath.mpf(10) ** -70 * r
    ch.le("root = spec Perron root", abs(rh - r), err)
    _vector_check(ch, a, vh, v, tau)
    s = sev.secondModulus(lam)
    sb = _spectral_bound(lam, L, R, sev.frobNorm(a), full, n)
    if n == 1:
        ch.exact("second_modulus, gap − r, ratio = 0 (n = 1)" + tag,
                 int(res.second_modulus != 0) + int(res.ratio != 0)
                 + int(res.gap != float(res.root)))
    elif sb is None:
        return "eigenvalues closer than the perturbation bound: |λ₂| not compared"
    else:
        sb = sb + U64 * s
        ch.le("second_modulus = max_{j≠k} |λ_j|" + tag, abs(mpmath.mpf(res.second_modulus) - s),
              sb)
        rerr = U64 * r + err
        ch.le("gap = r − |λ₂|" + tag, abs(mpmath.mpf(res.gap) - (r - s)),
              rerr + sb + U64 * (r + s))
        rho = s / r
        ch.le("ratio = |λ₂|/r" + tag, abs(mpmath.mpf(res.ratio) - rho),
              (sb + rho * rerr) / (r * (1 - 2 * U64)) + 2 * U64 * rho)
        # complex_eigenvalue_dominated: |λ| < r for λ ≠ r, so the reported gap is positive
        # once its error bound is below it
        ch.margin("gap > 0 (|λ₂| < r)" + tag, rerr + sb + U64 * (r + s), mpmath.mpf(res.gap))
    Av = sev.mulVec(a, vh)
    res_ev = max(abs(x - rh * y) for x, y in zip(Av, vh))
    scale = (max(fsum(row) for row in a) + 2 * rh) * max(vh)
    ch.le("residual = ‖A v̂ − r̂ v̂‖_∞", abs(mpmath.mpf(res.residual) - res_ev),
          scale * (2 * U50 + mpmath.mpf(10) ** -58))
    ch.le("residual at the 50-digit level", res_ev, mpmath.mpf(1e-40) * scale)
    return ""
