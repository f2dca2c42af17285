"""Cross-check properties of ``Formal/Perron/Uniqueness.lean``: ``perron_uniqueness_simplicity``.

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

import mpmath

from ...registry import Checks, prop
from .._arith import conv
from ._shared import (
    DPS,
    MP,
    Analysis,
    _mv,
    _scale,
    analyse,
    build_matrix,
    check_one_signed,
    check_ranks,
    nonpositive,
    perron_case,
)


def check_not_subinvariant(ch: Checks, an: Analysis, zs):
    """Step 4 (``eq_smul_of_mulVec_le``/``_ge``), contrapositive: a real x that is not a
    multiple of v has ``Ax − r x`` of both signs. Probes: the drawn signed vectors and the
    near-multiple ``v̂ + δ e_k`` with ``k = argmin v̂``, ``δ = 10^-10 max v̂``, whose margins are
    proved: ``δ a_ik ≥ δε`` (i ≠ k) and ``−δ(r − a_kk) ≤ −δε(n − 1)``
    (``r − a_kk = Σ_{j≠k} a_kj v_j/v_k``
    and ``v_j ≥ v_k``), i.e. ``≥ 10^-10 ε max v̂``, against a resolution ``≤ 2·10^-40 r max v̂``
    (``r ≤ 1e14`` here). Vectors within ``10^-12`` (relative) of span(v) are skipped: their
    sign margins are not resolvable in general. Tolerance: ``err_r·|x| + MP·(|A||x| + r|x|)``."""
    n = an.n
    if n == 1:
        return
    with mpmath.workdps(DPS):
        xs = [conv("mp", DPS, z)[0] for z in zs]
        t = an.v.copy()
        k = min(range(n), key=lambda i: t[i])
        t[k] += mpmath.mpf(10) ** -10 * max(an.v)
        xs.append(t)
        vv = mpmath.fsum(s * s for s in an.v)
        for x in xs:
            xm = max(abs(s) for s in x)
            c = mpmath.fsum(s * u for s, u in zip(x, an.v)) / vv
            if xm == 0 or max(abs(s - c * u)
                              for s, u in zip(x, an.v)) <= mpmath.mpf(10) ** -12 * xm:
                continue                  # x (nearly) ∝ v: nothing resolvable to refute
            d = _mv(an.a, x) - an.r * x
            res = an.err_r * xm + MP * (_scale(an.a, x) + an.r * xm)
            ch.margin("Ax − rx has both signs unless x ∝ v", res, min(max(d), -min(d)))


@prop(theorems=["PLGA.Perron.eq_smul_of_mulVec_le", "PLGA.Perron.eq_smul_of_mulVec_ge",
                "PLGA.Perron.eq_smul_of_eigvec", "PLGA.Perron.eigenvalue_eq_of_nonneg_eigvecs",
                "PLGA.Perron.no_generalized_eigvec", "PLGA.Perron.left_right_root_eq",
                "PLGA.Perron.eq_smul_of_left_eigvec"],
      paper="Thm 3.8 steps 4, 5, 7 (uniqueness, geometric and algebraic simplicity, left = right)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_uniqueness_simplicity(ex, backend, dps):
    """At 50 digits (mp only: these are exact-equality / rank statements that float64 cannot
    resolve for nearly reducible A_LM): exactly one real eigenvalue (the Perron root, equal to
    pyref's) has a one-signed eigenvector, on the right and on the left; ``Ax − rx`` has both
    signs unless x ∝ v (``Ax ≤ rx`` or ``≥`` forces x ∝ v); ``rank(A − rI) = n − 1 =
    rank((A − rI)²)`` for the right and for the left root (σ_n below, σ_{n−1} above the Weyl
    resolution); left and right roots agree."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_one_signed(ch, an)
    check_not_subinvariant(ch, an, ex.zs)
    check_ranks(ch, an)
    ch.le("left root = right root", abs(an.r - an.rl), an.err_r + an.err_rl)
    return ch.outcome()
