"""Certificates for what floating point cannot decide, in Arb ball arithmetic (python-flint:
every operation returns a ball guaranteed to contain the exact result for every point of its
input balls).

* :func:`rope_nonresonance` — the hypothesis of the RoPE commutant theorems (Prop 4.1)
  for a concrete configuration: with ``θ_j = Θ^{-2j/d_k}``, every ``sin θ_j ≠ 0``
  (the diagonal-block hypothesis at position 1) and every ``cos θ_j − cos θ_k ≠ 0``
  for ``j ≠ k`` (the off-diagonal-block hypothesis at position 1), each with a
  rigorous lower bound on its modulus (Arb's ``exp``, ``log``, ``sin``, ``cos`` are rigorous).
* :func:`perron_certificate` — for a given entrywise-positive matrix ``A`` (floats, mpf,
  or Arb balls: then every claim holds for every matrix in the balls):

  - an enclosure ``[lo, hi]`` of the Perron root from the Collatz–Wielandt bounds
    ``min_i (Av)_i/v_i ≤ ρ(A) ≤ max_i (Av)_i/v_i``, valid for *any* positive vector ``v``
    (here an approximate eigenvector, converted exactly; ``Av`` and the quotients in Arb);
  - a disk ``|λ| ≤ τ(A)·hi`` containing every other eigenvalue, with ``τ`` Birkhoff's
    contraction coefficient ``(1 − √φ)/(1 + √φ)``, ``φ = min_{i,j,k,l} a_ik a_jl/(a_il a_jk)``
    (Hopf's theorem: for a positive matrix every eigenvalue other than ρ satisfies
    ``|λ| ≤ τ(A) ρ(A)``). A *lower* bound of φ gives an upper bound of τ (τ decreases in φ);
  - when ``τ·hi < lo`` the Perron root is certified simple and strictly dominant;
  - the eigenvector margin: ``min v*/max v* ≥ max(min a/max a, e^{−d}·min v/max v)`` for the
    exact Perron vector ``v*``, where ``d = log(hi/lo)/(1 − τ)`` bounds Hilbert's projective
    distance ``d_H(v, v*)`` (Birkhoff: ``A`` contracts ``d_H`` by ``τ``, and
    ``d_H(v, Av) = log(hi/lo)``; so ``d_H(v, v*) ≤ d_H(v, Av) + τ·d_H(v, v*)``), and
    ``min a/max a`` from ``ρ v*_i = Σ_k a_ik v*_k``.

  The lower bound of φ is the one number not computed in Arb: the ``n³`` ratios ``a_ik/a_jk``
  are screened in float64 (vectorized; Arb would need ``n³`` scalar operations in Python), from
  float64 bounds ``lo ≤ a ≤ hi`` of the entries (exact for float input, outward-rounded
  otherwise), and the float result is made rigorous by IEEE 754: a correctly rounded quotient
  with a normal result has relative error ≤ u = 2⁻⁵³, and min/max are exact, so
  ``φ ≥ Φ·(1 − u)/(1 + u)²`` with ``Φ`` the float64 value of
  ``min_{i≠j} [min_k lo_ik/hi_jk] / [max_l hi_il/lo_jl]`` (three roundings, see
  :func:`_phi_lower`). The factor is applied in Arb. If any quotient leaves the normal float64
  range, φ ≥ 0 (τ ≤ 1) is used instead: the certificate is then inconclusive, never wrong.

Every float field of a certificate is rounded outward from the Arb balls (lower bounds down,
upper bounds up), so each reported bound is itself rigorous.
"""

from __future__ import annotations

from dataclasses import dataclass

import flint
import numpy as np
from flint import arb, arb_mat

from pyref.analysis import perron
from pyref.arb_linalg import arb_matrix, float_bounds, float_down, float_up, prec_bits, to_arb

#: unit roundoff of float64 (round to nearest)
U64 = 2.0 ** -53
#: smallest positive normal float64
TINY = float(np.finfo(np.float64).tiny)
#: guard bits of the certificate's Arb computations above the requested digits
GUARD_BITS = 32


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


def rope_nonresonance(d_k: int = 64, base: float = 1e4, dps: int = 30) -> NonResonance:
    """Certify non-resonance of the RoPE frequencies ``θ_j = base^{-2j/d_k}`` (the base taken
    as the exact binary value of the float ``base``)."""
    if d_k < 2 or d_k % 2:
        raise ValueError(f"rope_nonresonance: d_k must be even and >= 2, got {d_k}")
    m = d_k // 2
    with flint.ctx.workprec(prec_bits(dps)):
        log_b = to_arb(base).log()
        thetas = [(-(arb(2 * j) / d_k) * log_b).exp() for j in range(m)]
        min_sin = min(t.sin().abs_lower() for t in thetas)
        coss = [t.cos() for t in thetas]
        worst, pair = None, (0, 0)
        for j in range(m):
            for k in range(j + 1, m):
                lb = (coss[j] - coss[k]).abs_lower()  # exact (radius 0); 0 if the ball has 0
                if worst is None or lb < worst:
                    worst, pair = lb, (j, k)
    certified = bool(min_sin > 0 and (worst is None or worst > 0))
    gap = float("inf") if worst is None else float_down(worst)
    return NonResonance(d_k, float(base), certified, float_down(min_sin), gap, pair, dps)


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
    #: rigorous upper bound of Hilbert's distance d_H(v, v*) between the given vector and the
    #: exact Perron vector (inf when τ = 1 cannot bound it)
    hilbert_radius: float = float("inf")
    #: an Arb ball containing the Collatz–Wielandt enclosure [lo, hi] of ρ at the working
    #: precision (None when the vector was not positive): the full-precision form of the two
    #: float fields
    root_ball: arb | None = None

    def summary(self) -> str:
        return (f"Perron n={self.n}: {'CERTIFIED' if self.certified else 'inconclusive'}; "
                f"ρ ∈ [{self.root_lo:.12g}, {self.root_hi:.12g}], other |λ| ≤ "
                f"{self.other_radius:.6g} (τ ≤ {self.tau:.6g}), relative separation ≥ "
                f"{self.separation:.3e}, min v/max v ≥ {self.vector_ratio_lb:.3e}"
                + (f" — {self.reason}" if self.reason else ""))


def _phi_lower(lo: np.ndarray, hi: np.ndarray) -> arb:
    """A rigorous lower bound of φ = min_{i≠j,k,l} a_ik a_jl/(a_il a_jk) for every matrix with
    lo ≤ a ≤ hi (float64 [n, n], lo > 0), as an exact ``arb`` (0 when float64 cannot bound it).

    IEEE 754: fl(x/y) = (x/y)(1 + δ), |δ| ≤ u, when the result is a normal float64. With
    m_ij = min_k fl(lo_ik/hi_jk) and M_ij = max_l fl(hi_il/lo_jl) (min/max are exact):
    min_k a_ik/a_jk ≥ m_ij/(1 + u) and max_l a_il/a_jl ≤ M_ij/(1 − u); the float quotient
    q_ij = fl(m_ij/M_ij) adds one more (1 + u). Hence φ ≥ min_{i≠j} q_ij · (1 − u)/(1 + u)²,
    provided every quotient formed is a normal float64 (checked; else 0 is returned)."""
    n = lo.shape[0]
    if n == 1:
        return arb(1)   # no pair of rows: no other eigenvalue (τ = 0)
    if not (np.all(lo >= TINY) and np.all(np.isfinite(hi))):
        return arb(0)
    with np.errstate(all="ignore"):
        q = np.full((n, n), np.inf)
        ok = True
        for i in range(n):
            r_min = lo[i][None, :] / hi           # [j, k] = lo_ik / hi_jk
            r_max = hi[i][None, :] / lo           # [j, l] = hi_il / lo_jl
            ok &= bool(np.all((r_min >= TINY) & (r_max >= TINY) & np.isfinite(r_min)
                          & np.isfinite(r_max)))
            m, M = r_min.min(axis=1), r_max.max(axis=1)   # [j]
            q[i] = m / M
            q[i, i] = np.inf
        qmin = float(q.min())
    if not ok or not (TINY <= qmin < np.inf):
        return arb(0)
    factor = (1 - arb(U64)) / (1 + arb(U64)) ** 2
    return (arb(qmin) * factor).lower()


def _vector_ball(v, n: int) -> arb_mat | None:
    """The approximate eigenvector as an exact n×1 arb_mat, or None unless every entry is > 0;
    ValueError on a length other than n."""
    vv = list(v.entries()) if isinstance(v, arb_mat) else list(np.asarray(v, dtype=object))
    if len(vv) != n:
        raise ValueError(f"perron_certificate: v has {len(vv)} entries, expected n = {n}")
    col = [to_arb(x) for x in vv]
    if not all(x > 0 for x in col):
        return None
    return arb_mat([[x] for x in col])


def _validated(A) -> tuple[arb_mat, int]:
    """A as an arb_mat with every entry certainly > 0 (ValueError otherwise)."""
    M = arb_matrix("perron_certificate", A)
    n = M.nrows()
    for k, x in enumerate(M.entries()):
        if not x > 0:
            i, j = k // n, k % n
            shown = A[i, j] if not isinstance(A, arb_mat) else x
            raise ValueError(f"perron_certificate: entry ({i}, {j}) = {shown} is not positive")
    return M, n


def perron_certificate(A, v=None, dps: int = 30) -> PerronCertificate:
    """Certify the Perron structure of an entrywise-positive ``A`` (see module docstring).

    ``A``: [n, n] floats, mpf, ints or Arb balls (object array), or a ``flint.arb_mat``.
    ``v``: an approximate positive eigenvector (default: ``pyref.analysis.perron(A, dps)``).
    The Arb computations run at ``dps`` digits plus GUARD_BITS.
    Raises ``ValueError`` if ``A`` is not a finite square matrix with positive entries.
    """
    M, n = _validated(np.asarray(A) if not isinstance(A, arb_mat) else A)
    if v is None:
        v = perron(M, dps=dps).vector
    vb = _vector_ball(v, n)
    if vb is None:
        return PerronCertificate(n, False, 0, 0, 1, float("inf"), 0,
                                 "approximate eigenvector not positive")
    lo_f, hi_f = float_bounds(M, None if isinstance(A, arb_mat) else A)
    with flint.ctx.workprec(prec_bits(dps) + GUARD_BITS):
        ratios = [x / y for x, y in zip((M * vb).entries(), vb.entries())]
        lo = min(r.lower() for r in ratios)    # rigorous: ρ(A) >= min_i (Av)_i / v_i
        hi = max(r.upper() for r in ratios)    # rigorous: ρ(A) <= max_i (Av)_i / v_i
        root_ball = lo.union(hi)               # ⊇ [lo, hi]
        sq = _phi_lower(lo_f, hi_f).sqrt()
        tau = ((1 - sq) / (1 + sq)).upper()    # decreasing in φ: a lower φ gives an upper τ
        radius = (tau * hi).upper()
        ents = M.entries()
        vr = (min(x.lower() for x in ents) / max(x.upper() for x in ents)).lower()
        hilbert, sep = arb("inf"), arb(0)
        if lo > 0:
            sep = (1 - radius / lo).lower()
        if lo > 0 and tau < 1:
            hilbert = ((hi / lo).log() / (1 - tau)).upper()
            vents = vb.entries()
            v_ratio = min(x.lower() for x in vents) / max(x.upper() for x in vents)
            vr = max(vr, (v_ratio * (-hilbert).exp()).lower())
    certified = bool(radius < lo)
    reason = "" if certified else ("τ·ρ_hi ≥ ρ_lo: entries too spread for Hopf's bound to "
                                   "separate the spectrum")
    return PerronCertificate(n, certified, float_down(lo), float_up(hi), float_up(tau),
                             float_up(radius), max(float_down(vr), 0.0), reason,
                             max(float_down(sep), 0.0), float_up(hilbert), root_ball)
