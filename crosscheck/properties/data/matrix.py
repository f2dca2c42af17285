"""Cross-check properties of ``Formal/Data/Matrix.lean``: ``matmul_associative``,
``transpose_of_product``, ``identity_is_neutral``, ``trace_cyclic``, ``matvec_linearity`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.data`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Outcome, prop
from ...strategies import UNIT, matrix
from .._arith import bound, conv, ctx, maxabs

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Mat.mul_apply":
        "definitional unfolding of the matrix product",
    "PLGA.Mat.dot_comm":
        "commutativity of real multiplication termwise; exact in IEEE and mpmath arithmetic",
    "PLGA.Mat.pow_zero":
        "definitional (rfl): A^0 = 1 is the base case of the recursion; pyref has no matrix-power "
        "routine",
    "PLGA.Mat.pow_succ":
        "definitional (rfl): A^{k+1} = A^k A is the recursion itself; the powers used by "
        "dag_positivity_obstruction are computed with it",
    "PLGA.Mat.pow_one":
        "A^1 = 1·A = A: multiplying by the identity is exact data movement in every arithmetic; "
        "nothing to measure",
    "PLGA.Mat.trace_one":
        "tr 1 = n: the trace of the identity is a sum of exact ones (= the S_0 = d of the DAG "
        "partial sums, checked exactly in dag_positivity_obstruction through "
        "expTracePartial_ge_card_add_trace)",
}


@st.composite
def three_matrices(draw):
    m, n, p, q = (draw(st.integers(1, 6)) for _ in range(4))
    return draw(matrix(m, n)), draw(matrix(n, p)), draw(matrix(p, q))


@prop(theorems=["PLGA.Mat.mul_assoc", "PLGA.fsum_comm", "PLGA.fsum_mul_left",
                "PLGA.fsum_mul_right"],
      paper="infrastructure (matrix algebra)", strategy=three_matrices)
def matmul_associative(ex, backend, dps):
    """(AB)C = A(BC); the exchange of finite sums behind it."""
    A, B, C = ex
    with ctx(backend, dps):
        a, b, c = conv(backend, dps, A, B, C)
        dev = maxabs((a @ b) @ c - a @ (b @ c))
    T = np.abs(A) @ np.abs(B) @ np.abs(C)
    return Outcome(dev, bound(backend, A.shape[1] + B.shape[1] + 2, T))


@prop(theorems=["PLGA.Mat.transpose_mul", "PLGA.Mat.transpose_transpose"],
      paper="infrastructure (matrix algebra)", strategy=three_matrices)
def transpose_of_product(ex, backend, dps):
    """(AB)ᵀ = BᵀAᵀ (exact in any arithmetic: the same products are summed in the same order)."""
    A, B, _ = ex
    with ctx(backend, dps):
        a, b = conv(backend, dps, A, B)
        dev = maxabs((a @ b).T - b.T @ a.T) + maxabs(a.T.T - a)
    return Outcome(dev, bound(backend, A.shape[1] + 1, np.abs(A) @ np.abs(B)))


@prop(theorems=["PLGA.Mat.mul_one", "PLGA.Mat.one_mul", "PLGA.Mat.mulVec_one", "PLGA.fsum_single",
                "PLGA.Mat.transpose_one"],
      paper="infrastructure (matrix algebra)", strategy=three_matrices)
def identity_is_neutral(ex, backend, dps):
    """A·I = I·A = A and I v = v: exact (the only nonzero term is multiplied by 1)."""
    A, _, _ = ex
    with ctx(backend, dps):
        a, = conv(backend, dps, A)
        bk = pyref.get_backend(backend, dps)
        Im, In = bk.eye(A.shape[0]), bk.eye(A.shape[1])
        dev = maxabs(a @ In - a) + maxabs(Im @ a - a) + maxabs(In @ a[0] - a[0]) + maxabs(In.T - In)
    return Outcome(dev, 0.0)


@prop(theorems=["PLGA.Mat.trace_mul_comm"], paper="infrastructure (matrix algebra)",
      strategy=three_matrices)
def trace_cyclic(ex, backend, dps):
    """tr(AB) = tr(BA) for A m×n, B n×m."""
    A, B, _ = ex
    B = np.resize(B, (A.shape[1], A.shape[0]))
    with ctx(backend, dps):
        a, b = conv(backend, dps, A, B)
        dev = maxabs(np.trace(a @ b) - np.trace(b @ a))
    T = np.sum(np.abs(A) * np.abs(B.T))
    return Outcome(dev, bound(backend, A.size + 1, T))


@st.composite
def linearity_inputs(draw):
    """A (m×n), B and B' (n×p, independent), v (p), a scalar c (generic, not a power of two)."""
    m, n, p = (draw(st.integers(1, 6)) for _ in range(3))
    v = np.array(draw(st.lists(UNIT, min_size=p, max_size=p)))
    c = draw(st.floats(-4.0, 4.0, allow_nan=False).filter(lambda x: x != 0))
    return draw(matrix(m, n)), draw(matrix(n, p)), draw(matrix(n, p)), v, c


@prop(theorems=["PLGA.Mat.mulVec_mulVec", "PLGA.Mat.mul_add", "PLGA.Mat.add_mul", "PLGA.fsum_add",
                "PLGA.Mat.smul_mul", "PLGA.Mat.mul_smul"],
      paper="infrastructure (matrix algebra)", strategy=linearity_inputs)
def matvec_linearity(ex, backend, dps):
    """A(Bv) = (AB)v (mulVec_mulVec), A(B + B') = AB + AB' (mul_add), (Bᵀ + B'ᵀ)Aᵀ = BᵀAᵀ + B'ᵀAᵀ
    (add_mul), (cA)B = c(AB) = A(cB) (smul_mul, mul_smul) for generic A, B, B', v and a drawn
    scalar c (no B' = B or power-of-two c, which would make both sides round identically). Bound:
    five comparisons of products, each 2γ_k on the absolute-value scale
    T = |A|(|B| + |B'|)(|v| + 1)(1 + |c|), plus a gradual-underflow allowance (float64)."""
    A, B, B2, v, c = ex
    with ctx(backend, dps):
        a, b, b2, vv = conv(backend, dps, A, B, B2, v)
        cc = conv(backend, dps, np.float64(c))[0]
        dev = (maxabs(a @ (b @ vv) - (a @ b) @ vv) + maxabs(a @ (b + b2) - (a @ b + a @ b2))
               + maxabs((b + b2).T @ a.T - (b.T @ a.T + b2.T @ a.T))
               + maxabs((cc * a) @ b - cc * (a @ b)) + maxabs(a @ (cc * b) - cc * (a @ b)))
    T = np.abs(A) @ (np.abs(B) + np.abs(B2)) @ (np.abs(v)[:, None] + 1) * (1 + abs(c))
    k = A.shape[1] + B.shape[1] + 3
    b = 5 * bound(backend, k, T)
    if backend not in ("mp", "arb"):
        # gradual underflow (γ_k is relative): each of the k roundings of an entry may err by
        # 2^-1075 absolute, then be multiplied by at most 1 + n·max|A| (and |c|) downstream
        b += 10 * k * 2.0 ** -1074 * (1 + A.shape[1] * float(np.max(np.abs(A)))) * (1 + abs(c))
    return Outcome(dev, b)
