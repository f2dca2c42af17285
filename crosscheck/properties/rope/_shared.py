"""Helpers shared by the property modules of :mod:`crosscheck.properties.rope` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...certificates import rope_nonresonance
from .._arith import _V, U64, conv, ctx, gamma, mp_bound

BASE = 1e4

REF_DPS = 80


#: error of the 80-digit references (relative 1e-78); added to every bound against a reference
REF_ERR = 1e-70


#: ulps allowed for numpy's float64 pow/cos/sin (≤ 4 ULP: SVML's documented accuracy; glibc < 1)
TRIG_ULPS = 4


#: float64 majorants are evaluated in float64 (relative error < 1e-12 here): bounds carry 1 + 1e-6
SLACK = 1 + 1e-6


#: relative error of the float64 RoPE angle per unit |n| (θ_j: ln Θ·u from the exponent rounding,
#: 2·TRIG_ULPS·u from pow, 1u second-order slack; the product n·θ: 1u)
ANGLE_COEF = 2 * TRIG_ULPS + math.log(BASE) + 2


#: gradual underflow: a float64 product/quotient landing in the subnormal range errs by ≤ 2^-1075 in
#: absolute terms (sums are exact there), so every propagated float64 bound adds multiples of ETA
ETA = 2.0 ** -1074


#: β_Π of pyref's commutant projection (module docstring)
BETA_PI = (1 + 2.01 * U64) ** 4 * (1 + math.sqrt(2) * gamma(4)) ** 4 - 1


def SVD_P(m: int, n: int) -> int:
    """LAPACK's singular values satisfy |σ̂_i − σ_i| ≤ p(m, n)·u·‖A‖₂ with "a modestly growing
    p(m, n)" (LAPACK Users' Guide §4.9); we take p = m·n, above the O(max(m, n)) growth of
    Householder bidiagonalization (Golub–Van Loan §8.6)."""
    return m * n


# ------------------------------------------------------------------------------ strategies
#: positions: small (either sign), the full default RoPE table range and beyond it in
#: the negative direction, and the edges
POSITION = st.one_of(st.integers(-16, 16), st.integers(-4096, 4096),
                     st.sampled_from([0, 1, -1, 1023, 2048, 4095, 4096, -4096]))


def _comm_embed(ab: np.ndarray) -> np.ndarray:
    """Lean ``commEmbed a b`` = blockdiag_j [[a_j, −b_j], [b_j, a_j]] on the interleaved pairs
    (exact)."""
    dk = 2 * len(ab)
    G = np.zeros((dk, dk))
    for j, (a, b) in enumerate(ab):
        G[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[a, -b], [b, a]]
    return G


def _pattern(dk: int) -> np.ndarray:
    """P: ones on the 2×2 diagonal blocks (majorant of |R_n| and of |U||U*|)."""
    return np.kron(np.eye(dk // 2), np.ones((2, 2)))


def _fro(x) -> float:
    """Frobenius norm scaled by max|x| (an unscaled sum of squares underflows for |x| < 1e-154)."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    mx = float(np.max(x)) if x.size else 0.0
    return 0.0 if mx == 0 else mx * float(np.sqrt(np.sum((x / mx) ** 2)))


def _eps_rot(n: int) -> float:
    """float64 bound on |fl(cos nθ_j) − cos nθ_j| and |fl(sin nθ_j) − sin nθ_j| (module
    docstring)."""
    n = abs(int(n))
    return 0.0 if n == 0 else (ANGLE_COEF * n + 2 * TRIG_ULPS) * U64


class _Ar:
    """Arithmetic on :class:`_V` in one backend, and the comparisons that become checks."""

    def __init__(self, backend: str, dps: int):
        self.backend, self.dps, self.mp = backend, dps, backend == "mp"
        self.b = pyref.get_backend(backend, dps)

    # -- constructors
    def exact(self, X) -> _V:
        X = np.asarray(X, dtype=np.float64)
        return _V(conv(self.backend, self.dps, X)[0], np.abs(X), np.zeros(X.shape))

    def rot(self, n: int, dk: int) -> _V:
        """pyref's R_n with |R_n| ≤ P and |R_n' − R_n| ≤ ε_n P."""
        P = _pattern(dk)
        return _V(pyref.rope.rope_matrix(int(n), dk, base=BASE, backend=self.backend, dps=self.dps),
                  P, _eps_rot(n) * P)

    def rope_rows(self, X: _V, pos) -> _V:
        """pyref's apply_rope on the rows of X (row t rotated by R_{pos[t]}). Position 0 is exact
        (x·1 − y·0 = x with cos 0 = 1, sin 0 = 0 exactly)."""
        dk = X.v.shape[-1]
        P = _pattern(dk)
        v = pyref.rope.apply_rope(X.v, positions=[int(p) for p in pos], base=BASE,
                                  backend=self.backend, dps=self.dps)
        a, e = np.empty(X.a.shape), np.empty(X.a.shape)
        for t, n in enumerate(pos):
            if n == 0:
                a[t], e[t] = X.a[t], X.e[t]
                continue
            # |R'x' − Rx| ≤ |R' − R||x'| + |R||x' − x| + γ_2|R'||x'|, |R| ≤ P, |R' − R| ≤ ε P
            f = (1 + _eps_rot(n)) * (1 + gamma(2))
            xa, xe = X.a[t] @ P, X.e[t] @ P
            a[t] = f * xa + 2 * ETA
            e[t] = (f - 1) * xa + xe + 4 * ETA
        return _V(v, a, e)

    # -- operations
    def mm(self, X: _V, Y: _V, k: int, v=None) -> _V:
        """X @ Y (k = the number of terms per entry that can be nonzero); ``v`` if pyref computed
        it."""
        if v is None:
            with ctx(self.backend, self.dps):
                v = X.v @ Y.v
        g = gamma(k)
        aa = X.a @ Y.a
        e = X.a @ Y.e + X.e @ (Y.a + Y.e) + g * aa + 4 * (k + 1) * ETA
        return _V(v, (1 + g) * aa + (k + 1) * ETA, e)

    def sub(self, X: _V, Y: _V) -> _V:
        with ctx(self.backend, self.dps):
            v = X.v - Y.v
        s = X.a + Y.a
        return _V(v, (1 + U64) * s + ETA, X.e + Y.e + U64 * s + 2 * ETA)

    def add(self, X: _V, Y: _V) -> _V:
        with ctx(self.backend, self.dps):
            v = X.v + Y.v
        s = X.a + Y.a
        return _V(v, (1 + U64) * s + ETA, X.e + Y.e + U64 * s + 2 * ETA)

    def div_sqrt(self, X: _V, d: int, v=None) -> _V:
        """X / fl(√d) as pyref's attention_scores does (two roundings: √ and the division)."""
        if v is None:
            with ctx(self.backend, self.dps):
                v = X.v / self.b.sqrt(self.b.const(d))
        r = 1 / math.sqrt(d)
        return _V(v, r * (1 + 2.01 * U64) * X.a + ETA,
                  r * (1 + 2.01 * U64) * X.e + 2.01 * U64 * r * X.a + 2 * ETA)

    def proj(self, X: _V) -> _V:
        """pyref's commutant_projection (float64): |Π'(X') − Π(X)| ≤ β_Π P|X'|P + P e P."""
        P = _pattern(X.v.shape[-1])
        v = pyref.analysis.commutant_projection(X.v, rope_base=BASE)
        # underflow: 4 complex products of 2 terms each, |U| ≤ 1: ≤ 64 ETA per entry
        return _V(v, np.abs(v), BETA_PI * (P @ X.a @ P) + P @ X.e @ P + 64 * ETA)

    # -- checks: (name, deviation, bound)
    def _absdiff(self, A, B) -> np.ndarray:
        with ctx(self.backend, self.dps):
            D = np.asarray(A) - np.asarray(B)
        return np.abs(to_float64(D))

    def _worst(self, name, d, E, amax):
        d = np.where(np.isnan(d), np.inf, d)
        if self.mp:
            return name, float(np.max(d)) if d.size else 0.0, mp_bound(amax)
        E = E * SLACK * (1 + 2 * U64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            r = np.where(E > 0, d / np.where(E > 0, E, 1), np.where(d > 0, np.inf, 0.0))
        i = np.unravel_index(int(np.argmax(r)), r.shape) if r.size else ()
        return name, float(d[i]) if d.size else 0.0, float(E[i]) if d.size else 0.0

    def cmp(self, name, X: _V, Y: _V):
        """Two computed arrays whose exact values the theorem says are equal."""
        return self._worst(name, self._absdiff(X.v, Y.v), X.e + Y.e, max(np.max(X.a), np.max(Y.a)))

    def cmp0(self, name, X: _V):
        """A computed array whose exact value the theorem says is zero."""
        return self._worst(name, np.abs(to_float64(X.v)), X.e, np.max(X.a))

    def cmp_ref(self, name, X: _V, ref: np.ndarray):
        """A computed array against its exact value (an 80-digit reference)."""
        with mpmath.workdps(REF_DPS):
            D = pyref.backend.to_mp(X.v, REF_DPS) - ref
            d = np.abs(to_float64(D))
        return self._worst(name, d, X.e + REF_ERR, np.max(X.a))

    def certified_nonzero(self, X: _V) -> tuple[float, float]:
        """(‖X'‖_F, thr): ‖X'‖_F > thr proves the exact value nonzero (‖X' − X‖_F ≤ thr)."""
        # the (scaled) float64 norm of the computed entries is itself rounded: shrink it by γ_{N+3}
        nrm = _fro(to_float64(X.v)) * (1 - gamma(X.a.size + 3))
        thr = (math.sqrt(X.a.size) * mp_bound(np.max(X.a)) if self.mp
               else _fro(X.e) * SLACK) * (1 + gamma(X.a.size + 3)) + ETA
        return nrm, thr


def _exceeds(name, value: float, thr: float):
    """A strict inequality value > thr: deviation = the violation (0 when it holds), bound 0."""
    return (name, 0.0 if value > thr else max(thr - value, 5e-324), 0.0)


@functools.lru_cache(maxsize=64)
def _certificate(dk: int):
    return rope_nonresonance(dk, BASE)
