"""Rigorous products of arb balls by exact float64 weights through exact integer products.

X [m, k] is a matrix of arb balls [M ± R] (midpoints M: binary floats of any precision, radii
R ≥ 0) and W [k, n] a matrix of finite float64 numbers taken exactly (an
:class:`~pyref.arb.ExactWeight`).  Every exact product X·W lies in

    M·W ± R·|W|        (entrywise: |Σ_k E_ik W_kj| ≤ Σ_k R_ik |W_kj| for |E_ik| ≤ R_ik),

and :func:`ball_times_weight` encloses it as follows.

* M·W exactly, in integers: M = 2^eM · Σ_c 2^(62c) D_c and W = 2^eW · Σ_d 2^(62d) F_d with
  integer digit matrices whose entries have at most 62 bits (one common exponent per matrix,
  so no bit of any midpoint or weight is dropped), multiplied by FLINT's ``fmpz_mat`` product
  (its small-entry path: about 1e9 multiply-adds per second here, against ~5e7 for Arb's
  ball product of thin matrices) and recombined exactly; then ONE rounding per entry to the
  working precision (``arb_mat`` scalar product by 2^(eM+eW): Arb adds the rounding error to
  the radius).
* R·|W| bounded above in float64: R rounded up, |W| exact, S = fl(R·|W|) by BLAS in any order
  (with or without FMA): for k nonnegative terms S ≥ (1 − γ_k)·exact (γ_k = k·u/(1 − k·u),
  u = 2^-53; Higham, Thm 3.1) when nothing underflows, and each of the ≤ 2k products and sums
  that underflows loses less than 2^-1022 (whether subnormals are kept or flushed to zero;
  subnormal inputs are first raised to 2^-1022); hence
  exact ≤ (S + 2k·2^-1022)·(1 + 2γ_k) ≤ S·(1 + (2k + 8)·u) + (2k + 4)·2^-1022, evaluated in
  float64 and raised by one ulp (:func:`_radius_bound`; the slack 8u and 4·2^-1022 covers the
  roundings of that evaluation).  Rows of exact balls (R = 0) get no radius term at all.
* The result entries are [round(M·W) ± (rounding + bound)]: a ball containing every x·W
  with x in X.

Midpoints spanning more than the working precision + ``SPREAD_BITS`` bits, weights spanning
more than ``MAX_WEIGHT_DIGITS`` digits, non-finite balls or a radius bound that overflows
give None: the caller falls back to the ``arb_mat`` product (as exact, slower).

Imports nothing from :mod:`pyref`.
"""
from __future__ import annotations

import numpy as np
from flint import arb, arb_mat, ctx, fmpz, fmpz_mat

DIGIT_BITS = 62     # FLINT's fmpz_mat product is ~10x faster when no entry exceeds 62 bits
SPREAD_BITS = 256   # midpoints spanning more than working precision + this many bits fall back
MAX_WEIGHT_DIGITS = 4   # a weight spanning more than 4·62 bits (e.g. 1e-30 next to 1): fall back
STACK_ROWS = 64     # X's digit matrices are stacked into products of about this many rows
MAX_ROWS = 47       # X with more rows: Arb's own block product (also integer-based) is faster
MIN_SIDE = 128      # k or n below this: the per-entry conversions outweigh the gain
SIDE_PER_DIGIT = 40     # and n below this × the expected midpoint digits (the digit matrices
                        # of X cost ~0.25 µs per entry and digit, their products ~n·0.7 ns)

_MASK = np.uint64((1 << DIGIT_BITS) - 1)
_U = 2.0 ** -53
_MIN_NORMAL = 2.0 ** -1022
_PM1 = arb(0, 1)                # the ball [0 ± 1]: r·[0 ± 1] = [0 ± r]


def worthwhile(m: int, k: int, n: int) -> bool:
    """Whether X [m, k] · W [k, n] is expected faster here than Arb's ``arb_mat`` product at
    the working precision (measured: 3-7x at 50 digits for the paper's 16-row products,
    ~2x at 210 digits for n ≥ 896, slower for n = 320 at 210 digits or for m ≥ 64)."""
    digits = -(-(ctx.prec + 32) // DIGIT_BITS)
    return m <= MAX_ROWS and min(k, n) >= MIN_SIDE and n >= SIDE_PER_DIGIT * digits


# ================================================================================ digits
def _limb_digits(limbs: np.ndarray, ndig: int) -> np.ndarray:
    """Base-2^62 digits of nonnegative integers given as little-endian 64-bit limbs.

    limbs uint64 [N, L] -> uint64 [ndig, N] (digit c = bits 62c … 62c+61)."""
    out = np.zeros((ndig, limbs.shape[0]), dtype=np.uint64)
    nl = limbs.shape[1]
    for c in range(ndig):
        j, o = divmod(DIGIT_BITS * c, 64)
        if j < nl:
            out[c] = limbs[:, j] >> np.uint64(o)
        if o > 64 - DIGIT_BITS and j + 1 < nl:       # the digit continues in the next limb
            out[c] |= limbs[:, j + 1] << np.uint64(64 - o)
        out[c] &= _MASK
    return out


def _digit_mats(mag: np.ndarray, neg: np.ndarray, rows: int, cols: int, stack: bool):
    """Signed digit matrices from digits ``mag`` uint64 [ndig, rows·cols] and signs ``neg``
    bool [rows·cols]: one fmpz_mat [ndig·rows, cols] (digits stacked vertically) when
    ``stack``, else a list of ndig fmpz_mat [rows, cols]."""
    sgn = np.where(neg, -1, 1).astype(np.int64)
    signed = mag.astype(np.int64) * sgn                             # |digit| < 2^62
    if stack:
        return fmpz_mat(signed.shape[0] * rows, cols, signed.reshape(-1).tolist())
    return [fmpz_mat(rows, cols, d.tolist()) for d in signed]


def _shifted_limbs(man: np.ndarray, shift: np.ndarray, nl: int) -> np.ndarray:
    """man·2^shift as little-endian 64-bit limbs: man uint64 [N] (< 2^53), shift int64 [N] ≥ 0
    -> uint64 [N, nl]."""
    limbs = np.zeros((man.size, nl), dtype=np.uint64)
    for j in range(nl):
        s = shift - 64 * j
        lo = (s >= 0) & (s < 64)
        limbs[lo, j] |= man[lo] << s[lo].astype(np.uint64)
        hi = (s < 0) & (s > -64)
        limbs[hi, j] |= man[hi] >> (-s[hi]).astype(np.uint64)
    return limbs


def weight_digits(w: np.ndarray):
    """(F, eW) with w = 2^eW · Σ_d 2^(62d) F[d] exactly: F a list of fmpz_mat [k, n] with
    entries below 2^62 in magnitude, for a float64 matrix w [k, n]; None when w has a
    non-finite entry or needs more than MAX_WEIGHT_DIGITS digits."""
    w = np.asarray(w, dtype=np.float64)
    if w.ndim != 2 or not np.all(np.isfinite(w)):
        return None
    frac, ex = np.frexp(w.reshape(-1))
    man = np.abs(frac * 2.0 ** 53).astype(np.uint64)                # exact, < 2^53
    nz = man != 0
    if not nz.any():
        return [fmpz_mat(*w.shape)], 0
    low = np.frexp((man & (~man + np.uint64(1))).astype(np.float64))[1] - 1   # trailing zeros
    low = np.where(nz, low, 0)
    man >>= low.astype(np.uint64)                                   # odd (or 0)
    ex = ex.astype(np.int64) - 53 + low
    e = int(ex[nz].min())
    shift = np.where(nz, ex - e, 0)                                 # w = ±man·2^(e + shift)
    ndig = -(-int((shift + np.frexp(man.astype(np.float64))[1]).max()) // DIGIT_BITS)
    if ndig > MAX_WEIGHT_DIGITS:
        return None
    if ndig == 1:
        mag = (man << shift.astype(np.uint64))[None]                # fits in 62 bits
    else:
        mag = _limb_digits(_shifted_limbs(man, shift, -(-ndig * DIGIT_BITS // 64)), ndig)
    return _digit_mats(mag, (frac < 0).reshape(-1), *w.shape, stack=False), e


def ball_parts(flat):
    """(digits, neg, eM, R) of a list of N finite arb balls: midpoints
    M = 2^eM · Σ_c 2^(62c)·(±digits[c]) exactly (digits uint64 [ndig, N], neg bool [N]) and
    radii R float64 [N] rounded up; None when a ball is not finite or the midpoints span
    more than the working precision + SPREAD_BITS bits."""
    try:
        me = [x.mid().man_exp() for x in flat]
        rad = np.array([float(x.rad()) for x in flat])
        mans = [int(m) for m, _ in me]
        exps = np.fromiter((int(e) for _, e in me), dtype=np.int64, count=len(me))
    except (AttributeError, ValueError, OverflowError):
        return None
    if not np.all(np.isfinite(rad)):
        return None
    # float(rad) is exact in the normal range (30-bit radii); below it, round up when nonzero
    for i in np.flatnonzero(rad < _MIN_NORMAL).tolist():
        if not flat[i].is_exact():
            rad[i] = np.nextafter(rad[i], np.inf)
    live = np.fromiter((m != 0 for m in mans), dtype=bool, count=len(mans))
    if not live.any():
        return np.zeros((1, len(flat)), dtype=np.uint64), np.zeros(len(flat), bool), 0, rad
    e0 = int(exps[live].min())
    max_bits = ctx.prec + SPREAD_BITS
    if int(exps[live].max()) - e0 >= max_bits:                      # before shifting anything
        return None
    shifted = [abs(m) << s for m, s in zip(mans, (exps - e0).tolist())]
    bits = max(shifted).bit_length()
    if bits > max_bits:
        return None
    ndig = max(1, -(-bits // DIGIT_BITS))
    nb = 8 * (-(-ndig * DIGIT_BITS // 64))
    limbs = np.frombuffer(b"".join([v.to_bytes(nb, "little") for v in shifted]),
                          dtype="<u8").reshape(len(flat), nb // 8)
    neg = np.fromiter((m < 0 for m in mans), dtype=bool, count=len(mans))
    return _limb_digits(limbs, ndig), neg, e0, rad


# ================================================================================ product
def _radius_bound(R: np.ndarray, absW: np.ndarray) -> np.ndarray:
    """Float64 upper bounds on the exact R·|W| for R [m, k] ≥ 0 and |W| [k, n] (exact floats;
    both arrays are modified): subnormal entries are first raised to 2^-1022, then
    fl(R·|W|)·(1 + (2k+8)u) + (2k+4)·2^-1022, raised by one ulp.  Every product and partial
    sum that underflows loses less than 2^-1022, with gradual underflow or flushed to zero
    (FTZ/DAZ), so the bound holds either way; rows of R that are all zero give exact zeros.
    Infinite entries when the bound overflows.  (k < 2^25: γ_k ≤ k·u + u/4.)"""
    k = R.shape[1]
    for a in (R, absW):
        sub = (a > 0) & (a < _MIN_NORMAL)
        if sub.any():
            a[sub] = _MIN_NORMAL
    with np.errstate(over="ignore"):
        S = R @ absW
        S *= 1.0 + (2 * k + 8) * _U
    live = np.any(R > 0, axis=1)
    S[live] += (2 * k + 4) * _MIN_NORMAL
    S[live] = np.nextafter(S[live], np.inf)
    return S


def _recombine(P, m: int, ndig: int):
    """Σ_c 2^(62c) P[c·m:(c+1)·m] for an fmpz_mat P [ndig·m, n] -> fmpz_mat [m, n] (exact),
    as the product S·P with S [m, ndig·m] holding the powers 2^(62c) (cost ∝ m²: thin only)."""
    if ndig == 1:
        return P
    S = fmpz_mat(m, ndig * m)
    for c in range(ndig):
        for i in range(m):
            S[i, c * m + i] = fmpz(1) << (DIGIT_BITS * c)
    return S * P


def _int_product(mdig, neg, m: int, k: int, F):
    """The exact integer matrix Σ_c Σ_d 2^(62(c+d)) D_c·F_d [m, n] of the digit products
    (D_c the signed midpoint digits ``mdig``/``neg``, F_d the weight digits): the digits D_c
    stacked in groups of about STACK_ROWS rows (FLINT is faster on taller products; the
    recombination of a group costs rows² · n), the groups added with their powers of two."""
    ndig = mdig.shape[0]
    g = max(1, min(ndig, STACK_ROWS // m))
    total = None
    for c0 in range(0, ndig, g):
        c1 = min(c0 + g, ndig)
        D = _digit_mats(mdig[c0:c1], neg, m, k, stack=True)           # [(c1-c0)·m, k]
        P = D * F[0]
        for d in range(1, len(F)):
            P = P + (D * F[d]) * (fmpz(1) << (DIGIT_BITS * d))
        P = _recombine(P, m, c1 - c0)
        if c0:
            P = P * (fmpz(1) << (DIGIT_BITS * c0))
        total = P if total is None else total + P
    return total


def ball_times_weight(X: np.ndarray, wdig, absW: np.ndarray):
    """Enclosure of X·W: X object array of arb [m, k], W given by its digits ``wdig`` =
    :func:`weight_digits` (W) and |W| float64 [k, n] -> object array of arb [m, n], or None
    when the fast path does not apply (the caller uses ``arb_mat``).  Rigour: module doc."""
    m, k = X.shape
    n = absW.shape[1]
    parts = ball_parts(X.reshape(-1).tolist())
    if parts is None:
        return None
    mdig, neg, eM, rad = parts
    F, eW = wdig
    mid = arb_mat(_int_product(mdig, neg, m, k, F)) * arb((fmpz(1), fmpz(eM + eW)))  # rounds
    R = _radius_bound(rad.reshape(m, k), absW)
    if not np.all(np.isfinite(R)):
        return None
    if np.any(R > 0):
        mid = mid + arb_mat(m, n, R.reshape(-1).tolist()) * _PM1
    out = np.empty(m * n, dtype=object)
    out[:] = mid.entries()
    return out.reshape(m, n)
