"""Cross-check properties of ``Formal/Rope/Rotation.lean``: ``rope_group_law_and_orthogonality``,
``score_form_relative_iff_commutes``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from pyref.backend import to_float64

from ...registry import combine, prop
from ...strategies import even_dk, matrix
from .._arith import _V, ctx, gamma, mp_bound
from ._shared import POSITION, SLACK, _Ar, _comm_embed, _eps_rot, _exceeds


# ============================================================ 2. group law, orthogonality
@st.composite
def two_positions(draw):
    return draw(even_dk(2, 16)), draw(POSITION), draw(POSITION)


@prop(theorems=["PLGA.Rope.RotFamily.c_zero", "PLGA.Rope.RotFamily.s_zero",
                "PLGA.Rope.RotFamily.c_neg", "PLGA.Rope.RotFamily.s_neg",
                "PLGA.Rope.RotFamily.rot_mul_rot", "PLGA.Rope.ropeMat_mul",
                "PLGA.Rope.ropeMat_zero", "PLGA.Rope.ropeMat_transpose",
                "PLGA.Rope.ropeMat_orthogonal", "PLGA.Rope.ropeMat_orthogonal'",
                "PLGA.M2.rot_mul_rot", "PLGA.M2.rot_one_zero",
                "PLGA.M2.transpose_rot", "PLGA.M2.rot_mul_rot_comm",
                "PLGA.BMat.bdiag_mul_bdiag", "PLGA.BMat.transpose_bdiag"],
      paper="Prop 4.1 setup (R_n R_n' = R_{n+n'}, R_0 = 1, R_nᵀ = R_{-n}, R_n orthogonal)",
      strategy=two_positions)
def rope_group_law_and_orthogonality(ex, backend, dps):
    """On pyref's ``rope_matrix`` (positions up to ±4096, sums up to ±8192): ``R_n R_{n'} =
    R_{n+n'}`` (off-diagonal blocks exactly zero, diagonal blocks ``rot(cc' − ss', cs' + sc')``, and
    ``R_n R_{n'} = R_{n'} R_n``), ``R_0 = 1`` exactly (c 0 = 1, s 0 = 0: bound 0 on both backends),
    ``R_nᵀ = R_{-n}`` (c even, s odd; blocks ``rot(c, −s)``), ``R_nᵀ R_n = R_n R_nᵀ = 1``. Bounds:
    the propagated ``ε_n``/``γ_2`` majorants (module docstring); the blockwise product formula is
    the same 2-term expression on both sides: ``2γ_2(1 + ε)²``."""
    dk, n, n2 = ex
    ar = _Ar(backend, dps)
    Rn, Rn2, Rsum, R0, Rneg = (ar.rot(p, dk) for p in (n, n2, n + n2, 0, -n))
    eye = ar.exact(np.eye(dk))
    prod, prod_rev = ar.mm(Rn, Rn2, 2), ar.mm(Rn2, Rn, 2)
    checks = [ar.cmp("R_n R_n' = R_{n+n'}", prod, Rsum),
              ar.cmp("R_n R_n' = R_n' R_n", prod, prod_rev),
              ("R_0 = 1 exactly", float(np.max(ar._absdiff(R0.v, eye.v))), 0.0),
              ar.cmp("R_nᵀ = R_{-n}", Rn.T, Rneg),
              ar.cmp("R_nᵀ R_n = 1", ar.mm(Rn.T, Rn, 2), eye),
              ar.cmp("R_n R_nᵀ = 1", ar.mm(Rn, Rn.T, 2), eye)]
    eps = max(_eps_rot(n), _eps_rot(n2))
    blk_bound = 0.0 if ar.mp else 2 * gamma(2) * (1 + eps) ** 2
    worst = 0.0
    with ctx(backend, dps):
        for j in range(dk // 2):
            sl = slice(2 * j, 2 * j + 2)
            c1, s1 = Rn.v[2 * j, 2 * j], Rn.v[2 * j + 1, 2 * j]
            c2, s2 = Rn2.v[2 * j, 2 * j], Rn2.v[2 * j + 1, 2 * j]
            a, b = c1 * c2 - s1 * s2, c1 * s2 + s1 * c2
            formula = np.array([[a, -b], [b, a]], dtype=object if ar.mp else np.float64)
            worst = max(worst, float(np.max(np.abs(to_float64(prod.v[sl, sl] - formula)))))
    checks.append(("block (j,j) of R_n R_n' = rot(cc' − ss', cs' + sc')", worst,
                   mp_bound(1.0) if ar.mp else blk_bound * SLACK))
    return combine(checks)


# ===================================================== 3. Prop 4.1: relative ⇔ commute
@st.composite
def operator_inputs(draw):
    dk = draw(even_dk(2, 16))
    kind = draw(st.sampled_from(["commutant", "commutant", "random", "perturbed"]))
    G = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "random":
        G = draw(matrix(dk, dk))
    elif kind == "perturbed":
        delta = draw(st.sampled_from([1e-3, 1e-6]))
        G = G + delta * max(1.0,
                            float(np.max(np.abs(G)))) * draw(matrix(dk, dk, magnitude=st.just(1.0),
                                                                    structure=False))
    return dk, kind, G, draw(POSITION), draw(POSITION), draw(POSITION)


def _score_forms(ar: _Ar, G: _V, dk: int, positions):
    R = {p: ar.rot(p, dk) for p in set(positions)}

    def S(p, p2):
        return ar.mm(ar.mm(R[p].T, G, 2), R[p2], 2)
    return R, S


@prop(theorems=["PLGA.Rope.isRelative_iff_commutes", "PLGA.Rope.translationInvariant_iff_commutes",
                "PLGA.Rope.scoreForm_of_commutes", "PLGA.Rope.scoreForm_zero_zero",
                "PLGA.Rope.commutes_of_scoreForm_diag", "PLGA.Rope.flat_isRelative_iff_commutes",
                "PLGA.Rope.commEmbed_commutes", "PLGA.Rope.block_intertwines",
                "PLGA.M2.rot_mul_rot_comm", "PLGA.BMat.bdiag_mul",
                "PLGA.BMat.mul_bdiag", "PLGA.BMat.block_mul_bdiag",
                "PLGA.BMat.block_bdiag_mul"],
      paper="Prop 4.1 (score form R_nᵀ G R_n' depends only on n' − n iff G commutes with "
            "every R_n)",
      strategy=operator_inputs)
def score_form_relative_iff_commutes(ex, backend, dps):
    """Both directions on pyref's RoPE. G = blockdiag(a_j·1 + b_j·J) (commutes exactly): the score
    form equals ``G R_{n'−n}``, is invariant under shifting both positions by t, ``R_nᵀ G R_n = G``,
    ``G R_n = R_n G`` and blockwise ``rot_j(n) G_jk = G_jk rot_k(n)`` (blocks of the full products
    equal the 2×2 block products), all within the propagated bound. G random or a commutant element
    plus a relative 1e-3/1e-6 perturbation (hypothesis: ``G R_1 − R_1 G ≠ 0``, certified when
    ``‖C'‖_F − ‖C.e‖_F > 2‖D.e‖_F`` so that the conclusion is decidable in this arithmetic;
    otherwise ``met=False``): some shift changes the score form by more than its round-off bound
    (candidates: ``R_1ᵀ G R_1 − G``, whose exact Frobenius norm is ``‖G R_1 − R_1 G‖_F``, and the
    drawn (n, n', t)). ``R_0ᵀ G R_0 = G`` exactly for every G (R_0 = 1 exactly)."""
    dk, kind, G, n, n2, t = ex
    ar = _Ar(backend, dps)
    Gv = ar.exact(G)
    R, S = _score_forms(ar, Gv, dk, [0, 1, n, n2, t, n + t, n2 + t, n2 - n])
    checks = [("R_0ᵀ G R_0 = G exactly", float(np.max(ar._absdiff(S(0, 0).v, Gv.v))), 0.0)]
    C = ar.sub(ar.mm(Gv, R[1], 2), ar.mm(R[1], Gv, 2))
    if kind == "commutant":
        checks += [ar.cmp("R_nᵀ G R_n' = G R_{n'−n}", S(n, n2), ar.mm(Gv, R[n2 - n], 2)),
                   ar.cmp("R_{n+t}ᵀ G R_{n'+t} = R_nᵀ G R_n'", S(n + t, n2 + t), S(n, n2)),
                   ar.cmp("R_tᵀ G R_t = G", S(t, t), Gv)]
        GR, RG = ar.mm(Gv, R[n], 2), ar.mm(R[n], Gv, 2)
        checks.append(ar.cmp("G R_n = R_n G", GR, RG))
        for j in range(dk // 2):
            for k in range(dk // 2):
                bj, bk = slice(2 * j, 2 * j + 2), slice(2 * k, 2 * k + 2)
                Gjk = Gv[bj, bk]
                left, right = ar.mm(R[n][bj, bj], Gjk, 2), ar.mm(Gjk, R[n][bk, bk], 2)
                checks += [ar.cmp("rot_j(n) G_jk = G_jk rot_k(n)", left, right),
                           ar.cmp("block (j,k) of R_n G = rot_j(n) G_jk", RG[bj, bk], left),
                           ar.cmp("block (j,k) of G R_n = G_jk rot_k(n)", GR[bj, bk], right)]
        return combine(checks)
    D1 = ar.sub(S(1, 1), Gv)
    cands = [D1, ar.sub(S(n + t, n2 + t), S(n, n2)), ar.sub(S(t, t), Gv)]
    cn, cthr = ar.certified_nonzero(C)
    _, d1thr = ar.certified_nonzero(D1)
    met = cn - cthr > 2 * d1thr
    margins = [ar.certified_nonzero(D) for D in cands]
    best = max(margins, key=lambda v: v[0] - v[1])
    checks.append(_exceeds("some shift t changes the score form (not relative)", best[0], best[1]))
    return combine(checks, met=met)
