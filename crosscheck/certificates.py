"""Certificates for what floating point cannot decide, by rigorous interval arithmetic
(``mpmath.iv``: every operation returns an interval guaranteed to contain the exact
result).

* :func:`rope_nonresonance` — the hypothesis of the RoPE commutant theorems (Prop 4.1)
  for a concrete configuration: with ``θ_j = Θ^{-2j/d_k}``, every ``sin θ_j ≠ 0``
  (the diagonal-block hypothesis at position 1) and every ``cos θ_j − cos θ_k ≠ 0``
  for ``j ≠ k`` (the off-diagonal-block hypothesis at position 1), each with a
  rigorous lower bound on its modulus.
* :func:`perron_certificate` — for a given entrywise-positive matrix ``A``: an
  enclosure ``[lo, hi]`` of the Perron root from the Collatz–Wielandt bounds
  ``min_i (Av)_i/v_i ≤ ρ(A) ≤ max_i (Av)_i/v_i`` (valid for *any* positive ``v``), and
  a disk ``|λ| ≤ τ(A)·hi`` containing every other eigenvalue, with ``τ`` Birkhoff's
  contraction coefficient ``(1 − √φ)/(1 + √φ)``,
  ``φ = min_{i,j,k,l} a_ik a_jl / (a_il a_jk)`` (Hopf's theorem: for a positive matrix
  every eigenvalue other than ρ satisfies ``|λ| ≤ τ(A) ρ(A)``). When ``τ·hi < lo`` the
  Perron root is certified simple and strictly dominant, and the ratio bound
  ``min v / max v ≥ min a / max a`` certifies the positive eigenvector's margin.
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
from mpmath import iv

from pyref.analysis import perron


@dataclass
class NonResonance:
    d_k: int
    base: float
    certified: bool
    min_abs_sin: float       # rigorous lower bound of min_j |sin θ_j|
    min_abs_cos_gap: float   # rigorous lower bound of min_{j<k} |cos θ_j − cos θ_k|
    worst_pair: tuple[int, int]
    dps: int

    def summary(self) -> str:
        return (f"RoPE non-resonance d_k={self.d_k}, Θ={self.base:g}: "
                f"{'CERTIFIED' if self.certified else 'NOT certified'}; "
                f"min|sin θ_j| ≥ {self.min_abs_sin:.3e}, "
                f"min|cos θ_j − cos θ_k| ≥ {self.min_abs_cos_gap:.3e} (pair {self.worst_pair})")


def _lo(x) -> mpmath.mpf:
    """The (rigorous) lower endpoint of an interval, as an mpf."""
    return mpmath.mp.make_mpf(x._mpi_[0])


def _hi(x) -> mpmath.mpf:
    """The (rigorous) upper endpoint of an interval, as an mpf."""
    return mpmath.mp.make_mpf(x._mpi_[1])


def _exact_iv(x):
    """An interval enclosing ``x`` exactly (an mpf of any precision, or a binary float), with no
    rounding through the caller's current mpmath precision."""
    return iv.mpf(x if isinstance(x, mpmath.mpf) else float(x))


def _down(x: mpmath.mpf) -> float:
    """A float64 ≤ x (outward rounding keeps reported bounds rigorous)."""
    f = float(x)
    return float(np.nextafter(f, -np.inf)) if f > x else f


def _up(x: mpmath.mpf) -> float:
    """A float64 ≥ x."""
    f = float(x)
    return float(np.nextafter(f, np.inf)) if f < x else f


def _lower_abs(x) -> mpmath.mpf:
    """Rigorous lower bound of |x| for an interval x (0 if it contains 0)."""
    a, b = _lo(x), _hi(x)
    if a > 0:
        return a
    if b < 0:
        return -b
    return mpmath.mpf(0)


def rope_nonresonance(d_k: int = 64, base: float = 1e4, dps: int = 30) -> NonResonance:
    """Certify non-resonance of the RoPE frequencies ``θ_j = base^{-2j/d_k}``."""
    if d_k < 2 or d_k % 2:
        raise ValueError(f"rope_nonresonance: d_k must be even and >= 2, got {d_k}")
    m = d_k // 2
    iv.dps = dps
    B = iv.mpf(str(base)) if isinstance(base, float) and base == int(base) else iv.mpf(base)
    thetas = [iv.exp(-iv.mpf(2 * j) / d_k * iv.log(B)) for j in range(m)]
    sins = [_lower_abs(iv.sin(t)) for t in thetas]
    coss = [iv.cos(t) for t in thetas]
    worst, pair = None, (0, 0)
    for j in range(m):
        for k in range(j + 1, m):
            lb = _lower_abs(coss[j] - coss[k])
            if worst is None or lb < worst:
                worst, pair = lb, (j, k)
    worst = worst if worst is not None else mpmath.mpf("inf")
    min_sin = min(sins)
    return NonResonance(d_k, float(base), bool(min_sin > 0 and worst > 0), _down(min_sin),
                        _down(worst) if mpmath.isfinite(worst) else float("inf"), pair, dps)


@dataclass
class PerronCertificate:
    n: int
    certified: bool
    root_lo: float
    root_hi: float
    tau: float                # Birkhoff contraction coefficient (upper bound)
    other_radius: float       # every other eigenvalue has |λ| ≤ other_radius
    vector_ratio_lb: float    # rigorous lower bound of min v / max v for the Perron vector
    reason: str
    #: rigorous lower bound of 1 − other_radius/root_lo (> 0 exactly when certified); the float
    #: fields above are outward-rounded and may not resolve a separation below float64 precision
    separation: float = 0.0

    def summary(self) -> str:
        return (f"Perron n={self.n}: {'CERTIFIED' if self.certified else 'inconclusive'}; "
                f"ρ ∈ [{self.root_lo:.12g}, {self.root_hi:.12g}], other |λ| ≤ "
                f"{self.other_radius:.6g} (τ ≤ {self.tau:.6g}), relative separation ≥ "
                f"{self.separation:.3e}, min v/max v ≥ {self.vector_ratio_lb:.3e}"
                + (f" — {self.reason}" if self.reason else ""))


def perron_certificate(A, v=None, dps: int = 30) -> PerronCertificate:
    """Certify the Perron structure of an entrywise-positive ``A`` (see module docstring).

    ``v``: an approximate positive eigenvector (default: from ``pyref.analysis.perron``).
    Raises ``ValueError`` if ``A`` is not a finite square matrix with positive entries.
    """
    A = np.asarray(A, dtype=object if np.asarray(A).dtype == object else np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1] or A.shape[0] == 0:
        raise ValueError("perron_certificate: expected a non-empty square matrix, got shape "
                         f"{A.shape}")
    n = A.shape[0]
    iv.dps = dps
    Ai = [[_exact_iv(A[i, j]) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(n):
            if not _lo(Ai[i][j]) > 0:
                raise ValueError(f"perron_certificate: entry ({i}, {j}) = {A[i, j]} "
                                 "is not positive")
    if v is None:
        v = perron(A, dps=dps).vector
    vi = [_exact_iv(x) for x in v]
    if not all(_lo(x) > 0 for x in vi):
        return PerronCertificate(n, False, 0, 0, 1, float("inf"), 0,
                                 "approximate eigenvector not positive")
    ratios = []
    for i in range(n):
        s = iv.mpf(0)
        for k in range(n):
            s += Ai[i][k] * vi[k]
        ratios.append(s / vi[i])
    lo = min(_lo(r) for r in ratios)   # rigorous: ρ(A) >= min_i (Av)_i / v_i
    hi = max(_hi(r) for r in ratios)   # rigorous: ρ(A) <= max_i (Av)_i / v_i
    # phi = min over row pairs (i, j) of min_k(a_ik/a_jk) / max_l(a_il/a_jl), a lower bound
    phi = None
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            q = [Ai[i][k] / Ai[j][k] for k in range(n)]
            cand = _lo(iv.mpf(min(_lo(x) for x in q)) / iv.mpf(max(_hi(x) for x in q)))
            phi = cand if phi is None or cand < phi else phi
    if phi is None:  # n == 1: there is no other eigenvalue
        tau = iv.mpf(0)
    else:
        sq = iv.sqrt(iv.mpf(phi))
        tau = (1 - sq) / (1 + sq)           # decreasing in phi: a lower phi gives an upper tau
    radius = _hi(tau * iv.mpf(hi))
    amin = min(_lo(Ai[i][j]) for i in range(n) for j in range(n))
    amax = max(_hi(Ai[i][j]) for i in range(n) for j in range(n))
    vr = _lo(iv.mpf(amin) / iv.mpf(amax))
    certified = bool(radius < lo)
    reason = "" if certified else ("τ·ρ_hi ≥ ρ_lo: entries too spread for Hopf's bound to "
                                   "separate the spectrum")
    sep = _lo(1 - iv.mpf(radius) / iv.mpf(lo)) if lo > 0 else mpmath.mpf(0)
    return PerronCertificate(n, certified, _down(lo), _up(hi), _up(_hi(tau)),
                             _up(radius), _down(vr), reason, max(_down(sep), 0.0))
