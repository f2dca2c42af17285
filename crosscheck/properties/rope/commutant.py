"""Cross-check properties of ``Formal/Rope/Commutant.lean``: ``rope_block_sylvester_maps`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import combine, prop
from ...strategies import even_dk
from .._arith import U64, conv, ctx, gamma, mp_bound
from ._shared import (
    BASE,
    POSITION,
    REF_DPS,
    REF_ERR,
    SLACK,
    SVD_P,
    _Ar,
    _certificate,
    _eps_rot,
    _exceeds,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.commCoords_commEmbed":
        "reading the entries (a_j, b_j) back out of commEmbed a b is exact data movement; no "
        "arithmetic",
    "PLGA.Rope.commEmbed_injective":
        "injectivity of placing (a_j, b_j) into entries; exact data movement, no arithmetic",
    "PLGA.Rope.commEmbed_add":
        "linearity of the placement of (a_j, ±b_j) into 2×2 blocks; no pyref counterpart (pyref "
        "never builds commEmbed)",
    "PLGA.Rope.commEmbed_smul":
        "homogeneity of the placement of (a_j, ±b_j) into 2×2 blocks; no pyref counterpart",
    "PLGA.Rope.commEmbed_zero":
        "commEmbed 0 0 = 0 on the Lean definition; no computation",
}


# ================================================ 5. the 2×2 Sylvester maps of the blocks
@st.composite
def sylvester_inputs(draw):
    return draw(even_dk(2, 16)), draw(st.lists(POSITION, min_size=0, max_size=3))


def _sylvester(R: list, j: int, k: int, mp: bool):
    """Stacked over positions: vec(rot_j(n) X − X rot_k(n)) = L(n) vec(X) (row-major vec),
    L[(r,s),(r',s')] = A[r,r'] δ(s,s') − δ(r,r') B[s',s] with A = rot_j(n), B = rot_k(n)."""
    rows = []
    for Rn in R:
        A = Rn[2 * j:2 * j + 2, 2 * j:2 * j + 2]
        B = Rn[2 * k:2 * k + 2, 2 * k:2 * k + 2]
        L = np.empty((4, 4), dtype=object if mp else np.float64)
        for r in range(2):
            for s in range(2):
                for r2 in range(2):
                    for s2 in range(2):
                        L[2 * r + s, 2 * r2 + s2] = ((A[r, r2] if s == s2 else 0)
                                                     - (B[s2, s] if r == r2 else 0))
        rows.append(L)
    return np.concatenate(rows, axis=0)


@prop(theorems=["PLGA.Rope.offDiag_block_eq_zero", "PLGA.Rope.diag_block_commutes_iff"],
      paper="Prop 4.1 (2×2 Sylvester argument: off-diagonal blocks vanish, diagonal blocks are a·1 "
            "+ b·J)",
      strategy=sylvester_inputs)
def rope_block_sylvester_maps(ex, backend, dps):
    """For pyref's rotation blocks at positions N = {1} ∪ drawn, the stacked linear map
    X ↦ (rot_j(n) X − X rot_k(n))_{n∈N} on 2×2 blocks: its singular values match the exact ones
    (the L(n) are normal and simultaneously diagonalized by v_±⊗v_±, so σ² ∈ {Σ_n 4sin²((φ_j ±
    φ_k)/2)}, each twice, φ = nθ; 80-digit reference); for j ≠ k the smallest is > its error bound
    (injective: X = 0, offDiag_block_eq_zero) and ≥ |cos θ_j − cos θ_k| − bound ≥ the
    interval-certified gap of ``certificates.rope_nonresonance`` (σ_min(L_jk(1)) ≥ |cos θ_j − cos
    θ_k|); for j = k exactly two vanish (≤ bound), the third is ≥ 2|sin θ_j| − bound > bound, and 1
    and J are in the kernel: the null space is span{1, J} (diag_block_commutes_iff). float64 bound
    (Weyl): ‖L' − L‖_F (entries: ε_n, and 2ε_n + 2.01u where c_j − c_k is rounded) + p(m,
    n)·u·‖L'‖_F for LAPACK's SVD; mp: √eig(LᵀL) with the Gram matrix formed exactly and
    diagonalized by ``mpmath.eigsy`` at 2·dps + 10 digits, ``mp_bound``."""
    dk, extra = ex
    ar = _Ar(backend, dps)
    N = [1] + [int(p) for p in extra]
    R = [pyref.rope.rope_matrix(p, dk, base=BASE, backend=backend, dps=dps) for p in N]
    cert = _certificate(dk)
    m = dk // 2
    pairs = [(j, k) for j in range(m) for k in range(m)]
    with ctx(backend, dps):       # the differences c_j − c_k at the backend's precision
        Ls = [_sylvester(R, j, k, ar.mp) for j, k in pairs]
    if ar.mp:
        # σ_i = √λ_i(LᵀL): the Gram matrix of 50-digit entries is exact at 2·dps + 10 digits and
        # mpmath.eigsy there leaves |λ' − λ| ~ 10^-(2dps+9)‖L‖², i.e. σ to ~10^-(dps+4) even at
        # σ = 0
        # (mpmath's svd_r fails to converge on some of these structured matrices)
        sv = []
        with mpmath.workdps(2 * dps + 10):
            for L in Ls:
                Lm = mpmath.matrix(L.tolist())
                lam = mpmath.eigsy(Lm.T * Lm, eigvals_only=True)
                sv.append(sorted(mpmath.sqrt(max(lam[i], 0)) for i in range(4)))
        normL = [float(np.sqrt(np.sum(to_float64(L) ** 2))) for L in Ls]
        delta = [mp_bound(nl) for nl in normL]
    else:
        sv = [sorted(s) for s in np.linalg.svd(np.array(Ls), compute_uv=False)]
        delta = []
        for L in Ls:
            err2 = sum(4 * (2 * _eps_rot(p) + 2.01 * U64) ** 2 + 8 * _eps_rot(p) ** 2 for p in N)
            nl = float(np.linalg.norm(L))
            delta.append((math.sqrt(err2) + SVD_P(L.shape[0], 4) * U64 * nl) * SLACK)
    checks = []
    vec1, vecJ = np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, -1.0, 1.0, 0.0])
    for (j, k), L, s, d in zip(pairs, Ls, sv, delta):
        with mpmath.workdps(REF_DPS):
            B = mpmath.mpf(int(BASE))
            th_j, th_k = (mpmath.power(B, mpmath.mpf(-2 * i) / dk) for i in (j, k))
            plus = sum((4 * mpmath.sin(p * (th_j + th_k) / 2) ** 2 for p in N), mpmath.mpf(0))
            minus = sum((4 * mpmath.sin(p * (th_j - th_k) / 2) ** 2 for p in N), mpmath.mpf(0))
            ref = sorted([mpmath.sqrt(plus)] * 2 + [mpmath.sqrt(minus)] * 2)
            dev = max(float(abs(mpmath.mpf(si) - ri)) for si, ri in zip(s, ref))
        checks.append(("singular values of the stacked Sylvester map "
                       f"({'diag' if j == k else 'off-diag'})",
                       dev, d + REF_ERR))
        smin = float(s[0])
        if j != k:
            checks.append(_exceeds("j ≠ k: σ_min > error bound (only X = 0 intertwines)", smin, d))
            checks.append(_exceeds("σ_min ≥ certified |cos θ_j − cos θ_k| (non-resonance margin)",
                                   smin + d, cert.min_abs_cos_gap * (1 - 1e-12)))
        else:
            checks.append(("j = k: two singular values vanish", float(s[1]), d))
            checks.append(_exceeds("j = k: σ_3 ≥ certified 2|sin θ_j| (null space exactly 2-dim)",
                                   float(s[2]) + d, 2 * cert.min_abs_sin * (1 - 1e-12)))
            checks.append(_exceeds("j = k: σ_3 > error bound", float(s[2]), d))
            with ctx(backend, dps):
                v1, vJ = conv(backend, dps, vec1, vecJ)
                r = (float(np.max(np.abs(to_float64(L @ v1))))
                     + float(np.max(np.abs(to_float64(L @ vJ)))))
            eps = max(_eps_rot(p) for p in N)
            tol = mp_bound(4.0) if ar.mp else (4 * eps + 4.02 * U64 + 4.01 * gamma(4)) * SLACK
            checks.append(("j = k: 1 and J are in the kernel", r, 2 * tol))
    return combine(checks, met=cert.certified)
