"""Cross-check properties of ``Formal/Rope/Flat.lean``: ``rope_is_interleaved_block_rotation`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import functools

import mpmath
import numpy as np
from hypothesis import strategies as st

from ...registry import combine, prop
from ...strategies import even_dk, matrix
from .._arith import ctx
from ._shared import BASE, POSITION, REF_DPS, _Ar

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.planeOf_flatIdx":
        "index bijection ((2j + r)/2 = j); Nat arithmetic, no computation",
    "PLGA.parityOf_flatIdx":
        "index bijection ((2j + r) % 2 = r); Nat arithmetic, no computation",
    "PLGA.flatIdx_planeOf_parityOf":
        "index bijection (2(i/2) + i % 2 = i); Nat arithmetic, no computation",
    "PLGA.BMat.toFlat_ofFlat":
        "index transport round trip (flat → pair → flat); exact data movement",
    "PLGA.BMat.ofFlat_toFlat":
        "index transport round trip (pair → flat → pair); exact data movement",
    "PLGA.BVec.toFlat_ofFlat":
        "index transport round trip for vectors; exact data movement",
    "PLGA.BMat.toFlat_injective":
        "injectivity of the index transport; exact data movement",
    "PLGA.BMat.toFlat_transpose":
        "definitional (rfl): transport commutes with transpose; exact data movement",
    "PLGA.fsum_two_mul":
        "reindexing a flat sum over Fin (2m) as a pair sum; the same terms in another bracketing, "
        "used only inside proofs",
    "PLGA.BMat.toFlat_mul":
        "the transport preserves products (reindexing of the sum); pyref only has the flat side",
    "PLGA.BMat.toFlat_mulVec":
        "the transport preserves matrix–vector products (reindexing); pyref only has the flat side",
    "PLGA.BMat.dot_toFlat":
        "the transport preserves dot products (reindexing); pyref only has the flat side",
    "PLGA.Rope.flat_commutes_iff":
        "transport of Commutes between flat and pair-indexed matrices (no arithmetic); the flat "
        "statement itself is what the properties evaluate on pyref's flat arrays",
}


@functools.lru_cache(maxsize=8192)
def _ref_cs(n: int, dk: int):
    """(cos(nθ_j), sin(nθ_j))_j at 80 digits, θ_j = Θ^{-2j/d_k} (the real family of
    Rotation.lean)."""
    with mpmath.workdps(REF_DPS):
        B = mpmath.mpf(int(BASE))
        th = [mpmath.power(B, mpmath.mpf(-2 * j) / dk) for j in range(dk // 2)]
        return tuple(mpmath.cos(n * t) for t in th), tuple(mpmath.sin(n * t) for t in th)


def _ref_R(n: int, dk: int) -> np.ndarray:
    c, s = _ref_cs(n, dk)
    R = np.empty((dk, dk), dtype=object)
    R[...] = mpmath.mpf(0)
    with mpmath.workdps(REF_DPS):     # mpf negation rounds to the working precision
        for j in range(dk // 2):
            R[2 * j, 2 * j], R[2 * j, 2 * j + 1] = c[j], -s[j]
            R[2 * j + 1, 2 * j], R[2 * j + 1, 2 * j + 1] = s[j], c[j]
    return R


def _ref_rope_rows(X: np.ndarray, pos) -> np.ndarray:
    """Lean flatRope_mulVec_even/_odd at 80 digits: y_{2j} = c x_{2j} − s x_{2j+1}, y_{2j+1} = s
    x_{2j} + c x_{2j+1}."""
    S, dk = X.shape
    out = np.empty((S, dk), dtype=object)
    with mpmath.workdps(REF_DPS):
        for t, n in enumerate(pos):
            c, s = _ref_cs(int(n), dk)
            for j in range(dk // 2):
                xe, xo = mpmath.mpf(float(X[t, 2 * j])), mpmath.mpf(float(X[t, 2 * j + 1]))
                out[t, 2 * j] = c[j] * xe - s[j] * xo
                out[t, 2 * j + 1] = s[j] * xe + c[j] * xo
    return out


def _layout_violations(R) -> int:
    """Exact structure of pyref's R_n: zero outside the 2×2 diagonal blocks, blocks [[c, −s], [s,
    c]] (call inside the backend's context)."""
    dk = R.shape[0]
    bad = 0
    for i in range(dk):
        for k in range(dk):
            if i // 2 != k // 2 and R[i, k] != 0:
                bad += 1
    for j in range(dk // 2):
        bad += (int(R[2 * j, 2 * j] != R[2 * j + 1, 2 * j + 1])
                + int(R[2 * j, 2 * j + 1] != -R[2 * j + 1, 2 * j]))
    return bad


# ===================================================================== 1. the convention
@st.composite
def rope_rows_inputs(draw):
    dk = draw(even_dk(2, 16))
    S = draw(st.integers(1, 6))
    pos = draw(st.lists(POSITION, min_size=S, max_size=S))
    return dk, pos, draw(matrix(S, dk, structure=False))


@prop(theorems=["PLGA.Rope.flatRope_mulVec_even", "PLGA.Rope.flatRope_mulVec_odd",
                "PLGA.Rope.flatRope_mulVec", "PLGA.BMat.bdiag_mulVec",
                "PLGA.BMat.block_bdiag", "PLGA.M2.rot_00", "PLGA.M2.rot_01",
                "PLGA.M2.rot_10", "PLGA.M2.rot_11"],
      paper="spec A.4 step 2 (interleaved RoPE pairs (2j, 2j+1), θ_j = Θ^{-2j/d_k})",
      strategy=rope_rows_inputs)
def rope_is_interleaved_block_rotation(ex, backend, dps):
    """pyref's ``apply_rope`` and ``rope_matrix`` are the Lean ``flatRope``: against an 80-digit
    evaluation of ``(R_n x)_{2j} = c x_{2j} − s x_{2j+1}``, ``(R_n x)_{2j+1} = s x_{2j} + c
    x_{2j+1}`` (c = cos nθ_j, s = sin nθ_j) at every drawn position (up to ±4096), and
    ``rope_matrix(n)`` has exactly the layout ``bdiag_j [[c, −s], [s, c]]`` (zero off the 2×2
    blocks, exactly). A half-split RoPE (pairs (j, j + d_k/2)) deviates by O(|x|) for d_k ≥ 4 and
    any n ≠ 0. Bound: entrywise ``ε_n P|x| + γ_2(1 + ε_n) P|x|`` (float64), ``mp_bound`` at 50
    digits."""
    dk, pos, X = ex
    ar = _Ar(backend, dps)
    out = ar.rope_rows(ar.exact(X), pos)
    ref = _ref_rope_rows(X, pos)
    checks = [ar.cmp_ref("apply_rope = flatRope (even/odd coordinates)", out, ref)]
    for t, n in enumerate(pos):
        R = ar.rot(n, dk)
        checks.append(ar.cmp_ref("rope_matrix(n) = bdiag rot(cos nθ_j, sin nθ_j)", R,
                                 _ref_R(int(n), dk)))
        Rx = ar.mm(R, ar.exact(X[t][:, None]), 2)
        checks.append(ar.cmp_ref("rope_matrix(n) @ x = flatRope formula", Rx, ref[t][:, None]))
        with ctx(backend, dps):   # mpf negation outside the 50-digit context would round to 53 bits
            bad = _layout_violations(R.v)
        checks.append(("rope_matrix block layout (exact)", float(bad), 0.0))
    return combine(checks)
