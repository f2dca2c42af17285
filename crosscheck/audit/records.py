"""Null-aware records of ``plga audit``: every statistic is a finite float or ``None`` with
its reason in the record's ``null_reasons``; :func:`sanitize` makes the JSON-ready copy."""

from __future__ import annotations

import math
import sys
from pathlib import Path

import mpmath
import numpy as np
from tqdm import tqdm


def rms(x) -> float:
    x = np.asarray(x, dtype=np.float64)
    return float(np.sqrt(np.mean(x * x)))


def finite_or_none(x):
    """float(x) if finite, else None."""
    if x is None:
        return None
    f = float(x)
    return f if math.isfinite(f) else None


def set_stat(rec, name, fn, *args):
    """rec[name] = fn(*args) as a float, or None with the reason in rec['null_reasons']."""
    try:
        v = fn(*args)
    except ValueError as exc:
        set_null(rec, name, str(exc))
        return
    f = float(v)
    if not math.isfinite(f):
        set_null(rec, name, f"non-finite value ({f})")
        return
    rec[name] = f


def set_null(rec, name, reason):
    rec[name] = None
    rec.setdefault("null_reasons", {})[name] = reason


def summarize(values):
    """mean/max/min over the non-null values (None when there are none)."""
    v = [x for x in values if x is not None]
    if not v:
        return {"mean": None, "min": None, "max": None, "n": 0}
    return {"mean": float(np.mean(v)), "min": float(np.min(v)), "max": float(np.max(v)),
            "n": len(v)}


def mp_str(x, digits):
    return mpmath.nstr(x, digits, min_fixed=-3, max_fixed=5)


def progress(iterable=None, total=None, desc="", enabled=True):
    """A tqdm progress bar on stderr (off when stderr is not a TTY or ``enabled`` is false)."""
    # disable=None: off when stderr is not a TTY (the project's convention)
    return tqdm(iterable, total=total, desc=desc, disable=None if enabled else True, leave=False,
                file=sys.stderr, dynamic_ncols=True)


def sanitize(obj, path="$", bad=None):
    """JSON-ready copy: numpy → Python, non-finite floats → None (recorded in ``bad``)."""
    if isinstance(obj, dict):
        return {str(k): sanitize(v, f"{path}.{k}", bad) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [sanitize(v, f"{path}[{i}]", bad) for i, v in enumerate(obj)]
    if isinstance(obj, np.ndarray):
        return sanitize(obj.tolist(), path, bad)
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        if not math.isfinite(f):
            if bad is not None:
                bad.append(path)
            return None
        return f
    if isinstance(obj, mpmath.mpf):
        return sanitize(float(obj), path, bad)
    if isinstance(obj, Path):
        return str(obj)
    return obj
