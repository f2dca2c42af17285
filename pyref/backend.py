"""Numeric backends: one code path, four number systems.

Every array handled by :mod:`pyref` is a :class:`numpy.ndarray`:

* ``"float64"`` -- dtype ``float64`` (IEEE double, numpy/BLAS);
* ``"float32"`` -- dtype ``float32`` throughout (to reproduce single-precision
  phenomena such as determinants that underflow to zero);
* ``"mp"``      -- dtype ``object`` holding :class:`mpmath.mpf` numbers, evaluated
  at ``dps`` decimal digits.  numpy's ``matmul``/``sum``/``+``/``*`` work on object
  arrays by calling the Python operators of ``mpf``, which round to the *current*
  mpmath precision -- so every mp computation must run inside
  :meth:`Backend.context` (a ``mpmath.workdps(dps)`` block);
* ``"arb"``     -- dtype ``object`` holding :class:`flint.arb` balls (Arb ball arithmetic,
  :mod:`pyref.arb`) at :func:`pyref.arb.prec_bits` (dps) bits, inside :meth:`Backend.context`
  (a ``flint.ctx.workprec`` block).  Every value is an enclosure of the exact real value;
  matrix weights may be exact float64 :class:`pyref.arb.ExactWeight` arrays.

:attr:`Backend.is_object` (mp or arb) means "object arrays of Python numbers";
:attr:`Backend.is_mp` means mpmath, :attr:`Backend.is_arb` Arb.  Every matrix product goes
through :meth:`Backend.matmul` (``np.matmul`` for float64/float32/mp; ``flint.arb_mat``
products for arb).

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
  the constant the authors wrote, not its binary64 approximation; ``"arb"`` likewise gives a
  ball containing that decimal.
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np
from flint import arb, ctx

from . import arb as arbmod

BACKENDS = ("float64", "float32", "mp", "arb")


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

# ---------------------------------------------------------------- arb (rigorous Arb functions)
_ARB_ONE = arb(1)


def _arb_sigmoid(u):
    return _ARB_ONE / (_ARB_ONE + (-u).exp())


def _arb_silu(u):
    return u / (_ARB_ONE + (-u).exp())


def _arb_power(x, p):
    """x^p = exp(p·log x) (x > 0; a ball reaching 0 or below gives a non-finite ball)."""
    return (p * x.log()).exp()


def _arb_isfinite(x):
    return x.is_finite() if isinstance(x, arb) else bool(np.isfinite(x))


_ARB_FN = {
    "exp": np.frompyfunc(arb.exp, 1, 1), "log": np.frompyfunc(arb.log, 1, 1),
    "sqrt": np.frompyfunc(arb.sqrt, 1, 1), "cos": np.frompyfunc(arb.cos, 1, 1),
    "sin": np.frompyfunc(arb.sin, 1, 1), "abs": np.frompyfunc(abs, 1, 1),
    "sigmoid": np.frompyfunc(_arb_sigmoid, 1, 1), "silu": np.frompyfunc(_arb_silu, 1, 1),
    "power": np.frompyfunc(_arb_power, 2, 1),
    "isfinite": np.frompyfunc(_arb_isfinite, 1, 1),
}


def _arb_fn(name, *args):
    """Apply the arb function ``name`` elementwise (float operands convert exactly)."""
    args = [arbmod.to_arb(a) if np.asarray(a).dtype != object else a for a in args]
    return np.asarray(_ARB_FN[name](*args), dtype=object)


def _arb_mid(x):
    return arb(x.mid()) if isinstance(x, arb) else x


_v_arb_mid = np.frompyfunc(_arb_mid, 1, 1)


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
    """A numeric backend: ``name`` in ``("float64", "float32", "mp", "arb")`` and ``dps``
    (decimal digits, used only by ``"mp"`` and ``"arb"``)."""

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
        """mpmath numbers (``"mp"``)."""
        return self.name == "mp"

    @property
    def is_arb(self) -> bool:
        """Arb balls (``"arb"``)."""
        return self.name == "arb"

    @property
    def is_object(self) -> bool:
        """Object arrays of Python numbers (``"mp"`` or ``"arb"``): no float dtype, no
        overflow, the precision set by :meth:`context`."""
        return self.name in ("mp", "arb")

    @property
    def prec(self) -> int | None:
        """Working precision in bits of ``"arb"`` (:func:`pyref.arb.prec_bits`), else None."""
        return arbmod.prec_bits(int(self.dps)) if self.is_arb else None

    @property
    def dtype(self):
        return {"float64": np.float64, "float32": np.float32, "mp": object,
                "arb": object}[self.name]

    def context(self):
        """Context manager fixing the working precision: ``mpmath.workdps`` for mp,
        ``flint.ctx.workprec(prec)`` for arb; a no-op context for the float backends."""
        if self.is_mp:
            return mpmath.workdps(int(self.dps))
        if self.is_arb:
            return ctx.workprec(self.prec)
        return contextlib.nullcontext()

    def asarray(self, x) -> np.ndarray:
        """Convert ``x`` (array-like of numbers) to this backend's array type.

        float64/float32: ``np.asarray(x, dtype)`` (float64 -> float32 rounds).
        mp: element-wise exact conversion to ``mpf`` (call inside :meth:`context`).
        arb: element-wise exact conversion to ``arb`` (strings: balls around the decimal).
        """
        if self.is_arb:
            return arbmod.to_arb(x)
        if self.is_mp:
            return arbmod.object_array(x, _v_mpf_exact, "mp", "fiu")
        a = np.asarray(x)
        if a.dtype == object:
            a = _v_float(a).astype(np.float64)
        return np.asarray(a, dtype=self.dtype)

    def const(self, c):
        """A scalar constant in this backend (mp: from the decimal repr of floats; arb: a
        ball containing that decimal)."""
        if self.is_arb:
            return arbmod.decimal(c)
        if self.is_mp:
            return _mpf_decimal(c)
        return self.dtype(c)

    def zeros(self, shape):
        if self.is_object:
            out = np.empty(shape, dtype=object)
            out[...] = arb(0) if self.is_arb else mpmath.mpf(0)
            return out
        return np.zeros(shape, dtype=self.dtype)

    def eye(self, n):
        if self.is_object:
            out = self.zeros((n, n))
            for i in range(n):
                out[i, i] = arb(1) if self.is_arb else mpmath.mpf(1)
            return out
        return np.eye(n, dtype=self.dtype)

    def matmul(self, a, c):
        """Matrix product a [..., m, k] · c [..., k, n] (leading axes broadcast): ``np.matmul``
        for float64/float32/mp, ``flint.arb_mat`` products for arb (:func:`pyref.arb.matmul`)."""
        if self.is_arb:
            return arbmod.matmul(a, c)
        return np.matmul(a, c)

    def point(self, m):
        """An exact point near each value of ``m`` (arb: the balls' midpoints; the identity for
        the other backends): a shift that adds no radius, for shift-invariant formulas."""
        if self.is_arb:
            return np.asarray(_v_arb_mid(m), dtype=object)
        return m

    # ------------------------------------------------------------ elementwise
    def _ret(self, y):
        return np.asarray(y, dtype=object) if self.is_mp else y

    def exp(self, x):
        if self.is_arb:
            return _arb_fn("exp", x)
        return self._ret(_v_exp(x)) if self.is_mp else np.exp(x)

    def log(self, x):
        if self.is_arb:
            return _arb_fn("log", x)
        return self._ret(_v_log(x)) if self.is_mp else np.log(x)

    def sqrt(self, x):
        if self.is_arb:
            return _arb_fn("sqrt", x)
        return self._ret(_v_sqrt(x)) if self.is_mp else np.sqrt(x)

    def cos(self, x):
        if self.is_arb:
            return _arb_fn("cos", x)
        return self._ret(_v_cos(x)) if self.is_mp else np.cos(x)

    def sin(self, x):
        if self.is_arb:
            return _arb_fn("sin", x)
        return self._ret(_v_sin(x)) if self.is_mp else np.sin(x)

    def abs(self, x):
        if self.is_arb:
            return _arb_fn("abs", x)
        return self._ret(_v_abs(x)) if self.is_mp else np.abs(x)

    def power(self, x, p):
        """Elementwise real power ``x ** p`` (``x > 0`` expected)."""
        if self.is_arb:
            return _arb_fn("power", x, p)
        return self._ret(_v_power(x, p)) if self.is_mp else np.power(x, p)

    def sigmoid(self, x):
        """Logistic function σ(u) = 1/(1+e^{-u})."""
        if self.is_arb:
            return _arb_fn("sigmoid", x)
        return self._ret(_v_sigmoid(x)) if self.is_mp else _np_sigmoid(x)

    def silu(self, x):
        """silu(u) = u·σ(u) (arb: u/(1 + e^{-u}), one call per entry)."""
        if self.is_arb:
            return _arb_fn("silu", x)
        return x * self.sigmoid(x)

    def isfinite(self, x) -> np.ndarray:
        """Elementwise finiteness (arb: the ball is finite, i.e. bounded midpoint and radius)."""
        if self.is_arb:
            return np.asarray(_ARB_FN["isfinite"](np.asarray(x, dtype=object)), dtype=bool)
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
    """Convert a backend array (float32, float64 or object/mpf/arb) to float64 (arb: the
    balls' midpoints rounded to nearest; :func:`pyref.arb.mid_rad` gives the radii too)."""
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
