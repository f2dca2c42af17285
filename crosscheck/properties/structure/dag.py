"""Cross-check properties of ``Formal/Structure/Dag.lean``: ``dag_positivity_obstruction``,
``dag_acyclic_zero``, ``dag_terms_match_spec`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, Outcome, combine, prop
from ...spec_eval import analysis as sev_a
from ...spec_eval import losses as sev_l
from ...spec_eval._scalar import const, mat
from ...strategies import UNIT, matrix
from .._arith import U64, bound, gamma, maxabs
from ._shared import _mp

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Dag.fact_pos":
        "Nat fact k! > 0; no computation",
    "PLGA.Dag.natCast_fact_pos":
        "Nat-cast fact (k! : α) > 0; no computation",
    "PLGA.Dag.expTracePartial_zero":
        "definitional: S_0 = tr(N^0)/0! = tr 1 = d (the base value used by the checked partial-sum "
        "bounds)",
    "PLGA.Dag.expTracePartial_succ":
        "definitional: S_{K+1} = S_K + tr(N^{K+1})/(K+1)! is how the checked partial sums are "
        "computed",
    "PLGA.Dag.expTracePartial_one":
        "definitional: S_1 = d + tr N; the checked bounds compare pyref's tr expm(N) with exactly "
        "this value",
    "PLGA.Dag.ExpLogMono.log_one":
        "scalar fact log 1 = 0 of the hypothesis exp/log pair; used inside proofs",
    "PLGA.Dag.div_nonneg_of_pos":
        "order helper (x ≥ 0, y > 0 ⇒ x/y ≥ 0) used inside the partial-sum monotonicity proof",
    "PLGA.Dag.le_of_convergesTo_of_monotone":
        "real-analysis lemma (a monotone sequence is below its limit); its instance S_K ≤ tr "
        "expm(N) is checked on pyref's expm by dag_positivity_obstruction",
    "PLGA.Dag.mul_self_le_mul_self_of_le":
        "order helper (0 ≤ a ≤ b ⇒ a² ≤ b²) inside trace_exp_hadamard_self_ge, which is checked",
    "PLGA.Dag.ExpLogMono.log_le_log":
        "monotonicity of the hypothesis log, used inside dagLoss_ge_log_one_add_sq, which is "
        "checked",
    "PLGA.Dag.ExpLogMono.log_lt_log":
        "strict monotonicity of the hypothesis log, used inside log_one_add_sq_pos, which is "
        "checked",
    "PLGA.Dag.div_card_ge":
        "order helper (T ≥ d(1 + c) ⇒ T/d ≥ 1 + c) inside the DAG-loss bound, which is checked",
    "PLGA.Dag.eq_of_convergesTo_const":
        "real-analysis lemma (the limit of a constant sequence is the constant); its consequence "
        "dagLoss_eq_zero_of_strictUpper is checked",
}


# ============================================== 6. the DAG regularizer (Thm 4.4, Rem 4.5)
DAG_MAG = st.sampled_from([0.05, 0.1, 0.3, 0.5])


@st.composite
def dag_case(draw):
    dk = draw(st.integers(1, 6))
    H = draw(st.integers(1, 2))

    def mats(s):
        return np.stack([draw(matrix(dk, dk, magnitude=DAG_MAG, structure=s)) for _ in range(H)])

    A, W, bb = mats(True), mats(False), mats(False)
    eps = draw(st.sampled_from([1e-9, 1e-3, 0.1]))
    coef = draw(st.sampled_from([1.0, 0.5, 0.01]))
    return A, W, bb, eps, coef


def _expm_K(N) -> int:
    """Rounding-chain length of pyref's float64 expm on a nonnegative N: s squarings of an 18-step
    Horner evaluation, each step one matmul (γ_d), a division and an addition; componentwise
    relative errors of nonnegative recursions add, doubling per squaring:
    K = 2^s·(18(d + 2) + d) + 1 with pyref's s = ⌈log₂(‖N‖_∞/½)⌉."""
    d = N.shape[-1]
    norm = float(np.max(np.sum(np.abs(N), axis=-1))) if N.size else 0.0
    s = max(0, int(math.ceil(math.log2(norm / 0.5)))) if norm > 0.5 else 0
    return (2 ** s) * (18 * (d + 2) + d) + 1


def _dag_power_parts(b, backend, Nh, d):
    """N^k (k ≤ 18) and its sub-checks: N^k ≥ 0 entrywise, tr N^k ≥ 0 (k ≤ 6), ``matPow_succ'``
    (k = 1, 3, 5). Call inside ``b.context()``."""
    P = b.eye(d)
    powers = [P]
    for k in range(1, 19):
        P = P @ Nh
        powers.append(P)
    neg = sum(float(np.sum(to_float64(powers[k]) < 0)) for k in range(7))
    neg += sum(float(to_float64(np.trace(powers[k])) < 0) for k in range(7))
    parts = [("matPow_entry_nonneg / trace_matPow_nonneg", neg, 0.0)]
    for k in (1, 3, 5):
        alt = Nh @ powers[k]
        top = float(np.max(to_float64(powers[k + 1])))
        parts.append(("matPow_succ'", maxabs(alt - powers[k + 1]),
                      bound(backend, (k + 1) * (d + 1), top)))
    return powers, parts


def _dag_partial_sum_parts(b, powers):
    """The partial sums S_K = Σ_{k≤K} tr(N^k)/k! (K ≤ 18) and their monotonicity and lower bound
    S_K ≥ S_1 = d + tr N (exact). Call inside ``b.context()``."""
    Ssum, S_list = b.const(0), []
    for k in range(19):
        Ssum = Ssum + np.trace(powers[k]) / b.const(math.factorial(k))
        S_list.append(Ssum)
    S1 = S_list[1]
    mono = sum(float(S_list[k + 1] < S_list[k]) for k in range(18))
    ge = sum(float(S_list[k] < S1) for k in range(1, 19))
    return S_list, [("expTracePartial_mono / _ge_card_add_trace", mono + ge, 0.0)]


def _dag_trace_parts(b, backend, Nh, Mh, T, S_list, K, d):
    """The lower bounds on T = tr expm(N) of one head, S_K ≤ T (hT) and ``dagLoss_nonneg``;
    returns (ε_h = min M_h, parts). Call inside ``b.context()``."""
    Ks = 18 * (d + 3) + d
    trN = np.trace(Nh)
    dpt = b.const(d) + trN
    parts = [("trace_exp_ge_card_add_trace", max(0.0, float(dpt - T)),
              bound(backend, K + d + 3, float(dpt))),
             ("trace_exp_ge_card", max(0.0, float(b.const(d) - T)), bound(backend, K + d + 3, d))]
    cmin = np.min(np.diagonal(Nh))
    ddc = b.const(d) + b.const(d) * cmin
    parts.append(("trace_exp_ge_of_diag_bound", max(0.0, float(ddc - T)),
                  bound(backend, K + d + 3, float(ddc))))
    parts.append(("trace_ge_of_diag_bound", max(0.0, float(b.const(d) * cmin - trN)),
                  bound(backend, d + 1, float(trN))))
    e_h = np.min(Mh)
    dee = b.const(d) * (1 + e_h * e_h)
    parts.append(("trace_exp_hadamard_self_ge", max(0.0, float(dee - T)),
                  bound(backend, K + d + 3, float(dee))))
    for k in range(19):
        parts.append((f"S_{k} ≤ tr expm(N) (hT)", max(0.0, float(S_list[k] - T)),
                      bound(backend, K + Ks, float(S_list[k]))))
    lg = b.log(T / b.const(d))
    parts.append(("dagLoss_nonneg", max(0.0, -float(lg)), bound(backend, K + 3, 1.0)))
    return e_h, parts


def _dag_term_parts(backend, e_h, term, K):
    """``dag_terms`` of one head ≥ log(1 + ε_h²), and > 0 when that bound is resolved."""
    with mpmath.workdps(80):
        e80, t80 = _mp(np.array([e_h, term], dtype=object))
        low = mpmath.log(1 + e80 * e80)
        short = float(max(mpmath.mpf(0), low - t80))               # exact difference
    tv = float(term)
    bnd = bound(backend, K + 3, 1.0 + abs(tv))
    parts = [("dagLoss_ge_log_one_add_sq", short, bnd)]
    if float(low) > 2 * bnd:
        parts.append(("dagLoss_pos / log_one_add_sq_pos", 0.0 if term > 0 else 1.0, 0.0))
    return parts


def _dag_loss_parts(b, backend, dps, M, terms, eps_min, coef, Kmax):
    """``dag_loss`` = the mean of ``dag_terms``; ``dag_regularizer`` = c_A·dag_loss ≥
    c_A·log(1 + ε_min²), and > 0 when that bound is resolved (Kmax: the largest expm chain)."""
    H = len(terms)
    parts = []
    with b.context():
        DL = pyref.losses.dag_loss(M, backend=backend, dps=dps)
        tot = b.const(0)
        for v in terms:
            tot = tot + v
        mean = tot / H
        tmax = float(max(abs(float(v)) for v in terms))
        parts.append(("dag_loss = mean of dag_terms", abs(float(DL - mean)),
                      bound(backend, H + 2, tmax)))
        reg = pyref.losses.dag_regularizer([{"A_LM": M[None], "A_P": None, "G_LM": None}],
                                           coeffs=(coef, 0.0, 0.0), backend=backend, dps=dps)
        cb = b.const(coef)
        parts.append(("dag_regularizer = c_A·DL(A_LM)", abs(float(reg - cb * DL)),
                      bound(backend, 4, coef * tmax)))
        emin = min(eps_min, key=float)
    with mpmath.workdps(80):
        # c_A as pyref reads it (mp: decimal)
        e80, r80, c80 = _mp(np.array([emin, reg, cb], dtype=object))
        low = c80 * mpmath.log(1 + e80 * e80)
        short = float(max(mpmath.mpf(0), low - r80))
        low = float(low)
    bnd = bound(backend, Kmax + H + 8, coef * (1.0 + tmax))
    parts.append(("dag_regularizer ≥ c_A·log(1 + ε²)", short, bnd))
    if low > 2 * bnd:
        parts.append(("dag_regularizer > 0", 0.0 if reg > 0 else 1.0, 0.0))
    return parts


@prop(theorems=["PLGA.Dag.matPow_entry_nonneg", "PLGA.Dag.trace_matPow_nonneg",
                "PLGA.Dag.expTracePartial_le_succ", "PLGA.Dag.expTracePartial_mono",
                "PLGA.Dag.expTracePartial_ge_card_add_trace",
                "PLGA.Dag.trace_exp_ge_card_add_trace",
                "PLGA.Dag.trace_exp_ge_card_add_trace_of_convergesTo", "PLGA.Dag.trace_exp_ge_card",
                "PLGA.Dag.trace_ge_of_diag_bound", "PLGA.Dag.trace_exp_ge_of_diag_bound",
                "PLGA.Dag.trace_exp_hadamard_self_ge", "PLGA.Dag.dagLoss_ge_log_one_add_sq",
                "PLGA.Dag.log_one_add_sq_pos", "PLGA.Dag.dagLoss_pos", "PLGA.Dag.dagLoss_nonneg",
                "PLGA.Mat.pow_succ'"],
      paper="Thm 4.4 (walk side) / Rem 4.5 (the DAG loss of PLGA's positive tensors is bounded "
            "away from 0)",
      strategy=dag_case)
def dag_positivity_obstruction(ex, backend, dps):
    """M = pyref's A_LM (``pyref.plga.metric_tensor``, entries ≥ ε = min M > 0), N = M ⊙ M (the
    tensor pyref's ``dag_terms`` exponentiates), per head:

    * ``matPow_entry_nonneg`` / ``trace_matPow_nonneg``: N^k ≥ 0 entrywise, tr N^k ≥ 0 (k ≤ 6;
      exact: sums of products of nonnegatives round to nonnegatives); ``matPow_succ'``: N^k N = N
      N^k;
    * partial sums S_K = Σ_{k≤K} tr(N^k)/k! (K ≤ 18): nondecreasing (exact: adding a nonnegative
      term never decreases a rounded sum), S_K ≥ d + tr N for K ≥ 1 (exact, same reason);
    * on T = tr ``pyref.losses.expm``(N) (the limit of the S_K): S_K ≤ T (the hypothesis hT, K ≤
      18), T ≥ d + tr N ≥ d, T ≥ d + d·c (c = min_i N_ii), T ≥ d(1 + ε²)
      (``trace_exp_hadamard_self_ge``);
    * on ``pyref.losses.dag_terms``(M) = |log(T/d)|: ≥ log(1 + ε²) and > 0 (certified when log(1 +
      ε²) exceeds the bound; always at 50 digits); log(T/d) ≥ 0 without the |·|
      (``dagLoss_nonneg``); ``dag_loss`` = the mean over heads, ``dag_regularizer`` with (c_A, 0,
      0) = c_A·dag_loss ≥ c_A·log(1 + ε_min²) > 0.

    float64 bounds. pyref's expm (scaling and squaring of a degree-18 Taylor polynomial P) on a
    nonnegative N only adds and multiplies nonnegatives, so its result is within the componentwise
    relative error γ_K (K from :func:`_expm_K`) of P(X)^{2^s}, X = N/2^s; and P(X)^{2^s} ≥ (I +
    X)^{2^s} ≥ I + N, while its coefficients of N^n (n ≤ 18) are exactly 1/n!, so tr P(X)^{2^s} ≥
    S_18(N) ≥ S_K, and P(X)^{2^s} ≤ e^N. Hence violations of the lower bounds are ≤ (γ_K +
    γ_{d+3})·(bound value) → ``fp_bound(K + d + 3, value)``, of S_K ≤ T ≤ (γ_K + γ_{Ks})·S_K (Ks =
    18(d + 3) + d, the partial sums' own rounding), and the DAG value is within γ_K + 3u(1 + |log|)
    of |log(tr e^N/d)| → ``fp_bound(K + 3, 1 + value)``. mp: mpmath.expm works 10 + 2j bits above
    50 digits (j ≥ log₂‖N‖ + 6) with j squarings; its relative error is far below the 1e-40·scale
    harness bound. The powers: ``fp_bound(k(d+1), max N^{k+1})`` (nonnegative chains)."""
    A, W, bb, eps, coef = ex
    H, d, _ = A.shape
    b = pyref.get_backend(backend, dps)
    M = pyref.plga.metric_tensor(A, W, bb, eps=eps, backend=backend, dps=dps)
    with b.context():
        N = M * M
        Nf = to_float64(N)
    normN = float(np.max(np.sum(Nf, axis=-1)))
    met = normN <= 600.0                                # e^{‖N‖} finite in float64
    if not met:
        return Outcome(0.0, 0.0, met=False)
    E = pyref.losses.expm(N, backend=backend, dps=dps)
    terms = pyref.losses.dag_terms(M, backend=backend, dps=dps)
    parts = []
    eps_min = []
    for h in range(H):
        K = _expm_K(Nf[h])
        with b.context():
            powers, power_parts = _dag_power_parts(b, backend, N[h], d)
            S_list, sum_parts = _dag_partial_sum_parts(b, powers)
            T = np.trace(E[h])
            e_h, trace_parts = _dag_trace_parts(b, backend, N[h], M[h], T, S_list, K, d)
        parts += power_parts + sum_parts + trace_parts
        eps_min.append(e_h)
        parts += _dag_term_parts(backend, e_h, terms[h], K)
    Kmax = max(_expm_K(Nf[h]) for h in range(H))
    parts += _dag_loss_parts(b, backend, dps, M, terms, eps_min, coef, Kmax)
    return combine(parts, met=met)


@st.composite
def dag_upper_case(draw):
    dk = draw(st.integers(2, 6))

    def mats(s):
        return draw(matrix(dk, dk, magnitude=DAG_MAG, structure=s))

    return mats(True), mats(False), mats(False), draw(st.sampled_from([1e-9, 1e-3, 0.1]))


@prop(theorems=["PLGA.Dag.matPow_entry_eq_zero_of_strictUpper",
                "PLGA.Dag.trace_matPow_eq_zero_of_strictUpper",
                "PLGA.Dag.expTracePartial_eq_card_of_strictUpper",
                "PLGA.Dag.dagLoss_eq_zero_of_strictUpper"],
      paper="Rem 4.5 contrast (NOTEARS: an acyclic, topologically ordered graph has tr e^N = d and "
            "DAG loss 0)",
      strategy=dag_upper_case)
def dag_acyclic_zero(ex, backend, dps):
    """M = the strictly upper-triangular part of pyref's A_LM (``metric_tensor``), N = M ⊙ M
    (strictly upper, nonnegative): (N^k)_{ij} = 0 whenever j < i + k (k ≤ d + 1); tr N^k = 0 (k ≥
    1); every partial sum S_K = d (K ≤ 18); tr ``pyref.losses.expm``(N) = d and
    ``pyref.losses.dag_terms``(M) = 0.

    Bound 0 on both backends: every entry claimed zero is a sum of products each having an exact
    zero factor (no infinities occur), hence exactly 0 (also with FMA); pyref's float64 expm keeps
    an exactly unit diagonal (Horner: (X E)_ii sums products X_il E_li with X_il = 0 for l ≤ i and
    E_li = 0 for l > i, and squaring an upper-triangular unit-diagonal matrix gives diagonal
    1·1 + exact zeros); mpmath's Taylor/squaring evaluation has the same structure; then
    log(d/d) = log 1 = 0 exactly."""
    A, W, bb, eps = ex
    d = A.shape[0]
    b = pyref.get_backend(backend, dps)
    ALM = pyref.plga.metric_tensor(A, W, bb, eps=eps, backend=backend, dps=dps)
    with b.context():
        M = ALM.copy()
        for i in range(d):
            for j in range(i + 1):
                M[i, j] = b.const(0)
        N = M * M
        dev = 0.0
        P = b.eye(d)
        S = b.const(0)
        for k in range(19):
            if k > 0:
                P = P @ N
            if k <= d + 1:
                mask = np.array([[j < i + k for j in range(d)] for i in range(d)])
                dev += maxabs(np.where(mask, P, b.const(0)))
            if k >= 1:
                dev += abs(float(np.trace(P)))
            S = S + np.trace(P) / b.const(math.factorial(k))
            dev += abs(float(S - d))
    E = pyref.losses.expm(N, backend=backend, dps=dps)
    with b.context():
        dev += abs(float(np.trace(E) - d))
    t = pyref.losses.dag_terms(M, backend=backend, dps=dps)
    dev += abs(float(t))
    return Outcome(dev, 0.0)


# ============================ 7. expm, the DAG term, DL and the regularizer as equalities
#: working precision of the spec evaluator (30 digits above pyref's 50)
REF_DPS = 80

#: ‖e^X − P₁₈(X)‖_∞ ≤ Σ_{k≥19} ‖X‖^k/k! for ‖X‖_∞ ≤ ½ (pyref's Taylor degree and scaling target)
RHO0 = 0.5 ** 19 / math.factorial(19) * 1.03

#: ‖N‖_∞ targets: ≤ ½ (no scaling, s = 0) and above (s = 1 … 6 squarings)
NORMS = st.sampled_from([0.05, 0.3, 0.5, 0.9, 2.0, 6.0, 20.0])


def _squarings(N) -> int:
    """pyref's s for one matrix: ⌈log₂(‖N‖_∞/½)⌉ when ‖N‖_∞ > ½, else 0."""
    nrm = float(np.max(np.sum(np.abs(N), axis=-1))) if N.size else 0.0
    return max(0, int(math.ceil(math.log2(nrm / 0.5)))) if nrm > 0.5 else 0


def _scaled(draw, shape, target, d):
    """Random M (entries U(−1, 1)) scaled so that ‖M ⊙ M‖_∞ ≈ target."""
    vals = draw(st.lists(UNIT, min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    M = np.array(vals).reshape(shape)
    return M * math.sqrt(target / max(d / 3, 1e-3))


@st.composite
def expm_dag_case(draw):
    """(N for expm [batch…, d, d]: nonneg M⊙M or signed (‖N‖ ≤ 6); M for the DAG terms
    [L, B, H, d, d]; the deductive list of L layers {A_LM, A_P, G_LM}; coefficients (c_A, c_P,
    c_G) each 0 or > 0)."""
    d = draw(st.integers(1, 4))
    batch = draw(st.sampled_from([(), (2,), (0,)]))
    kind = draw(st.sampled_from(["nonneg", "signed"]))
    target = draw(NORMS)
    if kind == "signed":
        target = min(target, 6.0)
        vals = draw(st.lists(UNIT, min_size=int(np.prod(batch + (d, d))),
                             max_size=int(np.prod(batch + (d, d)))))
        N = np.array(vals).reshape(batch + (d, d)) * target / d
    else:
        M0 = _scaled(draw, batch + (d, d), target, d)
        N = M0 * M0
    L, H = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    M = _scaled(draw, (L, 1, H, d, d), draw(NORMS), d)
    ded = [{k: _scaled(draw, (1, H, d, d), draw(NORMS), d) for k in ("A_LM", "A_P", "G_LM")}
           for _ in range(L)]
    coeffs = tuple(draw(st.sampled_from([0.0, 0.05, 1.0, 2.5])) for _ in range(3))
    return N, M, ded, coeffs


def _expm_checks(ch: Checks, N, E, backend):
    """pyref's expm against e^N (spec evaluator's Taylor series), per matrix. float64: pyref
    evaluates P₁₈(X)^{2^s}, X = N/2^s; rounding ≤ γ_K·e^{|N|} componentwise (every quantity is
    majorized by the same recursion on |X|, Higham §3.5; P(|X|)^{2^s} ≤ e^{|N|}),
    K = 2^s(18(d + 2) + d) + 1; truncation ‖P^{2^s} − e^N‖_∞ ≤ e^{‖N‖}((1 + ρ₀)^{2^s} − 1). mp
    (mpmath.expm at 50 digits): MP·(e^{|N|})_ij + MP·e^{‖N‖} (normwise)."""
    d = N.shape[-1]
    for Nh, Eh in zip(N.reshape(-1, d, d), np.asarray(E).reshape(-1, d, d)):
        s = _squarings(Nh)
        ref, maj = sev_l.matExp(mat(Nh)), sev_l.matExp(mat(np.abs(Nh)))
        nrm = float(np.max(np.sum(np.abs(Nh), axis=-1)))
        if backend == "mp":
            rel, trunc = mpmath.mpf(1e-40), mpmath.mpf(1e-40) * mpmath.exp(nrm)
        else:
            rel = mpmath.mpf(gamma(2 ** s * (18 * (d + 2) + d) + 1))
            trunc = mpmath.exp(nrm) * ((1 + mpmath.mpf(RHO0)) ** (2 ** s) - 1)
        worst = max(abs(mpmath.mpf(Eh[i][j]) - ref[i][j]) / (rel * maj[i][j] + trunc)
                    for i in range(d) for j in range(d))
        ch.le(f"expm = Σ N^k/k! ({'scaling and squaring' if s else 'no scaling'})", worst, 1.0)


def _term_bound(backend, Mh, t, T):
    """|t̂ − t| for pyref's DAG term t = log(T/d) (T = tr e^N ≥ d, N = M⊙M ≥ 0). float64: T̂ is
    within γ_{K+d}T + d·e^{‖N‖}((1 + ρ₀)^{2^s} − 1) =: τ of T (nonnegative recursions:
    componentwise relative errors add; K = 2^s(18(d + 3) + d) + 1 also counts the rounding of
    M⊙M), so |log T̂ − log T| ≤ −log(1 − τ/T), plus 2u for T/d and 4u·t for the log (≤ 4 ulp).
    mp: MP·(1 + t)·e^{‖N‖}/T·d (mpmath.expm's normwise error relative to T ≥ d)."""
    d = Mh.shape[-1]
    N = Mh * Mh
    nrm = float(np.max(np.sum(N, axis=-1)))
    if backend == "mp":
        return mpmath.mpf(1e-40) * (1 + t) * mpmath.exp(nrm) * d / T
    s = _squarings(N)
    tau = (gamma(2 ** s * (18 * (d + 3) + d) + 1 + d) * T
           + d * mpmath.exp(nrm) * ((1 + mpmath.mpf(RHO0)) ** (2 ** s) - 1))
    return -mpmath.log(1 - tau / T) + 2 * U64 + 4 * U64 * t if tau < T else mpmath.inf


def _dag_value_bound(Mh, ev):
    """|v̂ − v| for ``pyref.analysis.dag_value`` (float64 eigenvalues λ̂ of fl(M⊙M)): |λ̂_j − λ_j| ≤
    δ_j = 2κ_j(1 + 10d²)u‖N‖_F (first order, doubled; valid when 4 max δ is below the smallest
    separation, else None), so Σ e^{λ̂} = Σ e^{λ} + Δ with |Δ| ≤ (e^δ − 1)W, W = Σ e^{Re λ_j};
    the chain exp(λ − m), Σ, log, m + log − log d adds (8u + γ_{d+2} + u·max|λ − m|)W/T +
    8u(|m| + log T + log d)."""
    lam, L, R, T = ev
    d = len(lam)
    kap = sev_a.eigenvalueConditions(L, R)
    fro = sev_a.frobNorm(sev_a.hadamard(mat(Mh), mat(Mh)))
    dl = [2 * k * (1 + 10 * d * d) * U64 * fro for k in kap]
    sep = min((abs(lam[i] - lam[j]) for i in range(d) for j in range(d) if i != j),
              default=mpmath.inf)
    if not 4 * max(dl) < sep:
        return None
    W = sum(mpmath.exp(x.real) for x in lam)
    m = max(x.real for x in lam)
    spread = max(abs(x - m) for x in lam)
    e = (mpmath.exp(max(dl)) - 1) * W / T
    if e >= 1:
        return mpmath.inf
    return (-mpmath.log(1 - e) + (8 * U64 + gamma(d + 2) + U64 * spread) * W / T
            + 8 * U64 * (abs(m) + mpmath.log(T) + mpmath.log(d)))


def _dl_reference(backend, X):
    """(per-head log(T/d), their bounds, mean, bound of pyref's mean) for X [..., d, d]."""
    d = X.shape[-1]
    ts, bs = [], []
    for Mh in X.reshape(-1, d, d):
        T = sev_l.traceExp(sev_a.hadamard(mat(Mh), mat(Mh)))
        t = mpmath.log(T / d)
        ts.append(t)
        bs.append(_term_bound(backend, Mh, t, T))
    n = len(ts)
    mean = sum(ts) / n
    slack = mpmath.mpf(1e-40) if backend == "mp" else mpmath.mpf(gamma(n + 1))
    return ts, bs, mean, max(bs) + slack * max(ts + [mpmath.mpf(1)])


@prop(theorems=["PLGA.Dag.trace_exp_ge_card_add_trace_of_convergesTo", "PLGA.Dag.dagLoss_nonneg",
                "PLGA.Dag.trace_exp_ge_card"],
      paper="Spec C / H, Rem 4.5 (expm, the DAG term log(tr e^{M⊙M}/d), DL and the DAG "
            "regularizer as equalities with their definitions)",
      strategy=expm_dag_case)
def dag_terms_match_spec(ex, backend, dps):
    """Equalities with the defining formulas (spec evaluator at 80 digits,
    ``spec_eval.losses``; T = lim_K ``expTracePartial`` (M⊙M) K, the T of the Lean hypothesis
    ``ConvergesTo``), not bounds:

    * ``pyref.losses.expm``(N) = Σ_k N^k/k! for nonnegative and signed N, batched and empty
      batches, with ‖N‖_∞ from 0.05 to 20: both pyref branches (no scaling, and s = 1 … 6
      squarings) are reached (:func:`_expm_checks`);
    * ``dag_terms``(M) = log(T/d) per head (no |·|: T ≥ d, dagLoss_nonneg / trace_exp_ge_card),
      for signed M of [L, B, H, d, d] (:func:`_term_bound`);
    * ``dag_loss``(M) = the mean of those over (l, b, h);
    * ``dag_regularizer``(deductive, (c_A, c_P, c_G)) = Σ_{c > 0} c·DL(stack of that key), each c
      drawn 0 or > 0 (the skipped-term branch; all zero gives exactly 0);
    * float64: ``pyref.analysis.dag_value``(M) (eigenvalue form |m + log Σe^{λ−m} − log d|, spec
      H) = the same log(T/d) (tr e^N = Σ e^{λ_j}) within :func:`_dag_value_bound`.
    Bounds in the helpers' docstrings; pyref's coefficients c are floats (u relative)."""
    N, M, ded, coeffs = ex
    E = pyref.losses.expm(N, backend=backend, dps=dps)
    terms = np.asarray(pyref.losses.dag_terms(M, backend=backend, dps=dps)).reshape(-1)
    DL = pyref.losses.dag_loss(M, backend=backend, dps=dps)
    reg = pyref.losses.dag_regularizer(ded, coeffs, backend=backend, dps=dps)
    ch = Checks()
    with mpmath.workdps(REF_DPS):
        ch.exact("expm keeps the shape", int(np.shape(E) != N.shape))
        _expm_checks(ch, N, E, backend)
        ts, bs, mean, mb = _dl_reference(backend, M)
        for th, t, b in zip(terms, ts, bs):
            ch.le("dag_terms = log(tr e^{M⊙M}/d)", abs(mpmath.mpf(th) - t), b)
        ch.le("dag_loss = mean of log(tr e^{M⊙M}/d)", abs(mpmath.mpf(DL) - mean), mb)
        ref, rb = mpmath.mpf(0), mpmath.mpf(0)
        for c, key in zip(coeffs, ("A_LM", "A_P", "G_LM")):
            if c > 0:
                _, _, m_k, b_k = _dl_reference(backend, np.stack([x[key] for x in ded]))
                ref += const(c) * m_k
                rb += const(c) * (b_k + 4 * U64 * m_k)
        ch.le("dag_regularizer = Σ_{c>0} c·DL", abs(mpmath.mpf(reg) - ref), rb)
        if backend != "mp":
            note = _dag_value_checks(ch, M)
    return ch.outcome(note=note if backend != "mp" else "")


def _dag_value_checks(ch: Checks, M) -> str:
    """``pyref.analysis.dag_value`` per head against log(T/d) (float64)."""
    d = M.shape[-1]
    vals = np.asarray(pyref.analysis.dag_value(M)).reshape(-1)
    skipped = 0
    for Mh, v in zip(M.reshape(-1, d, d), vals):
        Nm = sev_a.hadamard(mat(Mh), mat(Mh))
        lam, L, R = sev_a.spectrum(Nm)
        T = sev_l.traceExp(Nm)
        b = _dag_value_bound(Mh, (lam, L, R, T))
        if b is None:
            skipped += 1
            continue
        ch.le("dag_value = log(tr e^{M⊙M}/d)", abs(mpmath.mpf(v) - mpmath.log(T / d)), b)
    return f"dag_value: {skipped} heads with unresolved eigenvalues" if skipped else ""
