"""Cross-check properties of ``Formal/Structure/Density.lean``: ``density_quadratic_form`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, combine, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import mat
from ...strategies import matrix
from .._arith import conv, ctx, maxabs
from ..spec._shared import anchor
from ._shared import _ub

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Density.dot_transpose_mulVec":
        "linear-algebra helper xᵀ(Aᵀy) = (Ax)ᵀy inside dot_density_mulVec, which is checked on "
        "pyref's density",
    "PLGA.Density.mulVec_sub":
        "linearity helper A(x − y) = Ax − Ay inside density_mulVec_eq_iff, which is checked",
    "PLGA.Density.eq_zero_of_mul_self_eq_zero":
        "order helper (a·a = 0 ⇒ a = 0) inside density_mulVec_eq_zero_iff, which is checked",
    "PLGA.Density.dot_self_nonneg":
        "order helper (vᵀv ≥ 0) inside density_quadratic_nonneg, which is checked",
    "PLGA.Density.eq_zero_of_dot_self_eq_zero":
        "order helper (vᵀv = 0 ⇒ v = 0) inside density_mulVec_eq_zero_iff, which is checked",
}


# ============================================================== 2. density (Prop 3.6)
@st.composite
def density_case(draw):
    S = draw(st.integers(1, 8))
    d = draw(st.integers(2, 8))
    Q = draw(matrix(S, d))
    x = draw(matrix(1, d, structure=False))[0]
    kind = draw(st.sampled_from(["plain", "dup-col", "dup-col"]))
    lam = draw(st.sampled_from([1.0, 2.0, -1.0, 0.5, 0.0]))
    j, kcol = draw(st.integers(0, d - 1)), draw(st.integers(0, d - 1))
    if kind == "dup-col" and j != kcol:
        Q[:, kcol] = lam * Q[:, j]                 # λ a power of two or 0: exact
        xk = np.zeros(d)
        xk[j], xk[kcol] = lam, -1.0                # Q xk = λ q_j − λ q_j = 0 exactly
    else:
        xk = None
    alpha = draw(st.sampled_from([1.0, 0.5, -3.0]))
    return Q, x, xk, alpha


@prop(theorems=["PLGA.Density.dot_density_mulVec", "PLGA.Density.density_symm",
                "PLGA.Density.density_quadratic_nonneg", "PLGA.Density.density_mulVec_eq_zero_iff",
                "PLGA.Density.density_mulVec_eq_iff", "PLGA.Density.density_apply",
                "PLGA.Density.density_diag_nonneg", "PLGA.Density.trace_density_nonneg"],
      paper="Prop 3.6 (D = Q̂ᵀQ̂: xᵀDx = ‖Q̂x‖², symmetric PSD, ker D = ker Q̂, tr D = ‖Q̂‖_F²)",
      strategy=density_case)
def density_quadratic_form(ex, backend, dps):
    """On ``pyref.plga.density`` (D = Q̂ᵀQ̂ over all S rows, no 1/S):

    * ``dot_density_mulVec``: xᵀDx = (Qx)ᵀ(Qx); ``density_quadratic_nonneg``: xᵀDx ≥ 0;
    * ``density_symm``: Dᵀ = D; ``density_apply``: D = Σ_p q_p q_pᵀ (running sum of outer products);
    * tr D = ‖Q‖_F², ``density_diag_nonneg``, ``trace_density_nonneg`` (exact: sums of squares);
    * ``density_mulVec_eq_zero_iff``: (⇐) for rank-deficient Q with column k = λ·column j (λ ∈ {0,
      ±1, 2, ½}) the kernel vector x_k = λe_j − e_k has Q x_k = 0 exactly, and D x_k must vanish;
      (⇒) for the random x, ‖Qx‖² ≤ ‖x‖₁‖Dx‖_∞ (so Dx = 0 forces Qx = 0);
    * ``density_mulVec_eq_iff``: Dx = Dy and Qx = Qy for y = x + α·x_k.

    Would fail for D = Q̂ᵀQ̂/S (S ≥ 2): xᵀDx and tr D would be ‖Qx‖²/S and ‖Q‖_F²/S.

    float64 bounds (Higham §3.1, nonnegative scales): with T = |x|ᵀ|Q|ᵀ|Q||x|, both xᵀDx and ‖Qx‖²
    are within γ_{S+2d+2}T of the exact value: ``fp_bound(S+2d+2, T)`` for the identity, the sign
    and (with T + ‖x‖₁·max(|Q|ᵀ|Q||x|)) the Hölder form; D entries are within γ_S(|Q|ᵀ|Q|)
    (symmetry, the outer-product sum with γ_{S+1}, the kernel product with 2(|λ| + 1)·max(|Q|ᵀ|Q|),
    γ_{S+2}); the trace with Σ Q², γ_{S+d}. mp: 1e-40 times the same scales; and D equals the Lean
    ``density`` (Q̂ᵀQ̂) evaluated independently (:mod:`crosscheck.spec_eval.model`; a formula anchor,
    so that a symmetric PSD but wrong D, e.g. Q̂ᵀQ̂/S, fails here too)."""
    Q, x, xk, alpha = ex
    S, d = Q.shape
    D = pyref.plga.density(Q, backend=backend, dps=dps)
    aQ = np.abs(Q)
    G = aQ.T @ aQ
    T = float(np.abs(x) @ G @ np.abs(x))
    parts = []
    with ctx(backend, dps):
        Qb, xb = conv(backend, dps, Q, x)
        quad = xb @ (D @ xb)
        Qx = Qb @ xb
        nq = Qx @ Qx
        parts.append(("dot_density_mulVec", maxabs(np.array([quad - nq])),
                      _ub(backend, S + 2 * d + 2, T)))
        parts.append(("density_quadratic_nonneg", max(0.0, -float(quad)),
                      _ub(backend, S + 2 * d + 2, T)))
        parts.append(("density_symm", maxabs(D - D.T), _ub(backend, S, G)))
        run = None
        for p in range(S):
            o = np.outer(Qb[p], Qb[p])
            run = o if run is None else run + o
        parts.append(("density_apply", maxabs(D - run), _ub(backend, S + 1, G)))
    ch = Checks()
    anchor(ch, "density", backend, dps, D, lambda: ev.density(mat(Q)), float(np.max(G)))
    parts += ch.items
    with ctx(backend, dps):
        tr = np.trace(D)
        fro = np.sum(Qb * Qb)
        parts.append(("trace = ‖Q‖_F²", maxabs(np.array([tr - fro])),
                      _ub(backend, S + d, float(np.sum(Q * Q)))))
        diag_neg = max(0.0, -float(np.min(to_float64(np.diagonal(D)))))
        parts.append(("density_diag_nonneg / trace_density_nonneg",
                      diag_neg + max(0.0, -float(tr)), 0.0))
        Dx = D @ xb
        l1 = float(np.sum(np.abs(x)))
        # ‖Qx‖² − ‖x‖₁‖Dx‖_∞ ≤ 0, in the backend
        hold = nq - np.sum(np.abs(xb)) * np.max(np.abs(Dx))
        T2 = T + l1 * float(np.max(G @ np.abs(x)))
        parts.append(("density_mulVec_eq_zero_iff (⇒, Hölder)", max(0.0, float(hold)),
                      _ub(backend, S + 2 * d + 4, T2)))
        if xk is not None:
            xkb, ab = conv(backend, dps, xk, np.array(alpha))
            Qk = Qb @ xkb
            exact_ker = maxabs(Qk)                                  # 0 by construction
            lam = float(np.max(np.abs(xk)))
            parts.append(("kernel vector construction (Q x_k = 0 exactly)", exact_ker, 0.0))
            parts.append(("density_mulVec_eq_zero_iff (⇐)", maxabs(D @ xkb),
                          _ub(backend, S + 2, 2 * (lam + 1) * float(np.max(G)))))
            yb = xb + ab * xkb
            y = to_float64(yb)
            Ty = float(np.max(G @ (np.abs(x) + np.abs(y))))
            Tq = float(np.max(aQ @ (np.abs(x) + np.abs(y))))
            parts.append(("density_mulVec_eq_iff (Dx = Dy)", maxabs(D @ xb - D @ yb),
                          _ub(backend, S + d + 3, 2 * Ty)))
            parts.append(("density_mulVec_eq_iff (Qx = Qy)", maxabs(Qb @ xb - Qb @ yb),
                          _ub(backend, d + 2, 2 * Tq)))
    return combine(parts)
