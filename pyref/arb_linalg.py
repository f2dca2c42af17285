"""Arb ball arithmetic (python-flint) for the high-precision paths of :mod:`pyref.analysis` and
the certificates of :mod:`crosscheck.certificates`.

* :func:`arb_matrix` — a square matrix (float/int array, object array of ``mpmath.mpf`` /
  Python numbers / ``flint.arb`` balls, or a ``flint.arb_mat``) as an ``arb_mat``, validated
  (2-D, square, non-empty, real, finite). Binary floats, ints and mpf are dyadic rationals and
  are converted **exactly** (radius 0); ``arb`` balls are kept as they are.
* :func:`float_down` / :func:`float_up` — a float64 below / above every point of a ball
  (outward rounding, decided by exact comparisons of dyadic numbers); :func:`float_bounds` for
  a whole matrix.
* :func:`mid_mpf` — the midpoint of a ball as an ``mpmath.mpf``, exactly (the caller rounds).
* :func:`det_enclosure` — a ball containing ``det M`` for every matrix in the ball ``M``:
  ``arb_mat.det`` (Gaussian elimination in ball arithmetic, or Arb's preconditioned
  algorithm) at ``prec + 32`` bits; when that ball is wider than ``prec`` bits relative (near
  singular, or exactly singular: a ball around 0) and every entry is exact, the determinant is
  computed **exactly** instead, as the integer determinant (``fmpz_mat.det``, FLINT's
  multimodular algorithm) of the matrix scaled by a power of two.

Rigour: every Arb operation returns a ball that contains the exact result of the operation
applied to every point of its input balls (FLINT/Arb's contract); exact conversion keeps the
input's value; the integer determinant is exact. So every ball returned here is an enclosure of
the exact real quantity for the given input.

The working precision of Arb is global (``flint.ctx.prec``); every function here sets it with
``flint.ctx.workprec`` and restores it.
"""

from __future__ import annotations

import flint
import mpmath
import numpy as np
from flint import arb, arb_mat, fmpz_mat

#: guard bits of :func:`det_enclosure`'s first attempt (a 64×64 A_LM loses ~17 bits)
DET_GUARD_BITS = 32


def prec_bits(dps: int) -> int:
    """Binary precision of ``dps`` decimal digits (the same mapping as mpmath's)."""
    return mpmath.libmp.dps_to_prec(dps)


def to_arb(x) -> arb:
    """One real number as an ``arb``: exact for ints, binary floats (any numpy width up to 64
    bits) and mpf; an ``arb`` is returned unchanged. Other types go through ``mpmath.mpf`` (e.g.
    decimal strings, rounded at mpmath's current precision). ValueError for bool, complex or
    unconvertible entries."""
    if isinstance(x, arb):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise ValueError(f"expected a real number, got the bool {x!r}")
    if isinstance(x, (int, np.integer)):
        return arb(int(x))
    if isinstance(x, (float, np.floating)):
        if np.finfo(type(x)).bits > 64:  # long double: exact through its integer ratio
            p, q = x.as_integer_ratio()
            return arb((int(p), -(int(q).bit_length() - 1)))
        return arb(float(x))
    if not isinstance(x, mpmath.mpf):
        try:
            x = mpmath.mpf(x)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"expected a real number, got {type(x).__name__} {x!r}") from exc
    if not mpmath.isfinite(x):
        return arb(float(x))  # ±inf / nan: an infinite or NaN ball, rejected by the callers
    sign, man, exp, _ = x._mpf_
    return arb((-int(man) if sign else int(man), int(exp)))


def _matrix_entries(name: str, A):
    """(n, flat list of entries) of a square 2-D input; ValueError on the wrong shape or type."""
    if isinstance(A, arb_mat):
        if A.nrows() != A.ncols() or A.nrows() == 0:
            raise ValueError(f"{name}: expected a non-empty square 2-D matrix, got shape "
                             f"({A.nrows()}, {A.ncols()})")
        return A.nrows(), None
    a = np.asarray(A)
    if a.ndim != 2 or a.shape[0] != a.shape[1] or a.shape[0] == 0:
        raise ValueError(f"{name}: expected a non-empty square 2-D matrix, got shape {a.shape}")
    if a.dtype != object and (a.dtype.kind not in "fiu" or a.dtype == bool):
        raise ValueError(f"{name}: expected real numbers, got dtype {a.dtype}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        i, j = (int(t) for t in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name}: entry ({i}, {j}) is not finite ({a[i, j]})")
    if a.dtype != object and a.dtype.itemsize <= 8:
        return a.shape[0], a.tolist()   # Python floats/ints: exact
    return a.shape[0], [[to_arb(x) for x in row] for row in a.tolist()]


def arb_matrix(name: str, A) -> arb_mat:
    """``A`` [n, n] as an ``arb_mat`` (exact conversion; balls kept); ValueError (naming
    ``name``) unless A is a non-empty square real finite matrix."""
    n, rows = _matrix_entries(name, A)
    M = A if rows is None else arb_mat(rows)
    for k, x in enumerate(M.entries()):
        if not x.is_finite():
            raise ValueError(f"{name}: entry ({k // n}, {k % n}) is not finite ({x})")
    return M


def mid_mpf(x: arb) -> mpmath.mpf:
    """The midpoint of ``x`` as an mpf, exactly (not rounded to mpmath's precision)."""
    man, exp = x.mid().man_exp()
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(int(man), int(exp)))


def float_down(x: arb) -> float:
    """A float64 ≤ every point of the ball ``x`` (−inf if there is none in range)."""
    lo = x.lower()
    f = float(lo)
    if f != f:
        return -np.inf
    return float(np.nextafter(f, -np.inf)) if np.isfinite(f) and arb(f) > lo else f


def float_up(x: arb) -> float:
    """A float64 ≥ every point of the ball ``x`` (+inf if there is none in range)."""
    hi = x.upper()
    f = float(hi)
    if f != f:
        return np.inf
    return float(np.nextafter(f, np.inf)) if np.isfinite(f) and arb(f) < hi else f


def float_bounds(M: arb_mat, A=None) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi) float64 arrays [n, n] with lo ≤ M_ij ≤ hi entrywise (every point of each ball).
    ``A``: the original input, used directly when it is a float array (then lo = hi = A,
    exactly)."""
    n = M.nrows()
    if A is not None and not isinstance(A, arb_mat):
        a = np.asarray(A)
        if a.dtype.kind == "f" and a.dtype.itemsize <= 8:
            a = a.astype(np.float64)
            return a, a
    ents = M.entries()
    lo = np.array([float_down(x) for x in ents]).reshape(n, n)
    hi = np.array([float_up(x) for x in ents]).reshape(n, n)
    return lo, hi


def entries_exact(M: arb_mat) -> bool:
    """Whether every entry of ``M`` is an exact number (radius 0)."""
    return all(x.is_exact() for x in M.entries())


def exact_det(M: arb_mat) -> arb:
    """det M exactly, for a matrix of exact dyadic entries: M = 2^e·Z with Z an integer matrix
    and e the smallest exponent of an entry, so det M = 2^(n·e)·det Z, and ``fmpz_mat.det`` is
    exact (FLINT's multimodular determinant). Returns an exact ``arb``."""
    n = M.nrows()
    parts = [x.man_exp() for x in M.entries()]
    e = min((int(ex) for man, ex in parts if man != 0), default=0)
    Z = fmpz_mat(n, n, [int(man) << (int(ex) - e) if man != 0 else 0 for man, ex in parts])
    return arb((Z.det(), n * e))


def det_enclosure(M: arb_mat, prec: int) -> arb:
    """A ball containing det M (for every matrix in the ball M) whose relative radius is below
    2^-prec when that can be had: ``arb_mat.det`` at prec + DET_GUARD_BITS bits, else (exact
    entries only) the exact determinant :func:`exact_det` — also the route that returns an
    exact 0 for a singular matrix. For ball entries the first enclosure is returned as it is."""
    with flint.ctx.workprec(prec + DET_GUARD_BITS):
        d = M.det()
    if d.is_exact() or d.rel_accuracy_bits() >= prec or not entries_exact(M):
        return d
    return exact_det(M)
