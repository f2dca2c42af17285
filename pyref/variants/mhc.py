"""mHC (manifold-constrained hyper-connections), VARIANTS.md §3.

``n`` residual streams ``X`` [n, d] are mixed by a nonnegative doubly stochastic ``B``
[n, n] (``B𝟙 = 𝟙``, ``𝟙ᵀB = 𝟙ᵀ``) and written to by one sub-layer ``F``:

    X_{ℓ+1} = B X_ℓ + C F(A X_ℓ),      A [1, n] (read), C [n, 1] (write)

(:func:`mhc_transfer`).  ``B`` comes from Sinkhorn normalization of ``M⁽⁰⁾ = exp(Z)``:
a row step divides every row by its sum, a column step every column by its sum; one round
is a row step then a column step (``order="row-first"``) or the reverse
(``order="col-first"``).  After a column step the column sums are exactly 1 (up to one
rounding per entry and the sum), the row sums only approximately
(:func:`doubly_stochastic_defect` measures both).

Public functions take plain arrays and ``backend=``/``dps=`` keywords.
"""
from __future__ import annotations

import numpy as np

from ..backend import Backend, get_backend
from ..inputs import conv, need_finite, need_int, need_range, need_shape

ORDERS = ("row-first", "col-first")


# ============================================================================ internal
def _row_step(M):
    """Divide every row by its sum: [n, m] -> [n, m] (row sums 1)."""
    return M / np.sum(M, axis=1, keepdims=True)


def _col_step(M):
    """Divide every column by its sum: [n, m] -> [n, m] (column sums 1)."""
    return M / np.sum(M, axis=0, keepdims=True)


def _sinkhorn(M, n_iters, order):
    first, second = (_row_step, _col_step) if order == "row-first" else (_col_step, _row_step)
    for _ in range(n_iters):
        M = second(first(M))
    return M


def _defect(b: Backend, B):
    one = b.const(1)
    r = np.max(b.abs(np.sum(B, axis=1) - one))
    c = np.max(b.abs(np.sum(B, axis=0) - one))
    return r, c


# ============================================================================ validation
def _nonneg_matrix(b: Backend, fn, name, M, square=True):
    need_shape(fn, name, M, (None, None))
    if square:
        need_shape(fn, name, M, (M.shape[0], M.shape[0]))
    if M.size == 0:
        raise ValueError(f"{fn}: {name} must be non-empty, got shape {tuple(M.shape)}")
    need_finite(b, fn, name, M)
    need_range(fn, name, M, 0, None)


def _positive_sums(fn, name, M, axes):
    for ax, what in axes:
        s = np.sum(M, axis=ax)
        zero = np.asarray(s <= 0, dtype=bool)
        if zero.any():
            raise ValueError(f"{fn}: {name} has a zero {what} sum at index {int(np.argmax(zero))}; "
                             f"Sinkhorn normalization divides by it")


def _order(fn, order):
    if order not in ORDERS:
        raise ValueError(f"{fn}: order must be one of {ORDERS}, got {order!r}")


# ============================================================================ public
def sinkhorn_row_step(M, backend="float64", dps=50):
    """Row normalization M_ij / Σ_j M_ij of a nonnegative M [n, m] with positive row sums."""
    fn = "sinkhorn_row_step"
    b = get_backend(backend, dps)
    with b.context():
        (M,) = conv(b, M)
        _nonneg_matrix(b, fn, "M", M, square=False)
        _positive_sums(fn, "M", M, [(1, "row")])
        return _row_step(M)


def sinkhorn_col_step(M, backend="float64", dps=50):
    """Column normalization M_ij / Σ_i M_ij of a nonnegative M [n, m] with positive column sums."""
    fn = "sinkhorn_col_step"
    b = get_backend(backend, dps)
    with b.context():
        (M,) = conv(b, M)
        _nonneg_matrix(b, fn, "M", M, square=False)
        _positive_sums(fn, "M", M, [(0, "column")])
        return _col_step(M)


def sinkhorn_iterate(M, n_iters, order="row-first", backend="float64", dps=50):
    """``n_iters`` Sinkhorn rounds from a nonnegative square M [n, n] with positive row and
    column sums; each round is (row step, column step) for ``order="row-first"`` or (column
    step, row step) for ``order="col-first"``.  ``n_iters = 0`` returns M."""
    fn = "sinkhorn_iterate"
    n_iters = need_int(fn, "n_iters", n_iters, 0)
    _order(fn, order)
    b = get_backend(backend, dps)
    with b.context():
        (M,) = conv(b, M)
        _nonneg_matrix(b, fn, "M", M)
        _positive_sums(fn, "M", M, [(1, "row"), (0, "column")])
        return _sinkhorn(M, n_iters, order)


def sinkhorn(Z, n_iters, order="row-first", backend="float64", dps=50):
    """Sinkhorn normalization of M⁽⁰⁾ = exp(Z) for finite logits Z [n, n]: ``n_iters`` rounds
    as in :func:`sinkhorn_iterate`.  With ``order="row-first"`` and n_iters ≥ 1 the result
    ends with a column step (column sums 1)."""
    fn = "sinkhorn"
    n_iters = need_int(fn, "n_iters", n_iters, 0)
    _order(fn, order)
    b = get_backend(backend, dps)
    with b.context():
        (Z,) = conv(b, Z)
        need_shape(fn, "Z", Z, (None, None))
        need_shape(fn, "Z", Z, (Z.shape[0], Z.shape[0]))
        if Z.size == 0:
            raise ValueError(f"{fn}: Z must be non-empty, got shape {tuple(Z.shape)}")
        need_finite(b, fn, "Z", Z)
        with np.errstate(over="ignore"):
            M = b.exp(Z)
        need_finite(b, fn, "exp(Z)", M)   # float64 overflow for Z > 709
        _positive_sums(fn, "exp(Z)", M, [(1, "row"), (0, "column")])  # float64 underflow
        return _sinkhorn(M, n_iters, order)


def doubly_stochastic_defect(B, backend="float64", dps=50):
    """(max_i |Σ_j B_ij − 1|, max_j |Σ_i B_ij − 1|) for B [n, n]: the row- and column-sum
    errors (both 0 for a doubly stochastic B)."""
    fn = "doubly_stochastic_defect"
    b = get_backend(backend, dps)
    with b.context():
        (B,) = conv(b, B)
        need_shape(fn, "B", B, (None, None))
        need_finite(b, fn, "B", B)
        return _defect(b, B)


def mhc_transfer(X, B, A, C, F, ds_tol=None, backend="float64", dps=50):
    """One mHC layer: X' = B X + C F(A X).

    X [n, d], B [n, n] nonnegative (doubly stochastic; checked to within ``ds_tol`` when
    given), A [1, n], C [n, 1], F a callable mapping the read-out [1, d] (a backend array) to
    [1, d].  Returns X' [n, d]."""
    fn = "mhc_transfer"
    if not callable(F):
        raise ValueError(f"{fn}: F must be a callable [1, d] -> [1, d], got {type(F).__name__}")
    b = get_backend(backend, dps)
    with b.context():
        X, B, A, C = conv(b, X, B, A, C)
        need_shape(fn, "X", X, (None, None))
        n, d = X.shape
        need_shape(fn, "B", B, (n, n))
        need_shape(fn, "A", A, (1, n))
        need_shape(fn, "C", C, (n, 1))
        for nm, a in (("X", X), ("A", A), ("C", C)):
            need_finite(b, fn, nm, a)
        _nonneg_matrix(b, fn, "B", B)
        if ds_tol is not None:
            r, c = _defect(b, B)
            if not (r <= ds_tol and c <= ds_tol):
                raise ValueError(f"{fn}: B must be doubly stochastic to within {ds_tol!r}, got "
                                 f"row-sum error {float(r):.3e} and column-sum error "
                                 f"{float(c):.3e}")
        y = F(A @ X)                                  # [1, d]
        y = b.asarray(y)
        need_shape(fn, "F(A X)", y, (1, d))
        need_finite(b, fn, "F(A X)", y)
        return B @ X + C @ y
