"""Cross-check properties of ``Formal/Rope/Collapse.lean``: ``rope_collapse_to_sdpa`` and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import combine, prop
from ...strategies import even_dk, matrix
from .._arith import _V
from ._shared import POSITION, _Ar, _comm_embed, _exceeds

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.dot_mulVec_left":
        "⟨Au, w⟩ = ⟨u, Aᵀw⟩, generic linear algebra used only inside the collapse proofs, whose "
        "statements are checked",
}


# ================================================ 7. collapse to SDPA with RoPE (Thm 5.4(ii))
@st.composite
def collapse_inputs(draw):
    dk = draw(even_dk(2, 8))
    S, T = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["commutant", "commutant", "random", "perturbed"]))
    G = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "random":
        G = draw(matrix(dk, dk))
    elif kind == "perturbed":
        noise = draw(matrix(dk, dk, magnitude=st.just(1.0), structure=False))
        G = G + 1e-3 * max(1.0, float(np.max(np.abs(G)))) * noise
    return (dk, kind, G, draw(matrix(S, dk, structure=False)), draw(matrix(T, dk, structure=False)),
            draw(st.lists(POSITION, min_size=S, max_size=S)),
            draw(st.lists(POSITION, min_size=T, max_size=T)))


def _scores(ar: _Ar, Qh: _V, Kh: _V, G: _V | None) -> _V:
    """pyref's attention_scores(Q̂, K̂, G) = (Q̂ G) K̂ᵀ/√d_k with its majorants (d_k-term
    products)."""
    dk = Qh.v.shape[-1]
    v = pyref.plga.attention_scores(Qh.v, Kh.v, None if G is None else G.v, backend=ar.backend,
                                    dps=ar.dps)
    lhs = Qh if G is None else ar.mm(Qh, G, dk, v=Qh.v)   # value unused; majorants only
    prod = ar.mm(lhs, Kh.T, dk, v=v)
    return ar.div_sqrt(prod, dk, v=v)


@prop(theorems=["PLGA.Rope.rope_collapse_of_commutes", "PLGA.Rope.commutes_of_rope_collapse",
                "PLGA.Rope.rope_collapse_iff", "PLGA.Rope.rope_collapse_query_map",
                "PLGA.Rope.transpose_mulVec_of_rope_collapse", "PLGA.Rope.plgaRopeScore_eq",
                "PLGA.Rope.sdpaRopeScore_eq"],
      paper="Thm 5.4(ii) with RoPE (constant G* collapses PLGA to SDPA with query q ↦ G*ᵀq iff G* "
            "commutes)",
      strategy=collapse_inputs)
def rope_collapse_to_sdpa(ex, backend, dps):
    """On pyref's ``attention_scores`` with ``apply_rope``-rotated queries/keys (rows, positions up
    to ±4096): the PLGA-with-RoPE score (R_n q)ᵀ G (R_n' k) equals qᵀ(R_nᵀ G R_n')k and the
    SDPA-with-RoPE score equals qᵀ R_{n'−n} k (plgaRopeScore_eq, sdpaRopeScore_eq). Commuting G
    (commEmbed): PLGA with G equals SDPA on the reparametrized queries q ↦ Gᵀq (rows Q ↦ QG,
    pyref's absorption convention). The forced query map: with keys e_i at position 0, PLGA scores
    at query position n determine the only possible image f(q) = R_nᵀ Gᵀ R_n q
    (transpose_mulVec_of_rope_collapse); at n = 0 it is Gᵀq (rope_collapse_query_map); for
    commuting G it is the same at every n; for non-commuting G (hypothesis, certified) it differs
    between n = 0 and n = 1 by more than round-off for the query batch [Q; I] (exact difference ≥
    ‖G R_1 − R_1 G‖_F/√d_k), so no position-independent query map — linear or not — reproduces the
    PLGA scores (commutes_of_rope_collapse, rope_collapse_iff ⇒). Bounds: the propagated majorants
    (d_k-term products γ_{d_k}, the √d_k division 2.01u)."""
    dk, kind, G, Q, K, pq, pk = ex
    ar = _Ar(backend, dps)
    Gv, Qv, Kv = ar.exact(G), ar.exact(Q), ar.exact(K)
    Qh, Kh = ar.rope_rows(Qv, pq), ar.rope_rows(Kv, pk)
    E_plga, E_sdpa = _scores(ar, Qh, Kh, Gv), _scores(ar, Qh, Kh, None)
    checks = []
    R = {p: ar.rot(p, dk)
         for p in set(list(pq) + list(pk) + [b - a for a in pq for b in pk] + [0, 1])}
    for t, n in enumerate(pq):
        for s, n2 in enumerate(pk):
            q, k = Qv[t:t + 1, :], Kv[s:s + 1, :].T
            Sf = ar.mm(ar.mm(R[n].T, Gv, 2), R[n2], 2)
            direct = ar.div_sqrt(ar.mm(ar.mm(q, Sf, dk), k, dk), dk)
            checks.append(ar.cmp("(R_n q)ᵀG(R_n' k) = qᵀ scoreForm k",
                                 E_plga[t:t + 1, s:s + 1], direct))
            rel = ar.div_sqrt(ar.mm(ar.mm(q, R[n2 - n], 2), k, dk), dk)
            checks.append(ar.cmp("(R_n q)ᵀ(R_n' k) = qᵀ R_{n'−n} k", E_sdpa[t:t + 1, s:s + 1], rel))
    C = ar.sub(ar.mm(Gv, R[1], 2), ar.mm(R[1], Gv, 2))
    if kind == "commutant":
        QG = ar.mm(Qv, Gv, dk)
        E_re = _scores(ar, ar.rope_rows(QG, pq), Kh, None)
        checks.append(ar.cmp("PLGA(G) = SDPA(q ↦ Gᵀq)", E_plga, E_re))
    # the query map forced by the PLGA scores at query position n (keys e_i at position 0)
    Qall = ar.exact(np.vstack([Q, np.eye(dk)]))
    rows = Qall.v.shape[0]
    keys0 = ar.rope_rows(ar.exact(np.eye(dk)), [0] * dk)
    forced = {}
    for n in sorted({0, 1, int(pq[0])}):
        s_n = _scores(ar, ar.rope_rows(Qall, [n] * rows), keys0, Gv)
        forced[n] = ar.mm(s_n, R[n], 2)                                     # rows: (R_nᵀ s)ᵀ
    GtQ = ar.div_sqrt(ar.mm(Qall, Gv, dk), dk)
    checks.append(ar.cmp("forced map at n = 0 is q ↦ Gᵀq", forced[0], GtQ))
    met = True
    if kind == "commutant":
        for n, f in forced.items():
            checks.append(ar.cmp("commuting G: forced map is the same at every position",
                                 f, forced[0]))
    else:
        D = ar.sub(forced[1], forced[0])
        cn, cthr = ar.certified_nonzero(C)
        _, dthr = ar.certified_nonzero(D)
        met = (cn - cthr) / math.sqrt(dk) > 2 * dthr
        checks.append(_exceeds("non-commuting G: forced maps at n = 0, 1 differ (no query map "
                               "collapses)",
                               *ar.certified_nonzero(D)))
    return combine(checks, met=met)
