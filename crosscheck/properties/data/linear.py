"""Cross-check properties of ``Formal/Data/Linear.lean``: ``steinitz_and_dimension``,
``push_reindexing``, ``column_rank_is_max_independent_columns`` and ``JUSTIFY``.

Everything here is exact: inputs are small integers or float64 values converted exactly to
fractions, combinations are evaluated with :class:`fractions.Fraction` (the Lean definitions
``lincomb``, ``push``, ``cols``, ``colRank`` written out), and the independent references are
python-flint's exact rank over ℚ (``fmpq_mat.rank``) and sympy's exact null space. Bounds are 0.

Conventions and tolerances: :mod:`crosscheck.properties.data`."""

from __future__ import annotations

import itertools
from fractions import Fraction

import flint
import sympy
from hypothesis import strategies as st

from ...registry import combine, prop

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.vadd_scalar": "definitional (rfl): vector addition on scalars is +",
    "PLGA.vsmul_scalar": "definitional (rfl): scalar multiplication on scalars is *",
    "PLGA.vadd_apply": "definitional (rfl): vector addition of functions is pointwise",
    "PLGA.vsmul_apply": "definitional (rfl): scalar multiplication of functions is pointwise",
    "PLGA.val_vadd": "definitional (rfl): the operations of a subspace are those of the space",
    "PLGA.val_vsmul": "definitional (rfl): the operations of a subspace are those of the space",
    "PLGA.LinIso.isLinear_invFun":
        "abstract algebra (the inverse of a linear bijection is linear); its instances, the "
        "coordinate maps kerCoords/commCoords, are checked exactly in rope/dimension.py",
    "PLGA.field_one_ne_zero": "field axiom 0 ≠ 1 of core's Lean.Grind.Field; no computation",
    "PLGA.skipAt_ne": "index arithmetic on Fin (k+1) (skipAt t0 s ≠ t0); Nat only",
    "PLGA.skipAt_injective": "index arithmetic on Fin (k+1) (skipAt t0 injective); Nat only",
    "PLGA.mul_comm'": "commutativity axiom of core's Lean.Grind.CommSemiring; no computation",
    "PLGA.greatestBelow_le":
        "Nat recursion (the largest k ≤ n with P k is ≤ n); its use, colRank ≤ d, is checked in "
        "column_rank_is_max_independent_columns",
    "PLGA.greatestBelow_spec":
        "Nat recursion (the largest k ≤ n with P k satisfies P when P 0 does); its use, "
        "exists_linIndep_cols_colRank, is checked",
    "PLGA.le_greatestBelow":
        "Nat recursion (every k ≤ n with P k is ≤ the largest); its use, le_colRank_of_linIndep, "
        "is checked",
}

SMALL = st.integers(-3, 3)


def lincomb(v, c):
    """Lean ``lincomb v c = Σ_t c_t v_t`` (vectors as lists, exact)."""
    n = len(v[0]) if v else 0
    return [sum((Fraction(c[t]) * v[t][i] for t in range(len(v))), Fraction(0)) for i in range(n)]


def push(e, c, l_):
    """Lean ``push e c t = Σ_{s, e s = t} c_s``."""
    return [sum((Fraction(c[s]) for s in range(len(e)) if e[s] == t), Fraction(0))
            for t in range(l_)]


def cols(Q, sigma):
    """Lean ``cols Q σ``: the columns σ(0), …, σ(k−1) of Q as vectors."""
    return [[row[j] for row in Q] for j in sigma]


def _nullspace(vectors, n):
    """sympy's exact null space of the n × k matrix with the vectors as columns."""
    if not vectors:
        return []
    M = sympy.Matrix(n, len(vectors), lambda i, t: sympy.Rational(vectors[t][i]))
    return [[Fraction(int(x.p), int(x.q)) for x in b] for b in M.nullspace()]


def lin_indep(vectors, n) -> bool:
    """Linear independence by sympy's exact null space (empty ⇔ independent)."""
    return not _nullspace(vectors, n)


def flint_rank(M) -> int:
    """Exact rank over ℚ by python-flint."""
    r, c = len(M), len(M[0]) if M else 0
    if r == 0 or c == 0:
        return 0
    return flint.fmpq_mat(r, c, [flint.fmpq(Fraction(x).numerator, Fraction(x).denominator)
                                 for row in M for x in row]).rank()


def _mat(draw, r, c, lo=-3, hi=3):
    return [[draw(st.integers(lo, hi)) for _ in range(c)] for _ in range(r)]


def _low_rank(draw, r, c):
    """An r × c integer matrix of drawn rank ≤ k (product of r × k and k × c)."""
    k = draw(st.integers(0, min(r, c)))
    A, B = _mat(draw, r, k), _mat(draw, k, c)
    return [[sum(A[i][t] * B[t][j] for t in range(k)) for j in range(c)] for i in range(r)]


@st.composite
def steinitz_inputs(draw):
    n = draw(st.integers(0, 5))
    k = draw(st.integers(n + 1, n + 3))
    V = _mat(draw, k, n, -5, 5)
    a, b = draw(st.integers(1, 4)), draw(st.integers(1, 4))
    M = _low_rank(draw, b, a) if draw(st.booleans()) else _mat(draw, b, a)
    kk = draw(st.integers(0, 4))
    W = _mat(draw, kk, a)
    c = [draw(SMALL) for _ in range(kk)]
    return V, n, M, a, b, W, c


def _matvec(M, x):
    return [sum((Fraction(M[i][j]) * x[j] for j in range(len(x))), Fraction(0))
            for i in range(len(M))]


@prop(theorems=["PLGA.LinIndep.le_dim", "PLGA.LinIso.dim_eq", "PLGA.linIndep_map_unitVec",
                "PLGA.map_lincomb", "PLGA.lincomb_unitVec"],
      paper="infrastructure (Steinitz bound, dimension invariance) for Prop 3.6 / Prop 4.1",
      strategy=steinitz_inputs, backends=("float64",))
def steinitz_and_dimension(ex, backend, dps):
    """Exact on ℚ (backend-independent, run once):

    * ``LinIndep.le_dim``: k > n integer vectors of ℚ^n have a nonzero c with Σ c_t v_t = 0
      (sympy's null space, the combination re-evaluated exactly here);
    * ``map_lincomb``/``lincomb_unitVec``: for f = M· (a random b × a integer matrix),
      f(Σ c_t w_t) = Σ c_t f(w_t) and Σ c_t e_t = c;
    * ``linIndep_map_unitVec``: if f is injective (flint rank a) then f(e_0), …, f(e_{a−1}) are
      independent (empty null space) — and then a ≤ b;
    * ``LinIso.dim_eq``: for a ≠ b, f is not bijective: a > b gives a nonzero kernel vector,
      a < b a nonzero y with yᵀM = 0, which is not in the image (yᵀy ≠ 0 = yᵀMx); both
      witnesses are verified exactly.

    Would fail if some k > n vectors were independent, or if flint and sympy disagreed."""
    V, n, M, a, b, W, c = ex
    checks = []
    ns = _nullspace(V, n)
    ok = bool(ns) and any(x != 0 for x in ns[0]) and all(x == 0 for x in lincomb(V, ns[0]))
    checks.append(("k > n vectors of ℚ^n are dependent (witness verified)", float(not ok), 0.0))
    lhs = _matvec(M, lincomb(W, c)) if W else [Fraction(0)] * b
    rhs = lincomb([_matvec(M, w) for w in W], c) if W else [Fraction(0)] * b
    checks.append(("f(Σ c_t w_t) = Σ c_t f(w_t)", float(lhs != rhs), 0.0))
    units = [[Fraction(int(i == t)) for i in range(a)] for t in range(a)]
    cc = [Fraction(x) for x in (c + [0] * a)[:a]]
    checks.append(("Σ c_t e_t = c", float(lincomb(units, cc) != cc), 0.0))
    images = [_matvec(M, e) for e in units]
    if flint_rank(M) == a:
        checks.append(("injective f: f(e_t) independent",
                       float(not lin_indep(images, b)), 0.0))
        checks.append(("injective f: a ≤ b", float(a > b), 0.0))
    if a > b:
        kv = _nullspace(images, b)
        okk = bool(kv) and all(x == 0 for x in _matvec(M, kv[0])) and any(kv[0])
        checks.append(("a > b: f has a nonzero kernel vector", float(not okk), 0.0))
    elif a < b:
        MT = [[M[i][j] for i in range(b)] for j in range(a)]
        yv = _nullspace([[row[i] for row in MT] for i in range(b)], a)
        oky = bool(yv) and any(yv[0]) and all(x == 0 for x in _matvec(MT, yv[0]))
        checks.append(("a < b: some y ≠ 0 with yᵀM = 0 (not in the image)", float(not oky), 0.0))
    return combine(checks)


@st.composite
def push_inputs(draw):
    k, l_ = draw(st.integers(0, 6)), draw(st.integers(1, 6))
    e = [draw(st.integers(0, l_ - 1)) for _ in range(k)]
    c = [draw(st.integers(-5, 5)) for _ in range(k)]
    f = [draw(st.integers(-5, 5)) for _ in range(l_)]
    S = draw(st.integers(1, 4))
    Q = _mat(draw, S, l_)
    return k, l_, e, c, f, Q


@prop(theorems=["PLGA.fsum_push_mul", "PLGA.push_apply_of_injective", "PLGA.lincomb_cols"],
      paper="infrastructure (reindexed combinations; columns of a matrix)",
      strategy=push_inputs, backends=("float64",))
def push_reindexing(ex, backend, dps):
    """Exact on ℚ: Σ_t (push e c)_t f_t = Σ_s c_s f_{e s} for any e : Fin k → Fin l (repeats
    included); (push e c)(e s) = c_s when e is injective; Σ_t c_t Q_{·,σ t} = Q (push σ c) with
    the matrix–vector product written as rows·vector. Would fail for a ``push`` that kept only
    the first preimage (repeated indices) or a column combination read from rows."""
    k, l_, e, c, f, Q = ex
    p = push(e, c, l_)
    lhs = sum((p[t] * f[t] for t in range(l_)), Fraction(0))
    rhs = sum((Fraction(c[s]) * f[e[s]] for s in range(k)), Fraction(0))
    checks = [("Σ_t push(e,c)_t f_t = Σ_s c_s f_(e s)", float(lhs != rhs), 0.0)]
    if len(set(e)) == len(e):
        checks.append(("injective e: push(e,c)(e s) = c_s",
                       float(any(p[e[s]] != c[s] for s in range(k))), 0.0))
    lc = lincomb(cols(Q, e), c) if k else [Fraction(0)] * len(Q)
    checks.append(("Σ c_t Q_(·,σ t) = Q · push σ c", float(lc != _matvec(Q, p)), 0.0))
    return combine(checks)


@st.composite
def rank_inputs(draw):
    S, d = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    return _low_rank(draw, S, d), S, d


def col_rank_bruteforce(Q, d, S):
    """Lean ``colRank`` by its definition: the largest k ≤ d such that some σ : Fin k → Fin d
    has independent columns (injective σ suffice: a repeated column is dependent), with the
    maximizing σ."""
    for k in range(d, -1, -1):
        for sigma in itertools.permutations(range(d), k):
            if lin_indep(cols(Q, sigma), S):
                return k, sigma
    return 0, ()


@prop(theorems=["PLGA.exists_linIndep_cols_colRank", "PLGA.le_colRank_of_linIndep",
                "PLGA.colRank_le_cols", "PLGA.colRank_le_rows", "PLGA.colRank_le_min",
                "PLGA.LinIndep.le_cols"],
      paper="infrastructure (column rank) for Prop 3.6",
      strategy=rank_inputs, backends=("float64",))
def column_rank_is_max_independent_columns(ex, backend, dps):
    """Exact on ℚ, for random integer Q of drawn rank: the Lean ``colRank`` evaluated by its
    definition (search over column families, independence by sympy's null space) equals
    python-flint's exact rank; it is attained by an independent family, no larger family is
    independent, a family with a repeated column is dependent (``LinIndep.le_cols``), and
    colRank ≤ min(S, d). Would fail for a rank counted from the rows alone, or an independence
    test that accepted a repeated column."""
    Q, S, d = ex
    r, sigma = col_rank_bruteforce(Q, d, S)
    checks = [("colRank (definition) = exact rank (flint)", abs(r - flint_rank(Q)), 0.0),
              ("the maximizing family is independent",
               float(not lin_indep(cols(Q, sigma), S)), 0.0),
              ("colRank ≤ min(S, d)", float(r > min(S, d)), 0.0)]
    bigger = any(lin_indep(cols(Q, s), S) for s in itertools.permutations(range(d), r + 1)) \
        if r < d else False
    checks.append(("no independent family of colRank + 1 columns", float(bigger), 0.0))
    if d >= 1:
        checks.append(("a repeated column is dependent",
                       float(lin_indep(cols(Q, [0, 0]), S)), 0.0))
    return combine(checks)
