"""Cross-check properties of ``Formal/Structure/Acyclic.lean``: ``acyclic_iff_trace_nilpotent``,
``acyclic_iff_dag_loss_zero`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`. The graph side (cycle
detection, a topological order, walk sets) is pure Python on the support ``{(i, j) : N i j > 0}``
and shares no code with the matrix side (powers in the backend, ``pyref.losses.expm`` /
``dag_terms``)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import combine, prop
from .._arith import bound
from .dag import _expm_K

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Dag.countFin_le":
        "Nat counting fact (at most n indices of Fin n satisfy a predicate); no computation",
    "PLGA.Dag.countFin_mono":
        "Nat counting fact (monotone under implication); no computation",
    "PLGA.Dag.countFin_lt":
        "Nat counting fact (a strict superset has a larger count); its use predCount_lt_of_pos is "
        "checked by acyclic_iff_trace_nilpotent",
    "PLGA.Dag.countFin_lt_card":
        "Nat counting fact; its use predCount_lt_card is checked by acyclic_iff_trace_nilpotent",
    "PLGA.Dag.eq_zero_of_nonneg_of_not_pos":
        "order helper (0 ≤ x, ¬ 0 < x ⇒ x = 0) used inside proofs",
    "PLGA.Dag.matPow_add":
        "algebraic identity N^{a+b} = N^a N^b (associativity of the matrix product) used inside "
        "the nilpotency proofs; its consequences matPow_mul_diag_pos and matPow_eq_zero_of_le "
        "are checked",
    "PLGA.Dag.hasTopoOrder_of_strictUpper":
        "the rank Fin.val is a topological order of a strictly upper-triangular support (one "
        "comparison of indices); dag_acyclic_zero checks the resulting zero loss",
}


# ============================================ 1. NOTEARS for nonnegative matrices
WEIGHT = st.floats(0.3, 1.0)


@st.composite
def acyclic_case(draw):
    """A nonnegative M (d ≤ 6) whose support is a DAG in a random vertex order, plus 0–2 random
    extra edges (back edges or self-loops: often a cycle). Weights in [0.3, 1], so N = M ⊙ M has
    positive entries ≥ 0.09 and no power up to 3d underflows."""
    d = draw(st.integers(1, 6))
    perm = draw(st.permutations(range(d)))
    dens = draw(st.sampled_from([0.3, 0.6, 1.0]))
    M = np.zeros((d, d))
    for a in range(d):
        for b in range(a + 1, d):
            if draw(st.floats(0, 1)) < dens:
                M[perm[a], perm[b]] = draw(WEIGHT)
    for _ in range(draw(st.sampled_from([0, 0, 1, 2]))):
        i, j = draw(st.integers(0, d - 1)), draw(st.integers(0, d - 1))
        M[i, j] = draw(WEIGHT)
    return M


def _graph(M):
    """Pure-Python DFS on the support of M: (cycle, order). ``cycle`` is the vertex list of one
    closed walk of positive edges (None when acyclic); ``order`` a topological order (reverse
    post-order; meaningful when acyclic)."""
    d = M.shape[0]
    succ = [[j for j in range(d) if M[i, j] != 0] for i in range(d)]
    color, stack, post = [0] * d, [], []

    def visit(u):
        color[u] = 1
        stack.append(u)
        for v in succ[u]:
            if color[v] == 1:
                return stack[stack.index(v):]
            if color[v] == 0:
                c = visit(v)
                if c is not None:
                    return c
        stack.pop()
        color[u] = 2
        post.append(u)
        return None

    for s in range(d):
        if color[s] == 0:
            c = visit(s)
            if c is not None:
                return c, None
    return None, post[::-1]


def _walk_sets(M, kmax):
    """W[k][i] = the set of j reachable from i by a walk of exactly k positive edges (k ≤ kmax)."""
    d = M.shape[0]
    W = [[{i} for i in range(d)]]
    for _ in range(kmax):
        W.append([{m for u in W[-1][i] for m in range(d) if M[u, m] != 0} for i in range(d)])
    return W


def _powers(b, N, kmax):
    """N^0, …, N^kmax in the backend (float64 copies for comparisons)."""
    with b.context():
        P, out = b.eye(N.shape[0]), []
        for k in range(kmax + 1):
            if k:
                P = P @ N
            out.append(to_float64(P))
    return out


def _walk_parts(P, W, d):
    """(N^k)_{ij} > 0 ⇔ a positive walk of length k from i to j (k ≤ 3d), and the repeated
    closed walk (matPow_mul_diag_pos)."""
    bad = sum(int((P[k][i, j] > 0) != (j in W[k][i]))
              for k in range(len(P)) for i in range(d) for j in range(d))
    rep = sum(int(not P[k * (m + 1)][i, i] > 0) for k in range(1, d + 1) for i in range(d)
              if P[k][i, i] > 0 for m in (1, 2))
    return [("matPow_entry_pos_of_isPosWalk / exists_isPosWalk_of_matPow_entry_pos", bad, 0.0),
            ("matPow_mul_diag_pos", rep, 0.0)]


def _acyclic_parts(P, W, order, d):
    """Acyclic case: the DFS order is a rank (HasTopoOrder); (N^k)_{ij} = 0 when r j < r i + k;
    the predecessor count of the Lean proof is a rank below d; N^k = 0 for k ≥ d."""
    r = {v: t for t, v in enumerate(order)}
    edges = [(i, j) for i in range(d) for j in W[1][i]]
    rank_bad = sum(int(not r[i] < r[j]) for i, j in edges)
    z = sum(int(P[k][i, j] != 0) for k in range(len(P)) for i in range(d) for j in range(d)
            if r[j] < r[i] + k)
    reach = [set().union(*(W[k][i] for k in range(1, d + 1))) for i in range(d)]
    pc = [sum(int(j in reach[i]) for i in range(d)) for j in range(d)]
    pc_bad = sum(int(not pc[i] < pc[j]) for i, j in edges) + sum(int(not c < d) for c in pc)
    nil = sum(int(np.any(P[k] != 0)) for k in range(d, len(P)))
    return [("HasTopoOrder witness (DFS order)", rank_bad, 0.0),
            ("matPow_entry_eq_zero_of_rank", z, 0.0),
            ("predCount_lt_of_pos / predCount_lt_card", pc_bad, 0.0),
            ("matPow_card_eq_zero_of_rank / matPow_eq_zero_of_le", nil, 0.0)]


@prop(theorems=["PLGA.Dag.matPow_entry_eq_zero_of_rank",
                "PLGA.Dag.matPow_diag_eq_zero_of_hasTopoOrder",
                "PLGA.Dag.trace_matPow_eq_zero_of_hasTopoOrder",
                "PLGA.Dag.matPow_diag_eq_zero_of_trace", "PLGA.Dag.matPow_succ_entry_pos",
                "PLGA.Dag.predCount_lt_of_pos", "PLGA.Dag.predCount_lt_card",
                "PLGA.Dag.hasTopoOrder_of_diag", "PLGA.Dag.hasTopoOrder_iff_trace_matPow_eq_zero",
                "PLGA.Dag.matPow_eq_zero_of_le", "PLGA.Dag.matPow_card_eq_zero_of_rank",
                "PLGA.Dag.matPow_mul_diag_pos", "PLGA.Dag.matPow_diag_eq_zero_of_nilpotent",
                "PLGA.Dag.hasTopoOrder_iff_matPow_card_eq_zero",
                "PLGA.Dag.matPow_entry_pos_of_isPosWalk",
                "PLGA.Dag.exists_isPosWalk_of_matPow_entry_pos",
                "PLGA.Dag.not_hasPosCycle_of_hasTopoOrder",
                "PLGA.Dag.hasTopoOrder_iff_not_hasPosCycle",
                "PLGA.Dag.not_hasTopoOrder_of_diag_pos"],
      paper="NOTEARS for nonnegative N (trace and nilpotent forms; Thm 4.4 walk side)",
      strategy=acyclic_case)
def acyclic_iff_trace_nilpotent(M, backend, dps):
    """N = M ⊙ M (nonnegative, random DAG support in a random order, sometimes with extra back
    edges or self-loops), powers N^k (k ≤ 3d) in the backend, against a pure-Python DFS on the
    support:

    * (N^k)_{ij} > 0 iff j is reachable from i by a walk of exactly k positive edges (walk sets by
      iterated successor sets), for every k ≤ 3d; (N^k)_{ii} > 0 ⇒ (N^{k(m+1)})_{ii} > 0;
    * DFS finds no cycle ⇔ tr N^k = 0 for k = 1 … 3d ⇔ every diagonal entry of those powers is 0
      ⇔ N^d = 0; a positive diagonal entry of N ⇒ DFS finds a cycle;
    * acyclic case: the DFS order r is a rank (edges increase it), (N^k)_{ij} = 0 whenever
      r j < r i + k, N^k = 0 for d ≤ k ≤ 3d, and the predecessor count of the Lean proof
      (#{i : i reaches j}) increases along edges and stays below d.

    Bound 0 (exact on both backends): the entries are nonnegative, so no cancellation occurs; a
    structural zero of N^k is a sum of products each with an exact zero factor, hence exactly 0,
    and a structurally positive entry is ≥ 0.09^k ≥ 0.09^18 ≈ 1.5e-19, far from underflow. The
    comparisons are of signs only. Would fail if the walk sets or the DFS were wrong, or for a
    definition of acyclicity that ignored self-loops."""
    d = M.shape[0]
    b = pyref.get_backend(backend, dps)
    with b.context():
        Mb = b.asarray(M)
        N = Mb * Mb
    kmax = 3 * d
    P = _powers(b, N, kmax)
    W = _walk_sets(M, kmax)
    cycle, order = _graph(M)
    acyc = cycle is None
    tr_zero = all(np.trace(P[k]) == 0 for k in range(1, kmax + 1))
    diag_zero = all(np.all(np.diag(P[k]) == 0) for k in range(1, kmax + 1))
    nil = bool(np.all(P[d] == 0))
    self_loop = any(M[i, i] != 0 for i in range(d))
    parts = _walk_parts(P, W, d)
    parts += [("hasTopoOrder_iff_trace_matPow_eq_zero", int(acyc != tr_zero), 0.0),
              ("matPow_diag_eq_zero_of_trace", int(tr_zero != diag_zero), 0.0),
              ("hasTopoOrder_iff_matPow_card_eq_zero", int(acyc != nil), 0.0),
              ("not_hasTopoOrder_of_diag_pos", int(self_loop and acyc), 0.0)]
    if acyc:
        parts += _acyclic_parts(P, W, order, d)
    return combine(parts)


def _cycle_weight(M, cycle):
    """(L, w): length and N-weight Π N_{c_t c_{t+1}} (N = M ⊙ M) of the closed walk ``cycle``, in
    float64 (≤ 12 roundings of factors in [0.09, 1]: relative error ≤ γ_12 < 1e-14, absorbed by
    the factor 1 − 1e-9 of the lower bound below)."""
    L = len(cycle)
    w = 1.0
    for t in range(L):
        w *= M[cycle[t], cycle[(t + 1) % L]] ** 2
    return L, w


@prop(theorems=["PLGA.Dag.expTracePartial_eq_card_of_hasTopoOrder",
                "PLGA.Dag.trace_matPow_eq_zero_of_expTracePartial_le",
                "PLGA.Dag.hasTopoOrder_of_trace_exp_le_card",
                "PLGA.Dag.trace_exp_eq_card_iff_hasTopoOrder",
                "PLGA.Dag.dagLoss_eq_zero_iff_hasTopoOrder"],
      paper="NOTEARS (Zheng et al. Thm 1, nonnegative case): tr e^N = d and DAG loss 0 iff acyclic",
      strategy=acyclic_case)
def acyclic_iff_dag_loss_zero(M, backend, dps):
    """N = M ⊙ M as in ``acyclic_iff_trace_nilpotent``; cycles found by the pure-Python DFS.

    * acyclic: every partial sum S_K = Σ_{k≤K} tr N^k/k! (K ≤ 18) equals d, tr
      ``pyref.losses.expm``(N) = d and ``pyref.losses.dag_terms``(M) = 0, all exactly (bound 0: the
      structural-zero argument of ``dag_acyclic_zero`` holds in any vertex order, since it only
      uses that every product along a closed walk has a zero factor);
    * cyclic, with a closed walk of length L and N-weight w found by the DFS: S_K − d ≥ w/L! for
      K ≥ L, tr expm(N) − d ≥ w/L! and dag_terms(M) ≥ log(1 + w/(L!·d)) (the closed walk alone
      contributes w to tr N^L), each up to the rounding bound γ_K·tr expm(N) with the
      rounding-chain length K of ``_expm_K`` (float64) or 1e-40·tr (mp), plus 2u for the log.

    The lower bound w/L! ≥ 0.09⁶/720 ≈ 7e-10 is far above the rounding (≤ 1e-12 here), so a
    cyclic N with tr expm = d, or an acyclic one with a nonzero loss, fails."""
    d = M.shape[0]
    b = pyref.get_backend(backend, dps)
    with b.context():
        Mb = b.asarray(M)
        N = Mb * Mb
        P, S, partial = b.eye(d), b.const(0), []
        for k in range(19):
            if k:
                P = P @ N
            S = S + np.trace(P) / b.const(math.factorial(k))
            partial.append(float(S))
    E = pyref.losses.expm(N, backend=backend, dps=dps)
    with b.context():
        trE = float(np.trace(E))
    loss = float(pyref.losses.dag_terms(Mb, backend=backend, dps=dps))
    cycle, _ = _graph(M)
    if cycle is None:
        dev = max(abs(s - d) for s in partial) + abs(trE - d) + abs(loss)
        return combine([("expTracePartial_eq_card_of_hasTopoOrder / trace_exp_eq_card_iff / "
                         "dagLoss_eq_zero_iff (acyclic ⇒ d, 0)", dev, 0.0)])
    L, w = _cycle_weight(M, cycle)
    lb = w / math.factorial(L) * (1 - 1e-9)
    tol = bound(backend, _expm_K(to_float64(N)), trE)
    short = max(max(0.0, lb - (s - d)) for s in partial[L:])
    return combine([("trace_matPow_eq_zero_of_expTracePartial_le (S_K > d, K ≥ L)", short, tol),
                    ("hasTopoOrder_of_trace_exp_le_card (tr expm > d)", max(0.0, lb - (trE - d)),
                     tol),
                    ("dagLoss_eq_zero_iff_hasTopoOrder (loss > 0)",
                     max(0.0, math.log1p(lb / d) - loss), tol / d + 4 * 2.0 ** -53)])
