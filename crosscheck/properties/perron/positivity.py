"""Cross-check properties of ``Formal/Perron/Positivity.lean``: ``perron_positivity_propagation``,
``perron_matvec_helpers``, ``perron_pair_positive`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import math

import mpmath
import numpy as np

import pyref

from ...registry import Checks, prop
from .._arith import U64, conv, ctx
from ._shared import (
    DPS,
    _f,
    _mv,
    _scale,
    analyse,
    build_matrix,
    check_pair,
    check_positive_image,
    check_pow_pos,
    fbound,
    nonpositive,
    perron_case,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Perron.dimA_eq_natCast":
        "1 + ⋯ + 1 (n times) = n in the field; an identity of exact integers, nothing to measure",
    "PLGA.Perron.exists_min_index":
        "a function on a finite nonempty index set attains its minimum; pure order fact used "
        "inside proofs",
    "PLGA.Perron.exists_max_index":
        "a function on a finite nonempty index set attains its maximum; pure order fact used "
        "inside proofs",
    "PLGA.Perron.exists_max_ratio":
        "cross-multiplied form of a finite argmax; order helper whose instances are the checked "
        "Collatz–Wielandt bounds",
    "PLGA.Perron.exists_min_ratio":
        "cross-multiplied form of a finite argmin; order helper whose instances are the checked "
        "Collatz–Wielandt bounds",
    "PLGA.Perron.dimA_pos":
        "n > 0 as a field element; holds trivially for every dimension drawn",
}


# ============================================================================ properties
@prop(theorems=["PLGA.Perron.eps_mul_fsum_le_mulVec", "PLGA.Perron.mulVec_pos",
                "PLGA.Perron.mpow_pos", "PLGA.Perron.fsum_pos", "PLGA.Perron.mulVec_nonneg",
                "PLGA.Perron.single_le_mulVec"],
      paper="Thm 3.8 step 1 (positivity propagation: Ax > 0 for x ≥ 0, x ≠ 0; A^k > 0)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_positivity_propagation(ex, backend, dps):
    """On pyref's A_LM (and positive matrices): for nonnegative nonzero, sparse x (and unit
    vectors), ``(Ax)_i ≥ ε Σx > 0`` with ε = min A, each term ``A_ik x_k ≤ (Ax)_i``, and
    ``A^k > 0`` for k ≤ 5. float64: ``fl(Σ)`` of nonnegative terms is ≥ ``(1 − γ_n)·Σ``, so both
    inequalities may be violated by at most ``2γ_{n+1}·max(A|x|)``; positivity is exact (products
    of normal positive floats ≥ 1e-12 are positive, sums of positives are positive)."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    ch = Checks()
    check_positive_image(ch, A, ex.xs, backend, dps)
    check_pow_pos(ch, A, backend, dps)
    return ch.outcome()


@prop(theorems=["PLGA.Perron.mulVec_add", "PLGA.Perron.mulVec_sub", "PLGA.Perron.mulVec_smul",
                "PLGA.Perron.mulVec_neg", "PLGA.Perron.mulVec_le_mulVec",
                "PLGA.Perron.absv_mulVec_le", "PLGA.Perron.mulVec_shiftMat",
                "PLGA.Perron.shiftMat_nonneg", "PLGA.Perron.transpose_entry_ge",
                "PLGA.Perron.dot_mulVec_eq_dot_transpose", "PLGA.Perron.mulVec_le_mul_fsum",
                "PLGA.Perron.le_entrySum"],
      paper="Thm 3.8 (matrix–vector helpers of the proof, on A_LM)", strategy=perron_case,
      backends=("mp", "float64"))
def perron_matvec_helpers(ex, backend, dps):
    """The linear-algebra facts the proof runs on, evaluated on pyref's A_LM: linearity of
    ``x ↦ Ax``; monotonicity for ``A ≥ 0``; ``|(Aw)_i| ≤ (A|w|)_i``; ``(A − εI)x = Ax − εx`` and
    ``A − εI ≥ 0``; ``Aᵀ ≥ ε``; ``yᵀ(Ax) = (Aᵀy)ᵀx``; ``(Ax)_i ≤ K Σx``; ``A_ij ≤ Σ A``. Bounds:
    ``2γ_k·T`` (float64) / ``MP·T`` (mp) with T the absolute-value expression and k the longest
    chain (n + 2 for products, n² for the entry sum); exact facts (signs) have bound 0."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    n = ex.n
    ch = Checks()
    with ctx(backend, dps):
        bk = pyref.get_backend(backend, dps)
        x, y = conv(backend, dps, ex.zs[0], ex.zs[1])
        (c,) = conv(backend, dps, np.float64(-0.75))
        eps = min(np.asarray(A).ravel())
        K = max(np.asarray(A).ravel())
        absA = np.abs(A)
        amp = 1 + n * _f(K)
        T2 = _scale(A, np.abs(x) + np.abs(y))
        ch.le("A(x + y) = Ax + Ay", _maxabs(_mv(A, x + y) - (_mv(A, x) + _mv(A, y))),
              fbound(backend, n + 2, T2, amp))
        ch.le("A(x − y) = Ax − Ay", _maxabs(_mv(A, x - y) - (_mv(A, x) - _mv(A, y))),
              fbound(backend, n + 2, T2, amp))
        ch.le("A(cx) = c Ax", _maxabs(_mv(A, c * x) - c * _mv(A, x)),
              fbound(backend, n + 2, 0.75 * _scale(A, x), amp))
        ch.le("A(−x) = −Ax", _maxabs(_mv(A, -x) + _mv(A, x)),
              fbound(backend, n + 1, _scale(A, x), amp))
        z = x + np.abs(y)  # z ≥ x entrywise (exactly: |y| ≥ 0 and rounding is monotone)
        ch.le("x ≤ z ⇒ Ax ≤ Az", _maxpos(_mv(A, x) - _mv(A, z)), fbound(backend, n + 2, T2, amp))
        ch.le("|(Aw)_i| ≤ (A|w|)_i", _maxpos(np.abs(_mv(A, x)) - _mv(A, np.abs(x))),
              fbound(backend, n + 1, _scale(A, x), amp))
        Sh = A - eps * bk.eye(n)
        ch.le("(A − εI)x = Ax − εx", _maxabs(_mv(Sh, x) - (_mv(A, x) - eps * x)),
              fbound(backend, n + 2, T2 + _f(eps), amp))
        ch.exact("A − εI ≥ 0, Aᵀ ≥ ε", sum(1 for t in np.asarray(Sh).ravel() if t < 0)
                 + sum(1 for t in np.asarray(A).T.ravel() if t < eps))
        lhs = sum(y * _mv(A, x))
        rhs = sum(_mv(np.asarray(A).T, y) * x)
        ch.le("yᵀ(Ax) = (Aᵀy)ᵀx", abs(lhs - rhs),
              fbound(backend, 2 * n + 2, _f(sum(np.abs(y) * _mv(absA, np.abs(x)))), amp))
        for w in ex.xs:
            (wb,) = conv(backend, dps, w)
            s = sum(wb)
            ch.le("(Ax)_i ≤ K Σx", _maxpos(_mv(A, wb) - K * s),
                  fbound(backend, n + 2, _f(K * s), amp))
        S = sum(np.asarray(A).ravel())
        ch.le("A_ij ≤ Σ A", _f(K - S), fbound(backend, n * n + 1, _f(S), amp))
    return ch.outcome()


def _maxabs(d) -> float:
    return float(np.max(pyref.to_float64(np.abs(np.asarray(d))))) if np.size(d) else 0.0


def _maxpos(d) -> float:
    return max(0.0, float(np.max(pyref.to_float64(np.asarray(d))))) if np.size(d) else 0.0


@prop(theorems=["PLGA.Perron.eigvec_pos_of_nonneg", "PLGA.Perron.eps_mul_fsum_le_eigenvalue_mul",
                "PLGA.Perron.eps_le_eigenvalue", "PLGA.Perron.eigenvalue_mul_max_ge",
                "PLGA.Perron.exists_perron_pair", "PLGA.Perron.exists_left_perron_pair",
                "PLGA.Perron.exists_perron_pairs", "PLGA.Perron.left_right_root_eq"],
      paper="Thm 3.8 steps 2, 5, 8 (positive Perron pairs, r ≥ ε, n ε min v ≤ r max v, left = "
            "right)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_pair_positive(ex, backend, dps):
    """mp: pyref's Perron pairs of A and Aᵀ (``pyref.analysis.perron(dps=50)``) witness the
    existence statements: both vectors strictly positive, residuals at the 50-digit level,
    ``r ≥ ε``, ``ε Σv ≤ r v_i``, ``n ε min v ≤ r max v`` (violations bounded by the residual:
    ``ε Σv̂ ≤ (Av̂)_i`` holds exactly), and the left and right roots agree within their
    Collatz–Wielandt errors.

    float64: the Perron root as a float64 user computes it (largest real part of
    ``np.linalg.eigvals`` of pyref's float64 A_LM) against the exact root of the same matrix:
    ``|λ̂ − r| ≤ 2κ·10n²·u·‖A‖_F`` with ``κ = ‖y‖‖v‖/(yᵀv)`` (50 digits), and ``λ̂ ≥ ε``
    within
    that bound."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    if backend == "mp":
        check_pair(ch, an)
        return ch.outcome()
    Af = np.asarray(A, dtype=np.float64)
    ev = np.linalg.eigvals(Af)
    k = int(np.argmax(ev.real))
    lam = ev[k]
    fro = float(np.linalg.norm(Af))
    bnd = 2 * _f(an.kappa) * 10 * ex.n ** 2 * U64 * fro
    with mpmath.workdps(DPS):
        dev = abs(mpmath.mpf(float(lam.real)) - an.r) + abs(float(lam.imag))
        ch.le("float64 Perron root vs exact", dev, bnd + _f(an.err_r))
        ch.le("float64 root ≥ ε", an.eps - mpmath.mpf(float(lam.real)), bnd + _f(an.err_r))
    return ch.outcome(note=f"κ ≤ 1e{math.ceil(math.log10(max(1.0, _f(an.kappa))))}")
