"""Ball arithmetic for the ``"arb"`` backend (Arb via python-flint): conversions, matrix
products through ``flint.arb_mat``, midpoints and radii, and decisions on balls.

A value of the ``"arb"`` backend is a :class:`flint.arb` ball [m ± r] that *contains* the exact
real number the formula denotes (inputs taken as exact binary floats, decimal constants as the
decimals written).  Arrays are numpy object arrays of ``arb``; matrix weights of a model are
kept as read-only float64 :class:`ExactWeight` arrays (their values are exact binary numbers)
whose ``arb_mat`` conversions are cached on the array, so a model's weights are converted once.

* :func:`prec_bits`, :func:`working_digits` -- working precision (bits, and its decimal
  digits) for ``dps`` decimal digits;
* :func:`exact`, :func:`decimal`, :func:`to_arb` -- scalar/array conversions;
* :func:`matmul` -- batched matrix product over leading axes by ``arb_mat`` products;
* :func:`mid_rad` -- (midpoints, radii) as float64 arrays that are themselves an enclosure;
* :func:`abs_err_bound` -- rigorous float64 upper bounds on |f − exact| for float arrays f;
* :func:`check_width` -- :class:`ArbWidthError` (a ValueError) when a tensor's balls grew too
  wide: it suggests more digits and carries the digits lost (:mod:`pyref.arb_precision`);
* :func:`decided_argmax` -- the index of the ball strictly above all others, or ValueError;
* :func:`as_arb_mat`, :func:`entries_array` -- one 2-D array to ``arb_mat`` and back;
* :func:`round_float32` -- float32 rounding of balls, when it is decided.

Imports nothing from :mod:`pyref` but :mod:`pyref.arb_matmul` (the exact-weight product).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from flint import arb, arb_mat, fmpz

from . import arb_matmul

GUARD_BITS = 16     # at least these bits above ceil(dps·log2 10), rounded up to whole 64-bit
                    # limbs (Arb's cost grows by limbs: the rest of the last limb is free)
THIN_ROWS = 48      # a 2-D product with fewer rows (and more columns) is computed transposed
MAX_REL_RADIUS = 1e-3   # a tensor whose largest radius exceeds this × its largest |midpoint|
                        # is "too wide" (fewer than ~3 correct digits): check_width raises


def prec_bits(dps: int) -> int:
    """Working precision in bits for ``dps`` decimal digits: ceil(dps·log2 10) + GUARD_BITS,
    rounded up to a multiple of 64 (e.g. 50 digits: 167 + 16 -> 192 bits)."""
    return -(-(math.ceil(dps * math.log2(10)) + GUARD_BITS) // 64) * 64


# ================================================================================ conversions
def _special(x: float):
    if math.isnan(x):
        return arb.nan()
    return arb.pos_inf() if x > 0 else arb.neg_inf()


def exact(x):
    """A scalar as an arb ball holding exactly its value: binary floats and ints exactly, mpf
    exactly (mantissa·2^exponent), arb unchanged; strings as the decimal they spell (a ball)."""
    if isinstance(x, arb):
        return x
    if isinstance(x, (bool, np.bool_)):
        raise ValueError("backend 'arb': boolean values are not numbers here")
    if isinstance(x, (float, np.floating)):
        x = float(x)
        return arb(x) if math.isfinite(x) else _special(x)
    if isinstance(x, (int, np.integer)):
        return arb(int(x))
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            return _special(float(x))
        sign, man, exp, _ = x._mpf_      # x = (-1)^sign · man · 2^exp
        return arb((fmpz(-int(man) if sign else int(man)), fmpz(int(exp))))
    if isinstance(x, str):
        return decimal(x)
    raise ValueError(f"backend 'arb': cannot convert {type(x).__name__} {x!r} to a ball")


def decimal(x):
    """A constant as the authors wrote it: floats via their shortest decimal ``repr`` (a ball
    containing that decimal, e.g. 1e-06), ints, mpf and arb exactly, strings as decimals."""
    if isinstance(x, str):
        s = x.strip().lower()
        if s in ("inf", "+inf", "-inf", "nan"):
            return _special(float(s))
        return arb(s)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        return arb(repr(f)) if math.isfinite(f) else _special(f)
    return exact(x)


_v_exact = np.frompyfunc(exact, 1, 1)


def object_array(a, convert, backend: str, kinds: str) -> np.ndarray:
    """An array-like as an object array of ``convert(entry)`` (the exact scalar conversion of
    the ``mp`` and ``arb`` backends): floats are widened exactly to float64 first; dtypes whose
    kind is not in ``kinds`` (nor object) are refused naming the backend."""
    a = np.asarray(a)
    if a.dtype != object and a.dtype.kind not in kinds:
        raise ValueError(f"backend {backend!r}: cannot convert dtype {a.dtype} "
                         f"to {'arb' if backend == 'arb' else 'mpf'}")
    if a.dtype.kind == "f":
        a = a.astype(np.float64)   # exact widening
    out = np.empty(a.shape, dtype=object)
    if a.size:
        out[...] = convert(a)
    return out


def to_arb(a) -> np.ndarray:
    """An array-like as an object array of arb balls (exact, see :func:`exact`)."""
    return object_array(a, _v_exact, "arb", "fiuU")


# ================================================================================ weights
class ExactWeight(np.ndarray):
    """A read-only float64 weight array of the arb backend (exact binary values) that caches
    the ``arb_mat`` of every 2-D slice of each view used in a product (views share the cache
    of their root array; a view is identified by its data address, shape and strides, which
    determine its entries because the root is read-only).  Elementwise numpy operations on it
    return plain arrays."""

    def __new__(cls, a):
        obj = np.asarray(a, dtype=np.float64).view(cls)
        obj.flags.writeable = False
        obj._root, obj._mats = obj, {}
        obj._span = (obj.__array_interface__["data"][0], max(obj.nbytes, 1))
        return obj

    def __array_finalize__(self, obj):
        self._root = getattr(obj, "_root", None)
        self._mats = getattr(obj, "_mats", None)

    def __array_ufunc__(self, ufunc, method, *inputs, **kw):
        inputs = tuple(x.view(np.ndarray) if isinstance(x, ExactWeight) else x for x in inputs)
        return getattr(ufunc, method)(*inputs, **kw)

    def _key(self):
        """Cache key of this view, or None when it does not lie in the root's buffer (a copy)."""
        root = self._root
        if root is None or self._mats is None:
            return None
        lo, size = root._span
        ptr = self.__array_interface__["data"][0]
        if not lo <= ptr < lo + size:
            return None
        return ptr, self.shape, self.strides

    def _cached(self, kind: str, convert):
        """``convert`` of this view's plain array, computed once per view and kind (recomputed
        each call for a copy outside the root's buffer)."""
        key = self._key()
        if key is None:
            return convert(self.view(np.ndarray))
        key = (kind,) + key
        if key not in self._mats:
            self._mats[key] = convert(self.view(np.ndarray))
        return self._mats[key]

    def slice_mats(self):
        """The arb_mat of each 2-D slice (leading axes in C order), converted once per view."""
        return self._cached("mats", _slice_mats)

    def digits(self):
        """:func:`pyref.arb_matmul.weight_digits` of this 2-D view (None when it does not
        apply), converted once per view."""
        return self._cached("digits", arb_matmul.weight_digits)

def _slice_mats(a) -> list:
    """arb_mat of each 2-D slice of a float or object array a [..., m, n]."""
    m, n = a.shape[-2:]
    flat = a.reshape(-1, m * n)
    if a.dtype != object and not np.all(np.isfinite(flat)):
        raise ValueError("arb matmul: a float operand has non-finite entries")
    return [arb_mat(m, n, row.tolist()) for row in flat]   # floats convert exactly


def _as2(a):
    a = a if isinstance(a, np.ndarray) else np.asarray(a)
    if a.ndim < 2:
        raise ValueError(f"arb matmul: operands must be [..., m, n], got shape {a.shape}")
    return a


def matmul(a, c) -> np.ndarray:
    """Matrix product a [..., m, k] · c [..., k, n] -> object array of arb [..., m, n], leading
    axes broadcast as in ``np.matmul``; each 2-D product is one ``arb_mat`` product (a rigorous
    enclosure).  Operands: object arrays of arb, float arrays (exact) or :class:`ExactWeight`
    (cached conversion).  Where one operand is broadcast over the other's leading axes, the
    other's slices are stacked into one taller (or wider) product.  A 2-D product of a few
    ball rows (or columns) by a float weight goes through exact integer products instead
    (:func:`_weight_product`, :mod:`pyref.arb_matmul`; 3-7x faster at 50 digits, rigorous)."""
    a, c = _as2(a), _as2(c)
    (m, k), (k2, n) = a.shape[-2:], c.shape[-2:]
    if k != k2:
        raise ValueError(f"arb matmul: inner dimensions differ, {a.shape} · {c.shape}")
    if a.ndim == c.ndim == 2:
        fast = _weight_product(a, c)
        if fast is not None:
            return fast
        if m < THIN_ROWS < n:
            # thin · wide (e.g. 16 tokens × a weight): Arb's classical product is ~30 % faster
            # as (cᵀ aᵀ)ᵀ, and a weight's cᵀ is the untransposed (cached) matrix
            return matmul(c.T, a.T).T
        if m and n and k:
            return _entries(_mats(a, [0])[0] * _mats(c, [0])[0]).reshape(m, n)
    lead = np.broadcast_shapes(a.shape[:-2], c.shape[:-2])
    na, nc = (int(np.prod(x.shape[:-2], dtype=np.int64)) for x in (a, c))
    cnt = int(np.prod(lead, dtype=np.int64))
    out = np.empty((cnt, m, n), dtype=object)
    if cnt == 0 or m == 0 or n == 0 or k == 0:
        out[...] = arb(0)
        return out.reshape(*lead, m, n)
    ia = np.broadcast_to(np.arange(na).reshape(a.shape[:-2]), lead).reshape(-1)   # [cnt]
    ic = np.broadcast_to(np.arange(nc).reshape(c.shape[:-2]), lead).reshape(-1)
    # c shared by several products: stack a's slices; a shared: stack c's; else one by one
    _products(a, c, ia, ic, out, stack="cols" if nc == cnt and na < cnt else "rows")
    return out.reshape(*lead, m, n)


def _is_weight(x) -> bool:
    return isinstance(x, ExactWeight) or x.dtype.kind == "f"


def _ball_weight(X, W):
    """X [m, k] (object array of arb) · W [k, n] (float weight) by
    :func:`pyref.arb_matmul.ball_times_weight`, or None when that path does not apply."""
    m, k = X.shape
    n = W.shape[1]
    if X.dtype != object or not arb_matmul.worthwhile(m, k, n):
        return None
    dig = W.digits() if isinstance(W, ExactWeight) else arb_matmul.weight_digits(W)
    if dig is None:
        return None
    return arb_matmul.ball_times_weight(X, dig, np.abs(W.view(np.ndarray)))


def _weight_product(a, c):
    """a [m, k] · c [k, n] through exact integer products when one operand is a float weight
    and the other has a few ball rows (a) or columns (c) (:func:`arb_matmul.worthwhile`:
    where Arb's classical product of thin matrices is slow; 3-7x faster at 50 digits); None
    otherwise (non-finite entries included: the arb_mat product then)."""
    if _is_weight(c) and not _is_weight(a):
        return _ball_weight(a, c)
    if _is_weight(a) and not _is_weight(c):
        r = _ball_weight(c.T, a.T)
        return None if r is None else r.T
    return None


def _mats(x, idx):
    """arb_mat of the 2-D slices ``idx`` of x (cached for an ExactWeight)."""
    if isinstance(x, ExactWeight):
        mats = x.slice_mats()
        return [mats[i] for i in idx]
    flat = x.reshape(-1, *x.shape[-2:])
    return _slice_mats(flat[np.asarray(idx)]) if len(idx) else []


def _products(a, c, ia, ic, out, stack):
    """Fill out[t] = a[ia[t]] · c[ic[t]], grouping the products that share the operand that is
    not stacked: ``stack="rows"`` stacks a's slices vertically for each distinct c slice,
    ``"cols"`` stacks c's slices horizontally for each distinct a slice."""
    m, n = out.shape[-2:]
    shared, other = (ic, ia) if stack == "rows" else (ia, ic)
    groups: dict[int, list[int]] = {}
    for t, s in enumerate(shared.tolist()):
        groups.setdefault(s, []).append(t)
    for s, ts in groups.items():
        if stack == "rows":
            (C,) = _mats(c, [s])
            A = _stacked(a, [int(other[t]) for t in ts], axis=0)
            P = _entries(A * C).reshape(len(ts), m, n)
        else:
            (A,) = _mats(a, [s])
            C = _stacked(c, [int(other[t]) for t in ts], axis=1)
            P = _entries(A * C).reshape(m, len(ts), n)
            P = np.swapaxes(P, 0, 1)
        out[ts] = P


def _stacked(x, idx, axis):
    """One arb_mat of x's 2-D slices ``idx`` stacked along ``axis`` (0: rows, 1: columns)."""
    if len(idx) == 1:
        return _mats(x, idx)[0]
    plain = x.view(np.ndarray) if isinstance(x, ExactWeight) else x
    flat = plain.reshape(-1, *x.shape[-2:])[np.asarray(idx)]      # [g, r, q]
    big = np.concatenate(list(flat), axis=axis)
    return _slice_mats(big[None])[0]


def _entries(M) -> np.ndarray:
    out = np.empty(M.nrows() * M.ncols(), dtype=object)
    out[:] = M.entries()
    return out


def as_arb_mat(a):
    """One 2-D array (object array of arb, or floats: exact) as an ``arb_mat``."""
    a = _as2(a)
    if a.ndim != 2:
        raise ValueError(f"as_arb_mat: expected a 2-D array, got shape {a.shape}")
    return _slice_mats(a)[0]


def entries_array(M) -> np.ndarray:
    """An ``arb_mat`` as a 2-D object array of arb [rows, cols]."""
    return _entries(M).reshape(M.nrows(), M.ncols())


# ================================================================================ read-out
def _float_up(r) -> float:
    """The smallest float64 ≥ the exact (finite or infinite) arb value r."""
    f = float(r)
    if math.isnan(f):
        return math.inf
    if math.isfinite(f) and arb(f) < r:
        f = math.nextafter(f, math.inf)
    return f


def _mid_rad1(x):
    if not isinstance(x, arb):
        x = exact(x)
    if not x.is_finite():
        return math.nan, math.inf
    mf = float(x.mid())
    return mf, (_float_up(x.rad()) if math.isfinite(mf) else math.inf)


_v_mid_rad = np.frompyfunc(_mid_rad1, 1, 2)


def mid_rad(x):
    """(mid, rad): float64 arrays of the balls' midpoints rounded to nearest and their radii
    rounded up, so every exact value v of a ball satisfies |v − m| ≤ rad for its exact midpoint
    m, and |v − mid| ≤ rad + ulp(mid)/2.  (Rigorous bounds against float values:
    :func:`abs_err_bound`.)  A non-finite ball gives mid NaN (or ±inf) and rad inf."""
    a = np.asarray(x, dtype=object)
    mid, rad = np.empty(a.shape), np.empty(a.shape)
    if a.size:
        m, r = _v_mid_rad(a)
        mid[...], rad[...] = m, r
    return mid, rad


def _abs_err1(f, x):
    if not isinstance(x, arb):
        x = exact(x)
    if not x.is_finite() or not math.isfinite(f):
        return math.inf
    return _float_up((arb(f) - x).abs_upper())


_v_abs_err = np.frompyfunc(_abs_err1, 2, 1)


def abs_err_bound(f, x) -> np.ndarray:
    """Rigorous float64 upper bounds on |f − v| for every v in the balls x (f: float array of
    the same shape, e.g. a float64 or float32 computation of the same quantity): the bound
    |f − mid| + rad evaluated in ball arithmetic and rounded up."""
    f = np.asarray(f, dtype=np.float64)
    a = np.asarray(x, dtype=object)
    if f.shape != a.shape:
        raise ValueError(f"abs_err_bound: shapes differ, {f.shape} vs {a.shape}")
    out = np.empty(a.shape)
    if a.size:
        out[...] = _v_abs_err(f, a)
    return out


def _rad_absmid(x):
    if not isinstance(x, arb):
        x = exact(x)
    if not x.is_finite():
        return math.inf, 0.0
    return float(x.rad()), abs(float(x.mid()))


_v_rad_absmid = np.frompyfunc(_rad_absmid, 1, 2)


def _rel_bits(x):
    """Arb's relative accuracy in bits (rad < 2^-bits·|mid|); -1 for a non-finite ball."""
    if not isinstance(x, arb):
        x = exact(x)
    return x.rel_accuracy_bits() if x.is_finite() else -1


_v_rel_bits = np.frompyfunc(_rel_bits, 1, 1)


class ArbWidthError(ValueError):
    """:func:`check_width`'s error.  ``lost``: decimal digits the computation had lost when it
    stopped (log10 of largest radius / largest |midpoint| plus the working digits; None for a
    non-finite ball); ``done``: the fraction of the computation finished then (e.g. layers
    done / layers + 1), so that :meth:`lost_total` extrapolates the loss to the whole run."""

    def __init__(self, message: str, dps: int, lost: float | None, done: float = 1.0):
        super().__init__(message)
        self.dps, self.lost, self.done = dps, lost, done

    def lost_total(self) -> float:
        """Digits the whole computation would lose at this rate (a non-finite ball counts as
        all working digits lost so far)."""
        lost = working_digits(self.dps) if self.lost is None else self.lost
        return max(lost, 0.0) / self.done


def working_digits(dps: int) -> float:
    """The decimal digits of the working precision :func:`prec_bits` (≥ dps)."""
    return prec_bits(dps) * math.log10(2)


def check_width(x, what: str, dps: int, done: float = 1.0) -> None:
    """:class:`ArbWidthError` naming ``what`` when a ball of ``x`` is not finite or the largest
    radius exceeds MAX_REL_RADIUS × the largest |midpoint| of the tensor (radii and midpoints
    read as nearest floats: a threshold, not a certificate; a tensor of exact zeros passes).
    The message estimates the digits needed (the radii scale like 10^-dps; later layers widen
    them further); ``done``: see :class:`ArbWidthError`."""
    a = np.asarray(x, dtype=object).reshape(-1)
    # fast path: rad_i < 2^-bits |mid_i| ≤ MAX_REL_RADIUS·max|mid| for every ball
    if not a.size or min(_v_rel_bits(a)) >= math.ceil(-math.log2(MAX_REL_RADIUS)):
        return
    rad, mid = (np.asarray(t, dtype=np.float64) for t in _v_rad_absmid(a))
    if not np.all(np.isfinite(rad)):
        i = int(np.argmax(~np.isfinite(rad)))
        idx = tuple(int(j) for j in np.unravel_index(i, np.shape(x)))
        raise ArbWidthError(f"arb at {dps} digits: {what} has a non-finite ball at index {idx}: "
                            "the enclosures grew too wide at this precision (e.g. a logarithm or "
                            "square root of a ball reaching 0); use more digits (dps)",
                            dps, None, done)
    scale, worst = float(np.max(mid)), float(np.max(rad))
    if worst > MAX_REL_RADIUS * scale:
        lost = (math.log10(worst / scale) + working_digits(dps) if scale > 0
                else working_digits(dps))
        need = dps + 1 + (math.ceil(math.log10(worst / (MAX_REL_RADIUS * scale)))
                          if scale > 0 else dps)
        raise ArbWidthError(f"arb at {dps} digits: {what} lost its accuracy: largest radius "
                            f"{worst:.3e} > {MAX_REL_RADIUS:g} × largest |midpoint| "
                            f"{scale:.3e}; use more digits (dps > {need} at least)",
                            dps, lost, done)


def check_widths(tensors: dict, where: str, dps: int, done: float = 1.0) -> None:
    """:func:`check_width` on each non-None tensor of ``tensors`` (named "<where> <key>")."""
    for key, x in tensors.items():
        if x is not None:
            check_width(x, f"{where} {key}", dps, done)


def decided_argmax(row, what: str = "argmax") -> int:
    """The index i whose ball lies strictly above every other ball of the 1-D ``row``;
    ValueError when no ball is certainly the largest (ties or overlaps at this precision)."""
    r = list(np.asarray(row, dtype=object).reshape(-1))
    mids = [float(x.mid()) if x.is_finite() else -math.inf for x in r]
    i = int(np.argmax(mids))
    for j, x in enumerate(r):
        if j != i and not r[i] > x:
            raise ValueError(f"{what}: ambiguous argmax at this precision: entry {i} "
                             f"{r[i].str(20, radius=True)} is not certainly above entry {j} "
                             f"{x.str(20, radius=True)}; use more digits (dps), unless the two "
                             "values are equal (a genuine tie, which no precision decides)")
    return i


def decided_argmaxes(rows, what: str = "argmax") -> np.ndarray:
    """:func:`decided_argmax` of each row of ``rows`` [B, V] -> int64 [B]."""
    return np.array([decided_argmax(r, what) for r in rows], dtype=np.int64)


def _f32_round1(x):
    """float32 rounding through float64 (as the mp backend does) of every point of x, when
    all round to the same value; NaN otherwise (monotone rounding: checking the ends decides)."""
    if not isinstance(x, arb):
        x = exact(x)
    if not x.is_finite():
        return math.nan
    lo, hi = np.float32(float(x.lower())), np.float32(float(x.upper()))
    return float(lo) if lo == hi else math.nan


_v_f32 = np.frompyfunc(_f32_round1, 1, 1)


def round_float32(x, what: str) -> np.ndarray:
    """float32 array of the balls in ``x`` rounded to float32 (via float64, round to nearest:
    a monotone map, so it is decided when both ends of a ball round alike); ValueError naming
    ``what`` when a ball straddles a rounding boundary at this precision."""
    a = np.asarray(x, dtype=object)
    f = np.empty(a.shape, dtype=np.float64)
    if a.size:
        with np.errstate(over="ignore"):
            f[...] = _v_f32(a)
    if np.any(np.isnan(f)):
        idx = tuple(int(i) for i in np.argwhere(np.isnan(f))[0])
        raise ValueError(f"arb: the float32 rounding of {what} is not decided at index {idx} "
                         "(the ball straddles a float32 rounding boundary or is not finite); "
                         "use more digits (dps)")
    return f.astype(np.float32)
