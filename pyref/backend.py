"""Numeric backends: one code path, three number systems.

Every array handled by :mod:`pyref` is a :class:`numpy.ndarray`:

* ``"float64"`` -- dtype ``float64`` (IEEE double, numpy/BLAS);
* ``"float32"`` -- dtype ``float32`` throughout (to reproduce single-precision
  phenomena such as determinants that underflow to zero);
* ``"mp"``      -- dtype ``object`` holding :class:`mpmath.mpf` numbers, evaluated
  at ``dps`` decimal digits.  numpy's ``matmul``/``sum``/``+``/``*`` work on object
  arrays by calling the Python operators of ``mpf``, which round to the *current*
  mpmath precision -- so every mp computation must run inside
  :meth:`Backend.context` (a ``mpmath.workdps(dps)`` block).

Components never call ``np.exp`` & co. directly: they call the elementwise functions
of a :class:`Backend` (``exp``, ``log``, ``sqrt``, ``sigmoid``, ``silu``, ``power``,
``cos``, ``sin``, ``abs``) and convert constants with :meth:`Backend.const`.  For
``"mp"`` these map to mpmath functions through ``numpy.frompyfunc``; calling a numpy
ufunc such as ``np.exp`` on an object array of ``mpf`` raises instead of silently
computing in float64, so accidental float64 fallback is loud, not silent.

Conversion rules (``Backend.asarray``):

* float inputs are converted *exactly* (every float64 is an mpf at >= 53 bits);
* strings / ``mpf`` / ints are accepted element-wise in ``"mp"`` (``"0.1"`` means
  the decimal 0.1 at the working precision);
* config constants such as ``ln_eps=1e-6`` are converted with :meth:`Backend.const`,
  which in ``"mp"`` reads the *decimal* ``repr`` of the float (``mpf("1e-06")``), i.e.
  the constant the authors wrote, not its binary64 approximation.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

BACKENDS = ("float64", "float32", "mp")


def _mpf_decimal(x):
    """Convert a Python/numpy scalar to mpf; floats via their shortest decimal repr."""
    if isinstance(x, mpmath.mpf):
        return +x  # round to current precision
    if isinstance(x, (float, np.floating)):
        return mpmath.mpf(repr(float(x)))
    return mpmath.mpf(x)


def _mpf_exact(x):
    """Convert a scalar to mpf exactly (binary floats keep their exact value)."""
    if isinstance(x, mpmath.mpf):
        return x
    if isinstance(x, (np.floating,)):
        return mpmath.mpf(float(x))
    if isinstance(x, (np.integer,)):
        return mpmath.mpf(int(x))
    if isinstance(x, (bool, np.bool_)):
        raise ValueError("backend 'mp': boolean values are not numbers here")
    return mpmath.mpf(x)


_v_mpf_exact = np.frompyfunc(_mpf_exact, 1, 1)
_v_exp = np.frompyfunc(mpmath.exp, 1, 1)
_v_log = np.frompyfunc(mpmath.log, 1, 1)
_v_sqrt = np.frompyfunc(mpmath.sqrt, 1, 1)
_v_cos = np.frompyfunc(mpmath.cos, 1, 1)
_v_sin = np.frompyfunc(mpmath.sin, 1, 1)
_v_abs = np.frompyfunc(abs, 1, 1)
_v_power = np.frompyfunc(mpmath.power, 2, 1)
_v_float = np.frompyfunc(float, 1, 1)
_v_isfinite = np.frompyfunc(mpmath.isfinite, 1, 1)


def _mp_sigmoid(u):
    return 1 / (1 + mpmath.exp(-u))


_v_sigmoid = np.frompyfunc(_mp_sigmoid, 1, 1)


def _np_sigmoid(x):
    """Logistic function for float arrays (same dtype out): 1/(1+e^{-x}).  For x < -709
    (float64) e^{-x} overflows to +inf and the result is the correctly rounded limit 0;
    the overflow warning is suppressed.  Relative accuracy is kept everywhere else."""
    x = np.asarray(x)
    with np.errstate(over="ignore"):
        e = np.exp(-x)
    e += 1
    return np.reciprocal(e, out=e)


@dataclass(frozen=True)
class Backend:
    """A numeric backend: ``name`` in ``("float64", "float32", "mp")`` and ``dps``
    (decimal digits, used only by ``"mp"``)."""

    name: str = "float64"
    dps: int = 50

    def __post_init__(self):
        if self.name not in BACKENDS:
            raise ValueError(f"backend: expected one of {BACKENDS}, got {self.name!r}")
        dps = self.dps
        if isinstance(dps, bool) or not isinstance(dps, (int, np.integer)) or dps < 1:
            raise ValueError(f"backend: dps must be a positive int, got {self.dps!r}")

    # ------------------------------------------------------------------ basics
    @property
    def is_mp(self) -> bool:
        return self.name == "mp"

    @property
    def dtype(self):
        return {"float64": np.float64, "float32": np.float32, "mp": object}[self.name]

    def context(self):
        """Context manager fixing the working precision (``mpmath.workdps``) for mp;
        a no-op context for the float backends."""
        if self.is_mp:
            return mpmath.workdps(int(self.dps))
        return contextlib.nullcontext()

    def asarray(self, x) -> np.ndarray:
        """Convert ``x`` (array-like of numbers) to this backend's array type.

        float64/float32: ``np.asarray(x, dtype)`` (float64 -> float32 rounds).
        mp: element-wise exact conversion to ``mpf`` (call inside :meth:`context`).
        """
        if self.is_mp:
            a = np.asarray(x)
            if a.dtype != object and a.dtype.kind not in "fiu":
                raise ValueError(f"backend 'mp': cannot convert dtype {a.dtype} to mpf")
            if a.dtype.kind == "f":
                a = a.astype(np.float64)  # exact widening
            out = np.empty(a.shape, dtype=object)
            if a.size:
                out[...] = _v_mpf_exact(a)
            return out
        a = np.asarray(x)
        if a.dtype == object:
            a = _v_float(a).astype(np.float64)
        return np.asarray(a, dtype=self.dtype)

    def const(self, c):
        """A scalar constant in this backend (mp: from the decimal repr of floats)."""
        if self.is_mp:
            return _mpf_decimal(c)
        return self.dtype(c)

    def zeros(self, shape):
        if self.is_mp:
            out = np.empty(shape, dtype=object)
            out[...] = mpmath.mpf(0)
            return out
        return np.zeros(shape, dtype=self.dtype)

    def eye(self, n):
        if self.is_mp:
            out = self.zeros((n, n))
            for i in range(n):
                out[i, i] = mpmath.mpf(1)
            return out
        return np.eye(n, dtype=self.dtype)

    # ------------------------------------------------------------ elementwise
    def _ret(self, y):
        return np.asarray(y, dtype=object) if self.is_mp else y

    def exp(self, x):
        return self._ret(_v_exp(x)) if self.is_mp else np.exp(x)

    def log(self, x):
        return self._ret(_v_log(x)) if self.is_mp else np.log(x)

    def sqrt(self, x):
        return self._ret(_v_sqrt(x)) if self.is_mp else np.sqrt(x)

    def cos(self, x):
        return self._ret(_v_cos(x)) if self.is_mp else np.cos(x)

    def sin(self, x):
        return self._ret(_v_sin(x)) if self.is_mp else np.sin(x)

    def abs(self, x):
        return self._ret(_v_abs(x)) if self.is_mp else np.abs(x)

    def power(self, x, p):
        """Elementwise real power ``x ** p`` (``x > 0`` expected)."""
        return self._ret(_v_power(x, p)) if self.is_mp else np.power(x, p)

    def sigmoid(self, x):
        """Logistic function σ(u) = 1/(1+e^{-u})."""
        return self._ret(_v_sigmoid(x)) if self.is_mp else _np_sigmoid(x)

    def silu(self, x):
        """silu(u) = u·σ(u)."""
        return x * self.sigmoid(x)

    def isfinite(self, x) -> np.ndarray:
        if self.is_mp:
            return np.asarray(_v_isfinite(x), dtype=bool)
        return np.isfinite(x)


def get_backend(backend: Any = "float64", dps: int = 50) -> Backend:
    """Return a :class:`Backend` from a name (or pass a Backend through)."""
    if isinstance(backend, Backend):
        return backend
    if not isinstance(backend, str):
        raise ValueError(f"backend: expected a name in {BACKENDS}, got {backend!r}")
    return Backend(backend, dps)


def to_float64(x) -> np.ndarray:
    """Convert a backend array (float32, float64 or object/mpf) to float64."""
    a = np.asarray(x)
    if a.dtype == object:
        out = np.empty(a.shape, dtype=np.float64)
        if a.size:
            out[...] = _v_float(a)
        return out
    return a.astype(np.float64)


def to_mp(x, dps: int = 50) -> np.ndarray:
    """Convert an array to an object array of ``mpf`` (exact for binary floats)."""
    with mpmath.workdps(dps):
        return Backend("mp", dps).asarray(x)
