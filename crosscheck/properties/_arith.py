"""Shared arithmetic of the properties: backend conversion, justified error bounds, and the
error-tracked arrays :class:`_V` (a value with float64 majorants of its size and error).

Tolerances are derived, not tuned:

* ``mp`` runs at 50 significant digits (unit round-off ``u = 10^-49``); a computation of
  ``k`` chained roundings on terms of absolute size ``T`` has error ``≤ k·u·T``. With
  ``k ≤ 10^4`` in every property, :func:`mp_bound` allows ``1e-40·T`` (more than 10^4
  times the worst case, and 10^24 times below float64 round-off, so a silent float64
  fallback would be caught).
* ``float64`` uses the standard a-priori bound for sums of products (Higham, *Accuracy
  and Stability of Numerical Algorithms*, §3.1): ``|fl(Σ x_i y_i) − Σ x_i y_i| ≤ γ_k Σ|x_i y_i|``
  with ``γ_k = k u / (1 − k u)``, ``u = 2^-53``; comparing two evaluations doubles it.
  :func:`fp_bound` returns ``2 γ_k T`` for the ``k`` roundings along the longest chain and
  the absolute-value expression ``T`` (computed by the property, e.g. ``|A||B||C|``), plus
  ``2k·η`` with ``η = 2^-1075``: with gradual underflow a rounding is
  ``fl(x∘y) = (x∘y)(1 + δ) + η'``, ``|η'| ≤ η`` (Higham §2.1), and ``T`` itself, formed in
  float64, may underflow to 0 while the two evaluations still differ by a subnormal.
* ``arb`` (balls at the mp digits) has no round-off allowance: :func:`bound` returns the
  :class:`crosscheck.arbcheck.Tol` ``(0, t)`` (the statement's exact claim, with the tightness
  threshold ``t = 10^-(dps/2)·T`` for non-refutation), :func:`maxabs` a ball containing
  ``max |x|`` (a hull, never numpy's ``max`` of balls); the verdict is
  :func:`crosscheck.arbcheck.ball_verdict`'s.
"""

from __future__ import annotations

import mpmath
import numpy as np
from flint import arb

import pyref

from ..arbcheck import ARB_DPS, Tol, maxabs_ball, tightness, upper_float

U64 = 2.0 ** -53


def gamma(k: int) -> float:
    return k * U64 / (1 - k * U64)


#: twice the underflow unit η = 2^-1075 of float64 (η itself is not a float64): the smallest
#: subnormal, the absolute term of two roundings
TWO_ETA64 = 2.0 ** -1074


def fp_bound(k: int, T) -> float:
    return 2 * gamma(k) * float(np.max(T)) + k * TWO_ETA64 if np.size(T) else 0.0


def mp_bound(T) -> float:
    return 1e-40 * max(1.0, float(np.max(T)) if np.size(T) else 1.0)


def arb_bound(T) -> Tol:
    """The arb bound: the statement's exact claim ``dev ≤ 0`` with tightness ``10^-25·T`` (the
    size ``T`` only moves the non-refuted/undecided line, never a certificate or refutation)."""
    return Tol(0, tightness(upper_float(T) if np.size(T) else 1.0, ARB_DPS))


def bound(backend: str, k: int, T):
    if backend == "arb":
        return arb_bound(T)
    return mp_bound(T) if backend == "mp" else fp_bound(k, T)


def conv(backend: str, dps: int, *arrays):
    """Arrays in the backend's type (mp: exact conversion to mpf at ``dps`` digits)."""
    b = pyref.get_backend(backend, dps)
    with b.context():
        return [b.asarray(a) for a in arrays]


def maxabs(x):
    """max |x| as a float64 (works on object arrays of mpf); arb balls: a ball containing it
    (:func:`crosscheck.arbcheck.maxabs_ball`)."""
    a = np.asarray(x)
    if a.dtype == object and any(isinstance(v, arb) for v in a.ravel()):
        return maxabs_ball(a)
    a = pyref.to_float64(np.abs(a))
    return float(np.max(a)) if a.size else 0.0


def ctx(backend: str, dps: int):
    return pyref.get_backend(backend, dps).context()


def mpf_is_exact(x, dps: int) -> bool:
    """True when every entry is an mpf (no float64 leaked into an mp computation)."""
    return all(isinstance(v, mpmath.mpf) for v in np.asarray(x).ravel())


# ------------------------------------------------------------------ error-tracked arrays
class _V:
    """A backend array ``v`` with float64 majorants: ``|v| ≤ a`` and (float64) ``|v − exact| ≤
    e``."""

    __slots__ = ("v", "a", "e")

    def __init__(self, v, a, e):
        self.v, self.a, self.e = v, np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)

    @property
    def T(self) -> "_V":
        return _V(self.v.T, self.a.T, self.e.T)

    def __getitem__(self, idx) -> "_V":
        return _V(self.v[idx], self.a[idx], self.e[idx])
