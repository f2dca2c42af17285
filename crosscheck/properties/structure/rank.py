"""Cross-check properties of ``Formal/Structure/Rank.lean``: ``density_rank_equals_query_rank``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import combine, prop
from ..data.linear import cols, flint_rank, lin_indep

#: largest |entry| of the integer query matrices: with S ≤ 8 rows every entry of QᵀQ is an
#: integer of size ≤ 8·ENTRY² < 2^53, so pyref's float64 (and 50-digit mp) density is exact
ENTRY = 12


@st.composite
def rank_deficient_queries(draw):
    """An S × d integer Q of drawn rank ≤ k (product of S × k and k × d with entries in [−1, 1]
    and [−2, 2], k ≤ 6, so |Q| ≤ 2k ≤ ENTRY)."""
    S, d = draw(st.integers(1, 8)), draw(st.integers(1, 6))
    k = draw(st.integers(0, min(S, d)))
    A = np.array([[draw(st.integers(-1, 1)) for _ in range(k)] for _ in range(S)], dtype=np.int64)
    B = np.array([[draw(st.integers(-2, 2)) for _ in range(d)] for _ in range(k)], dtype=np.int64)
    Q = (A @ B if k else np.zeros((S, d), dtype=np.int64)).astype(np.float64)
    assert np.max(np.abs(Q), initial=0) <= ENTRY
    fams = [tuple(draw(st.integers(0, d - 1)) for _ in range(draw(st.integers(1, d))))
            for _ in range(3)]
    return Q, fams


@prop(theorems=["PLGA.Density.linIndep_cols_density_iff", "PLGA.Density.colRank_density",
                "PLGA.Density.colRank_density_le_min", "PLGA.colRank_eq_of_mulVec_eq_zero_iff",
                "PLGA.linIndep_cols_iff_of_mulVec_eq_zero_iff"],
      paper="Prop 3.6 (rank D = rank Q̂ ≤ min(S, d_k) for D = Q̂ᵀQ̂)",
      strategy=rank_deficient_queries)
def density_rank_equals_query_rank(ex, backend, dps):
    """On ``pyref.plga.density`` for integer, rank-deficient Q (drawn rank 0..min(S, d)):

    * the computed D is exactly QᵀQ (integer entries < 2^53: exact in float64 and at 50 digits;
      checked against the integer product, bound 0), so exact ranks of pyref's D are meaningful;
    * ``colRank_density``: rank D = rank Q (python-flint, exact over ℚ), and ≤ min(S, d);
    * ``linIndep_cols_density_iff``: for drawn column families σ (repeats allowed) and every
      injective σ of size rank Q, the columns σ of D are independent iff those of Q are (sympy's
      exact null space).

    Would fail for a density missing rows (e.g. a causal or last-row-dropped sum: rank drops for
    some Q) or built as QQᵀ (wrong shape and rank family)."""
    Q, fams = ex
    S, d = Q.shape
    D = to_float64(np.asarray(pyref.plga.density(Q, backend=backend, dps=dps)))
    Qi = Q.astype(np.int64)
    exact = Qi.T @ Qi
    checks = [("pyref density = QᵀQ exactly (integers)",
               float(D.shape != exact.shape or np.any(D != exact)), 0.0)]
    if D.shape != exact.shape:
        return combine(checks)
    Ql = Qi.tolist()
    Dp = D.astype(np.int64).tolist()
    rQ, rD = flint_rank(Ql), flint_rank(Dp)
    checks += [("rank D = rank Q", abs(rD - rQ), 0.0),
               ("rank D ≤ min(S, d)", float(rD > min(S, d)), 0.0)]
    families = list(fams) + list(itertools.islice(itertools.permutations(range(d), rQ), 6))
    bad = sum(lin_indep(cols(Dp, s), d) != lin_indep(cols(Ql, s), S) for s in families if s)
    checks.append(("columns σ of D independent ⇔ columns σ of Q independent", float(bad), 0.0))
    return combine(checks)
