"""Input validation shared by the :mod:`pyref.variants` modules.

Every public function converts its inputs with :func:`conv` (inside the backend's
precision context) and then validates them: shapes with :func:`need_shape`, finiteness
with :func:`need_finite`, parameter ranges with :func:`need_range`.  Errors are
``ValueError`` messages of the form ``"<function>: <what> <expected>, got <value>"``.
"""
from __future__ import annotations

import numpy as np

from ..backend import Backend


def conv(b: Backend, *arrays):
    """Arrays in backend ``b`` (None passes through); call inside ``b.context()``."""
    return [None if a is None else b.asarray(a) for a in arrays]


def need_finite(b: Backend, fn: str, name: str, a) -> None:
    """Raise unless every entry of ``a`` is finite."""
    ok = np.asarray(b.isfinite(a), dtype=bool)
    if not np.all(ok):
        idx = tuple(int(i) for i in np.argwhere(~ok)[0]) if ok.ndim else ()
        raise ValueError(f"{fn}: {name} must be finite, got a non-finite entry at index {idx}")


def need_shape(fn: str, name: str, a, shape) -> None:
    """Raise unless ``a.shape`` matches ``shape`` (a tuple; ``None`` entries match any size)."""
    if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
        want = "[" + ", ".join("·" if s is None else str(s) for s in shape) + "]"
        raise ValueError(f"{fn}: {name} must have shape {want}, got shape {tuple(a.shape)}")


def need_range(fn: str, name: str, a, lo, hi, lo_open: bool = False, hi_open: bool = False) -> None:
    """Raise unless every entry of ``a`` lies in the interval (lo, hi) with the given openness
    (``None`` = unbounded on that side)."""
    a = np.asarray(a)
    ok = np.ones(a.shape, dtype=bool)
    if lo is not None:
        ok &= np.asarray((a > lo) if lo_open else (a >= lo), dtype=bool)
    if hi is not None:
        ok &= np.asarray((a < hi) if hi_open else (a <= hi), dtype=bool)
    if not np.all(ok):
        bad = np.argwhere(~ok)[0] if a.ndim else ()
        idx = tuple(int(i) for i in bad)
        val = a[idx] if a.ndim else a[()]
        lo_s = "-inf" if lo is None else repr(lo)
        hi_s = "inf" if hi is None else repr(hi)
        iv = ("(" if lo_open or lo is None else "[") + f"{lo_s}, {hi_s}" + (")" if hi_open or hi is None else "]")
        where = f" at index {idx}" if a.ndim else ""
        raise ValueError(f"{fn}: {name} must lie in {iv}, got {float(val)!r}{where}")


def need_int(fn: str, name: str, n, lo: int = 0) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
        raise ValueError(f"{fn}: {name} must be an int ≥ {lo}, got {n!r}")
    return int(n)
