"""The Arb certificates (``crosscheck.certificates``) and Arb high-precision paths of
``pyref.analysis`` against mpmath as an independent second opinion: every mpmath value must lie
inside the Arb enclosure, widened only by mpmath's own stated error (derived in each test)."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from flint import arb, arb_mat

from crosscheck.audit.highprec import det_report, perron_report
from crosscheck.certificates import perron_certificate, rope_nonresonance
from pyref import analysis
from pyref.arb_linalg import arb_matrix, exact_det, mid_mpf

#: unit roundoff of mpmath at 60 digits (dps_to_prec(60) = 203 bits)
U60 = mpmath.mpf(2) ** -203
#: float64 unit roundoff
U64 = 2.0 ** -53


def _a_lm(n: int, seed: int, eps: float = 1e-9) -> np.ndarray:
    """An A_LM-like matrix: iSwiGLU(W A + b) + ε = u²σ(u) + ε (entrywise positive, spread over
    many orders of magnitude, like pyref's metric tensor)."""
    rng = np.random.default_rng(seed)
    u = rng.normal(0, 1, (n, n)) @ rng.normal(0, 1, (n, n)) / np.sqrt(n) + rng.normal(0, 1, n)
    return u * u / (1 + np.exp(-u)) + eps


def _mp_spectrum(A, dps=60):
    """mpmath.eig at ``dps`` digits: (Perron root, Σ=1 Perron vector, moduli of the others,
    the bound on mpmath's error of each eigenvalue). mpmath's QR is backward stable with
    ‖E‖ ≤ p(n)·u·‖A‖_F, p(n) ≤ 1e9 for n ≤ 16 (the project's convention, see
    crosscheck/properties/perron); first-order perturbation |δλ| ≤ κ‖E‖, κ ≤ ‖y‖‖x‖/|yᵀx|
    from mpmath's own left/right vectors, doubled for the second-order term."""
    with mpmath.workdps(dps):
        M = mpmath.matrix(np.asarray(A, dtype=object).tolist())
        E, L, R = mpmath.eig(M, left=True, right=True)
        k = max(range(len(E)), key=lambda i: mpmath.re(E[i]))
        x = [mpmath.re(R[i, k]) for i in range(M.rows)]
        y = [L[k, i] for i in range(M.rows)]
        kappa = (mpmath.norm(mpmath.matrix(x)) * mpmath.norm(mpmath.matrix(y))
                 / abs(mpmath.fsum(a * b for a, b in zip(y, x))))
        err = 2 * kappa * mpmath.mpf(10) ** 9 * mpmath.mpf(2) ** -(mpmath.mp.prec) \
            * mpmath.mnorm(M, "f")
        s = mpmath.fsum(x)
        others = [abs(E[i]) for i in range(len(E)) if i != k]
        return mpmath.re(E[k]), [t / s for t in x], others, err


def _inside(ball: arb, x: mpmath.mpf, tol: mpmath.mpf) -> bool:
    """Whether x lies in the ball widened by tol (compared at the mpf's precision)."""
    lo, hi = mid_mpf(ball.lower()), mid_mpf(ball.upper())
    return lo - tol <= x <= hi + tol


# ------------------------------------------------------------------------- the Perron root
@pytest.mark.parametrize("seed", [0, 1])
def test_root_ball_contains_mpmath_root(seed):
    A = _a_lm(12, seed)
    c = perron_certificate(A, dps=30)
    rho, _, _, err = _mp_spectrum(A)
    with mpmath.workdps(60):
        assert _inside(c.root_ball, rho, err)
        assert mpmath.mpf(c.root_lo) <= rho + err and rho - err <= mpmath.mpf(c.root_hi)
    # not trivially wide: v at 30 digits makes the Collatz–Wielandt ratios agree to ~1e-30·
    # (‖A‖/ρ)·(max v/min v) (A_LM-like: ≲ 1e4); 1e-22 relative would fail for a float64 vector
    assert float(c.root_ball.rad()) < 1e-22 * float(rho)


def test_certificate_decided_on_a_well_separated_matrix():
    A = np.random.default_rng(5).uniform(0.5, 1.0, (12, 12))
    c = perron_certificate(A, dps=30)
    rho, v, others, err = _mp_spectrum(A)
    assert c.certified and not c.reason
    # φ ≥ (min a/max a)² ≥ 1/16, so τ ≤ (1 − 1/4)/(1 + 1/4) = 0.6 and the relative separation
    # 1 − τ·ρ_hi/ρ_lo ≥ 0.4 − (ρ_hi/ρ_lo − 1)·0.6 > 0.39
    assert c.tau <= 0.6 and c.separation > 0.39
    with mpmath.workdps(60):
        assert max(others) <= mpmath.mpf(c.other_radius) + err
        assert mpmath.mpf(c.other_radius) < mpmath.mpf(c.root_lo)
        ratio = min(v) / max(v)
        # the Hilbert-metric margin: a lower bound, and tight (d_H ≤ log(hi/lo)/(1 − τ) ~ 1e-29,
        # so it is within 1e-20 of the exact ratio up to mpmath's vector error ≪ 1e-40)
        assert mpmath.mpf(c.vector_ratio_lb) <= ratio * (1 + mpmath.mpf(10) ** -40)
        assert mpmath.mpf(c.vector_ratio_lb) >= ratio * (1 - mpmath.mpf(10) ** -15)
    assert c.hilbert_radius < 1e-25


def _coupled(delta: float, seed: int = 2) -> np.ndarray:
    """Two positive 2×2 blocks with the same Perron root, coupled by δ·U(½, 1): λ₁ − λ₂ ~ δ."""
    rng = np.random.default_rng(seed)
    vals = rng.uniform(0.1, 1.0, (4, 4))
    A = delta * (0.5 + vals / 2)
    B1, B2 = vals[:2, :2], vals[2:, 2:]
    A[:2, :2] = B1
    A[2:, 2:] = B2 * (max(np.linalg.eigvals(B1).real) / max(np.linalg.eigvals(B2).real))
    return A


def test_certificate_inconclusive_not_wrong_when_nearly_degenerate():
    # λ₁ − λ₂ ~ 1e-40: the 30-digit enclosure is wider than Hopf's separation 1 − τ ~ 2e-40
    A = _coupled(1e-40)
    rho, v, others, err = _mp_spectrum(A, dps=80)
    with mpmath.workdps(30):
        v30 = [+t for t in v]        # the exact vector rounded to 30 digits
    c = perron_certificate(A, v=v30, dps=30)
    assert not c.certified and c.reason
    with mpmath.workdps(80):
        assert _inside(c.root_ball, rho, err)            # the claims still hold
        assert max(others) <= mpmath.mpf(c.other_radius) + err
        assert mpmath.mpf(c.vector_ratio_lb) <= min(v) / max(v)
    # pyref's own 30-digit pair cannot resolve a 1e-40 gap (its vector's condition is ~1e40);
    # certified from that vector, the claims still hold and the verdict stays inconclusive
    c2 = perron_certificate(A, v=analysis.perron(A, dps=30).vector, dps=30)
    assert not c2.certified
    with mpmath.workdps(80):
        assert _inside(c2.root_ball, rho, err)
        assert max(others) <= mpmath.mpf(c2.other_radius) + err


def test_tau_against_mpmath_phi():
    A = _a_lm(10, 3)
    c = perron_certificate(A, dps=30)
    n = len(A)
    with mpmath.workdps(60):
        a = [[mpmath.mpf(float(x)) for x in row] for row in A]
        phi = min(min(a[i][k] / a[j][k] for k in range(n)) / max(a[i][k] / a[j][k]
                                                                  for k in range(n))
                  for i in range(n) for j in range(n) if i != j)
        sq = mpmath.sqrt(phi)
        tau = (1 - sq) / (1 + sq)
        # cert.tau ≥ τ; and tight: the float64 bound of φ is within (1 − 7u) of φ, which moves τ
        # by ≤ 7u·√φ/(1 + √φ)² ≤ 1.75u, plus one ulp (≤ 2u) for rounding τ up to a float
        assert tau <= mpmath.mpf(c.tau) <= tau + 4 * U64


def test_perron_vector_accurate_when_nearly_degenerate():
    # λ₁ − λ₂ ~ 1e-12: the vector's condition ~1e12; the solves at 60 digits + 10 bits leave
    # ≤ 1e12·2^-213 ≈ 0.06 u_d, plus the final rounding ≤ u_d (u_d = 2^-169, 50 digits)
    A = _coupled(1e-12)
    r = analysis.perron(A, dps=50)
    rho, v, _, err = _mp_spectrum(A, dps=80)
    ud = mpmath.mpf(2) ** -169
    with mpmath.workdps(80):
        assert abs(r.root - rho) <= 1.1 * ud * rho + err
        for a, b in zip(r.vector, v):
            assert abs(a - b) <= 1.1 * ud * b


def test_perron_same_result_on_float_mpf_and_arb_input():
    A = _a_lm(8, 4)
    r = analysis.perron(A, dps=40)
    with mpmath.workdps(40):
        Amp = np.array([[mpmath.mpf(float(x)) for x in row] for row in A], dtype=object)
    for B in (Amp, arb_matrix("t", A)):
        s = analysis.perron(B, dps=40)
        assert s.root == r.root and list(s.vector) == list(r.vector)


def test_ball_input_certifies_every_matrix_in_the_ball():
    A = _a_lm(6, 6)
    rad = 1e-25
    balls = arb_mat([[arb(float(x), rad) for x in row] for row in A])
    c = perron_certificate(balls, dps=30)
    E = np.random.default_rng(7).uniform(-0.9, 0.9, A.shape) * rad
    with mpmath.workdps(60):
        B = np.array([[mpmath.mpf(float(x)) + mpmath.mpf(e) for x, e in zip(ra, re)]
                      for ra, re in zip(A, E)], dtype=object)
    for M in (A, B):
        rho, _, others, err = _mp_spectrum(M)
        with mpmath.workdps(60):
            assert _inside(c.root_ball, rho, err)
            assert max(others) <= mpmath.mpf(c.other_radius) + err
    # the ball's radius shows in the enclosure: ~1e-25·‖A‖, far above the exact input's 1e-30
    assert float(c.root_ball.rad()) > 1e-27


def test_certificate_input_errors():
    with pytest.raises(ValueError, match="not finite"):
        perron_certificate(np.array([[1.0, np.nan], [1.0, 1.0]]))
    with pytest.raises(ValueError, match="square"):
        perron_certificate(np.ones((2, 3)))
    with pytest.raises(ValueError, match="v has 3 entries, expected n = 2"):
        perron_certificate(np.ones((2, 2)), v=[1.0, 1.0, 1.0])
    c = perron_certificate(np.ones((2, 2)), v=[1.0, -1.0])
    assert not c.certified and c.reason == "approximate eigenvector not positive"


# --------------------------------------------------------------------------- determinants
def _mp_det(A, dps=60):
    """mpmath.det at ``dps`` digits with its stated error: LU with partial pivoting is backward
    stable, ‖E‖_F ≤ n²2ⁿu‖A‖_F (Higham Thm 9.5), and |det(A + E) − det A| ≤ |det A|·√n·
    ‖A⁻¹‖₂‖E‖_F to first order (doubled): ≤ 2|det|·√n·n²2ⁿ·u·κ_F."""
    n = len(A)
    with mpmath.workdps(dps):
        d = mpmath.det(mpmath.matrix(np.asarray(A, dtype=object).tolist()))
        kappa = mpmath.mpf(np.linalg.cond(np.asarray(A, dtype=float), "fro")) * 2
        return d, 2 * abs(d) * mpmath.sqrt(n) * n * n * mpmath.mpf(2) ** n \
            * mpmath.mpf(2) ** -mpmath.mp.prec * kappa


@pytest.mark.parametrize("n,seed", [(12, 0), (64, 1)])
def test_det_ball_contains_mpmath_det_at_60_digits(n, seed):
    A = _a_lm(n, seed) if n == 64 else np.random.default_rng(seed).normal(0, 1, (n, n))
    ball = analysis.det(A, dps=60, backend="arb")
    d, err = _mp_det(A)
    with mpmath.workdps(60):
        assert _inside(ball, d, err)
        # Arb's ball is 60 digits tight (relative radius < 2^-203 by construction)
        assert mid_mpf(ball.rad()) <= abs(d) * U60 * 2
        assert analysis.det(A, dps=60) == +mid_mpf(ball)   # the mp backend is its midpoint


def test_det_singular_is_exactly_zero_and_exact_path_is_exact():
    row = np.random.default_rng(3).uniform(0.1, 1.0, 6)
    clone = np.tile(row, (6, 1))
    ball = analysis.det(clone, dps=50, backend="arb")
    assert ball.is_exact() and ball == 0 and analysis.det(clone, dps=50) == 0
    M = np.random.default_rng(4).uniform(-1, 1, (5, 5))
    d, err = _mp_det(M, dps=80)
    with mpmath.workdps(80):
        assert abs(mid_mpf(exact_det(arb_matrix("t", M))) - d) <= err
    # 1e-20 on a diagonal: the float32 underflow contrast, exact product at any digits
    D = np.diag(np.full(64, 1e-20))
    with mpmath.workdps(1100):    # 3657 bits ≥ 64·53: the product is exact
        exact = mpmath.mpf(1e-20) ** 64
        assert _inside(analysis.det(D, dps=50, backend="arb"), exact, mpmath.mpf(0))
    assert analysis.det(D, backend="float32") == 0.0


def test_det_of_balls_encloses_every_member():
    A = np.random.default_rng(8).normal(0, 1, (5, 5))
    balls = arb_mat([[arb(float(x), 1e-30) for x in row] for row in A])
    ball = analysis.det(balls, dps=50, backend="arb")
    d, err = _mp_det(A)
    with mpmath.workdps(60):
        assert _inside(ball, d, err) and mid_mpf(ball.rad()) > 0


# -------------------------------------------------------------------------------- RoPE
def test_rope_nonresonance_bounds_against_mpmath():
    c = rope_nonresonance(64, 1e4, dps=30)
    with mpmath.workdps(50):
        th = [mpmath.power(mpmath.mpf(10) ** 4, -mpmath.mpf(2 * j) / 64) for j in range(32)]
        sins = min(abs(mpmath.sin(t)) for t in th)
        gaps = {(j, k): abs(mpmath.cos(th[j]) - mpmath.cos(th[k]))
                for j in range(32) for k in range(j + 1, 32)}
        worst = min(gaps, key=gaps.get)
        # lower bounds (mpmath's own error at 50 digits ≤ 1e-45 relative here), and tight: the
        # Arb balls at 30 digits are ~1e-30 wide, the float rounding down costs ≤ 2u
        assert sins * (1 - 2 * U64) <= mpmath.mpf(c.min_abs_sin) <= sins * (1 + 1e-40)
        assert gaps[worst] * (1 - 2 * U64) <= mpmath.mpf(c.min_abs_cos_gap) <= \
            gaps[worst] * (1 + 1e-40)
    assert c.certified and c.worst_pair == worst


# ---------------------------------------------------------------------------- audit records
def test_audit_records_on_arb():
    A = _a_lm(64, 9)
    p = perron_report(A, 30)
    # the Hilbert-metric margin is a lower bound of the computed vector's ratio and far above
    # the entry bound min a/max a (~1e-9 here)
    assert p["certified"] is True and p["vector_margin_lb"] <= p["vector_margin"]
    assert p["vector_margin_lb"] > 1e3 * A.min() / A.max()
    d = det_report(A, 30)
    d_ref, err = _mp_det(A, dps=40)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(d["det_mp"]) - d_ref) <= abs(d_ref) * mpmath.mpf(10) ** -19 + err
    # relative radius < 2^-prec_bits(30) = 2^-103 by construction of the enclosure
    assert d["det_certified"] is True and 0 <= d["det_rel_radius"] <= 2.0 ** -103
    z = det_report(np.tile(A[0], (64, 1)), 30)
    assert z["det_certified"] is True and z["sign"] == 0 and z["det_rel_radius"] == 0.0
