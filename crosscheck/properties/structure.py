"""Properties for ``Formal/Structure`` (namespaces ``PLGA.Structure``, ``PLGA.LayerNorm``,
``PLGA.Density``, ``PLGA.Online``, ``PLGA.PowerLaw``, ``PLGA.Dag``, ``PLGA.RankOne``,
``PLGA.RowMap``), evaluated on ``pyref``'s own code paths: ``pyref.layers.layer_norm``,
``pyref.plga.density`` / ``metric_tensor`` / ``potential_tensor`` / ``residual_metric_learner``,
``pyref.losses.expm`` / ``dag_terms`` / ``dag_loss`` / ``dag_regularizer``, ``pyref.analysis.det`` /
``singular_ratio`` / ``numerical_rank``, and pyref's models (``ConstantGModel``, ``PLDRModel``:
block forward, prefix forwards, KV-cached greedy decoding).

Error bounds (see :mod:`._util`): float64 bounds are derived per property in the docstrings
(Higham-style ``γ_k`` bounds on a stated absolute-value scale ``T``); mp runs use the harness'
50-digit bound ``1e-40·T`` on the same scale. Several comparisons are exact by construction
(bound 0, the reason is stated). Exact reference values (e.g. ``n·var/(var+ε)`` of a float64
row) are computed with mpmath at 80 digits from the exactly converted inputs, so only pyref's
rounding is measured. A property that checks several statements reports the sub-check closest
to (or over) its own bound (:func:`_worst`): it passes iff every sub-check passes.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ..registry import Outcome, prop
from ..strategies import matrix
from ._util import bound, conv, ctx, gamma, generic_plga_state_dict, maxabs, state_dict_with_biases

ST = "PLGA.Structure."
LN = "PLGA.LayerNorm."
DE = "PLGA.Density."
ON = "PLGA.Online."
PW = "PLGA.PowerLaw."
DG = "PLGA.Dag."
R1 = "PLGA.RankOne."
RM = "PLGA.RowMap."

#: theorems of ``Formal/Structure`` with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    # Basic.lean
    ST + "matPow_zero": "definitional (rfl): A^0 = 1 is the base case of the recursion; pyref has no matrix-power routine",
    ST + "matPow_succ": "definitional (rfl): A^{k+1} = A^k A is the recursion itself; the powers used by dag_positivity_obstruction "
                        "are computed with it",
    ST + "matPow_one": "A^1 = 1·A = A: multiplying by the identity is exact data movement in every arithmetic; nothing to measure",
    ST + "fsum_const": "arithmetic identity Σ_{i<n} c = n·c of exact sums, used inside the LayerNorm/DAG proofs whose statements are checked",
    ST + "trace_one": "tr 1 = n: the trace of the identity is a sum of exact ones (= the S_0 = d of the DAG partial sums, "
                      "checked exactly in dag_positivity_obstruction through expTracePartial_ge_card_add_trace)",
    ST + "mul_self_nonneg": "order fact 0 ≤ a·a: squares are nonnegative in IEEE and mpmath arithmetic (sign-exact rounding); used inside proofs",
    # LayerNorm.lean
    LN + "natCast_ne_zero_of_pos": "Nat-cast fact ((n : α) ≠ 0 for n > 0); no computation",
    LN + "centred_shift": "proof step of lnEps_shift ((r + c) − μ(r + c) = r − μ(r)); its consequences rowMean_shift and lnEps_shift are "
                          "checked by layernorm_norm_identity",
    LN + "eq_of_mul_self_eq": "order helper (uniqueness of nonnegative square roots) used inside lnEps_scale_eps_zero, which is checked",
    LN + "sqrt_mul_self_mul": "property of the hypothesis square root (√(c²v) = c√v), used inside lnEps_scale_eps_zero, which is checked",
    LN + "sqrt_ne_zero_of_pos": "property of the hypothesis square root (√v ≠ 0 for v > 0); used inside proofs",
    LN + "fsum_centred_sq": "definitional rearrangement Σ(r_i − μ)² = d·var(r) of the Lean variance; pyref's LayerNorm computes var "
                            "exactly this way and sum_sq_normalize (checked) is its consequence",
    # Density.lean
    DE + "dot_transpose_mulVec": "linear-algebra helper xᵀ(Aᵀy) = (Ax)ᵀy inside dot_density_mulVec, which is checked on pyref's density",
    DE + "mulVec_sub": "linearity helper A(x − y) = Ax − Ay inside density_mulVec_eq_iff, which is checked",
    DE + "eq_zero_of_mul_self_eq_zero": "order helper (a·a = 0 ⇒ a = 0) inside density_mulVec_eq_zero_iff, which is checked",
    DE + "dot_self_nonneg": "order helper (vᵀv ≥ 0) inside density_quadratic_nonneg, which is checked",
    DE + "eq_zero_of_dot_self_eq_zero": "order helper (vᵀv = 0 ⇒ v = 0) inside density_mulVec_eq_zero_iff, which is checked",
    # PowerLaw.lean
    PW + "hadPow_add_any": "the group law off the positive cone is a fact about the exp∘log definition, not about rpow; pyref's "
                           "power is rpow and its only base A_LM ≥ ε > 0, where the statement is hadPow_add (checked)",
    PW + "log_mul_of_pos": "scalar helper log(ab) = log a + log b inside hadPow_hadamard_base, which is checked on pyref's potential tensor",
    # Dag.lean
    DG + "fact_pos": "Nat fact k! > 0; no computation",
    DG + "natCast_fact_pos": "Nat-cast fact (k! : α) > 0; no computation",
    DG + "expTracePartial_zero": "definitional: S_0 = tr(N^0)/0! = tr 1 = d (the base value used by the checked partial-sum bounds)",
    DG + "expTracePartial_succ": "definitional: S_{K+1} = S_K + tr(N^{K+1})/(K+1)! is how the checked partial sums are computed",
    DG + "expTracePartial_one": "definitional: S_1 = d + tr N; the checked bounds compare pyref's tr expm(N) with exactly this value",
    DG + "ExpLogMono.log_one": "scalar fact log 1 = 0 of the hypothesis exp/log pair; used inside proofs",
    DG + "div_nonneg_of_pos": "order helper (x ≥ 0, y > 0 ⇒ x/y ≥ 0) used inside the partial-sum monotonicity proof",
    DG + "le_of_convergesTo_of_monotone": "real-analysis lemma (a monotone sequence is below its limit); its instance S_K ≤ tr expm(N) "
                                          "is checked on pyref's expm by dag_positivity_obstruction",
    DG + "mul_self_le_mul_self_of_le": "order helper (0 ≤ a ≤ b ⇒ a² ≤ b²) inside trace_exp_hadamard_self_ge, which is checked",
    DG + "ExpLogMono.log_le_log": "monotonicity of the hypothesis log, used inside dagLoss_ge_log_one_add_sq, which is checked",
    DG + "ExpLogMono.log_lt_log": "strict monotonicity of the hypothesis log, used inside log_one_add_sq_pos, which is checked",
    DG + "div_card_ge": "order helper (T ≥ d(1 + c) ⇒ T/d ≥ 1 + c) inside the DAG-loss bound, which is checked",
    DG + "eq_of_convergesTo_const": "real-analysis lemma (the limit of a constant sequence is the constant); its consequence "
                                    "dagLoss_eq_zero_of_strictUpper is checked",
    # RankOne.lean
    R1 + "rowClone_apply": "definitional (rfl): entry (i, j) of 𝟙αᵀ is α_j (how the checked rank-one matrices are built)",
    R1 + "rowClone_row_eq": "definitional (rfl) for 𝟙αᵀ; its pipeline instance (Φ_res of a rank-one input has identical rows) is "
                            "phiResMat_rowClone, checked by phi_res_row_local",
    R1 + "rowClone_eq_zero_iff": "definitional (𝟙αᵀ = 0 iff α = 0, entry (j, j) reads α_j); nothing numeric",
    # RowMap.lean
    RM + "foldl_rowwise": "list-fold lemma (folding row-wise steps stays row-wise), a proof helper of phiResMat_apply, which is checked",
    # Online.lean
    ON + "online_causal": "holds for every function by construction (onlineOut reads F on x.take t, so equal prefixes give equal "
                          "arguments); nothing numeric beyond the row-locality checked by causal_block_equals_online",
    ON + "constNil_prefixConsistent": "the empty decoder (no output rows) has no pyref counterpart; a logical remark about the definition",
    ON + "constNil_not_prefixConsistentShaped": "the empty decoder has no pyref counterpart; a logical remark about the definition",
    ON + "rowMapDecoder_getElem?": "definitional (list indexing of rowMapDecoder); its pyref instance (block row t = f(x_{≤t})) is "
                                   "checked by causal_block_equals_online",
    ON + "rowMapDecoder_lengthPreserving": "List.map/range length lemma; pyref's decoders return one row per token (checked as part "
                                           "of causal_block_equals_online)",
    ON + "globalSumDecoder_lengthPreserving": "length of List.map for the toy decoder x ↦ x + Σx; no pyref counterpart",
    ON + "rowLocal_id": "the identity decoder is causal; logical, no pyref counterpart",
    ON + "cumGramLayer_rowLocal": "logical consequence of rowMapDecoder_rowLocal; pyref has no causal-Gram layer, its rows "
                                  "(online PLDR calls) are checked by global_gram_not_prefix_consistent (cumGramLayer_getElem?)",
    ON + "cumGramLayer_prefixConsistentShaped": "logical consequence of rowMapDecoder_prefixConsistentShaped for the abstract "
                                                "cumGramLayer, which pyref does not implement as a block layer",
}


# =============================================================================== helpers
def _worst(parts, met=True):
    """One Outcome from several (dev, bound, label) sub-checks: the first failing one with
    the largest excess, else the one with the largest dev/bound ratio."""
    parts = [(float(d), float(b), lab) for d, b, lab in parts]
    if not parts:
        return Outcome(0.0, 0.0, met=met)
    bad = [p for p in parts if p[0] > p[1]]
    if bad:
        d, b, lab = max(bad, key=lambda p: p[0] - p[1])
        return Outcome(d, b, met=met, note=lab)

    def ratio(p):
        return 0.0 if p[0] == 0 else (p[0] / p[1] if p[1] > 0 else math.inf)

    d, b, _ = max(parts, key=ratio)
    return Outcome(d, b, met=met)


def _ub(backend, k, T, amp=1e12) -> float:
    """:func:`._util.bound` plus, in float64, an allowance for gradual underflow (which the γ-model
    excludes; hypothesis draws subnormal entries): every rounding in the subnormal range adds
    ≤ 2⁻¹⁰⁷⁵ absolute, at most k² roundings feed one compared value, and each such error is multiplied
    downstream by at most ``amp`` (default 1e12 ≥ (10³)⁴, the fourth power of the largest input
    magnitude of these strategies, which covers every downstream product used here). The allowance
    is ≤ 1e-300·k², so it matters only when the true scale T is itself near the underflow threshold."""
    b = bound(backend, k, T)
    return b if backend == "mp" else b + k * k * amp * 2.0 ** -1074


def _mp(x, dps=80):
    """Exact conversion to an object array of mpf (float64 exactly; mpf entries kept)."""
    return pyref.to_mp(np.asarray(x), dps)


def _f(x) -> float:
    return float(x)


def _cfg(L: int, d: int) -> pyref.PLDRConfig:
    return pyref.PLDRConfig(num_layers=L, d_model=d, num_heads=2, dff=6, a_dff=4, num_res_units=1,
                            num_glu_blocks=2, vocab_size=11, max_seq_len=16)


def _phi_units(rng, d, h, n_units, n_blocks, scale=1.0):
    """Random Φ_res units in pyref's format (W1, W2 [h, d], W3 [d, h], biases, LN γ, β)."""
    units = []
    for _ in range(n_units):
        blocks = [(rng.uniform(-1, 1, (h, d)) * scale, rng.uniform(-1, 1, h) * scale,
                   rng.uniform(-1, 1, (h, d)) * scale, rng.uniform(-1, 1, h) * scale,
                   rng.uniform(-1, 1, (d, h)) * scale, rng.uniform(-1, 1, d) * scale) for _ in range(n_blocks)]
        units.append({"blocks": blocks, "gamma": rng.uniform(0.5, 1.5, d), "beta": rng.uniform(-1, 1, d)})
    return units


def _phi_res_mat(A, gA, bA, units, eps, backend, dps):
    """Lean ``phiResMat``: the initial LayerNorm LN_A (γ_A, β_A), then pyref's Φ_res units
    (pyref applies LN_A in its attention layer, ``mha1.layernorm1``, before ``_phi_res``)."""
    A0 = pyref.layers.layer_norm(A, gA, bA, eps=eps, backend=backend, dps=dps)
    return pyref.plga.residual_metric_learner(A0, units, eps=eps, backend=backend, dps=dps)


# ================================================================ 1. LayerNorm (Lem 5.11)
LN_MAG = st.sampled_from([1.0, 1e-3, 3e-4, 0.5, 10.0, 1e3])


@st.composite
def ln_case(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    X = draw(matrix(m, n, magnitude=LN_MAG))
    eps = draw(st.sampled_from([1e-6, 1e-3, 1e-9, 0.5]))
    c = draw(st.sampled_from([1.0, -7.5, 100.0, 0.3, 1e3]))          # shift
    k = draw(st.sampled_from([2.0, 0.5, 3.0, 0.1, 1e3, 4.0]))         # positive scale ≠ 1
    return X, eps, c, k


def _row_exact(r, eps_val):
    """(M, μ, v, w = v + ε) of one row, exact (80 digits) from the float64 entries; eps_val an
    mpf or float (the ε pyref uses)."""
    with mpmath.workdps(80):
        x = [mpmath.mpf(float(t)) for t in r]
        n = len(x)
        mu = mpmath.fsum(x) / n
        v = mpmath.fsum([(t - mu) ** 2 for t in x]) / n
        return max(abs(t) for t in x), mu, v, v + mpmath.mpf(eps_val)


def _eps0_row_ok(r, n, backend) -> bool:
    """A row on which the ε = 0 statements are checked: var > 0 exactly, γ_{n+6}·M/√var ≤ 1e-3 (the
    validity condition of the derived bound) and, in float64, var ≥ 1e-290 (no underflow: rows of
    tiny entries whose float64 variance flushes to 0 are outside the γ-model; pyref divides by 0)."""
    M, _mu, v, _w = _row_exact(r, 0.0)
    if not v > 0 or (backend != "mp" and v < mpmath.mpf("1e-290")):
        return False
    with mpmath.workdps(80):
        return bool(gamma(n + 6) * M / mpmath.sqrt(v) <= mpmath.mpf("1e-3"))


def _ln_T(n, R):
    """Per-entry scale of the LayerNorm error: |û_i − u*_i| ≤ γ_{n+4}·3√n(R + 2), R = M/√(var+ε)
    (derivation in ``layernorm_norm_identity``)."""
    return 3.0 * math.sqrt(n) * (R + 2.0)


@prop(theorems=[LN + "sum_sq_normalize", LN + "sum_normalize_eq_zero", LN + "sum_sq_normalize_lt",
                LN + "sum_sq_normalize_eps_zero", LN + "lnEps_shift", LN + "rowMean_shift", LN + "rowVar_shift",
                LN + "lnEps_scale_eps_zero", LN + "normalize_not_scale_invariant", LN + "rowMean_smul",
                LN + "rowVar_smul", LN + "rowVar_nonneg"],
      paper="Lem 5.11 (ε-LayerNorm: norm identity, centring, shift invariance, scale invariance only at ε = 0)",
      strategy=ln_case)
def layernorm_norm_identity(ex, backend, dps):
    """On ``pyref.layers.layer_norm`` with γ = 1, β = 0 (explicit arrays), row by row (r of
    length n, ε > 0 drawn from 1e-9 … 0.5, shift c, scale k > 0, k ≠ 1):

    * ``sum_sq_normalize``: Σ_i û_i² = n·var/(var + ε) (right side exact from the float64 row);
      ``sum_sq_normalize_lt``: Σ û² < n; ``sum_normalize_eq_zero``: Σ û = 0;
    * ``lnEps_shift``: LN(r + c) = LN(r) (the shifted row formed in the backend);
    * ``lnEps_scale_eps_zero``: LN₀(k r) = LN₀(r) and ``sum_sq_normalize_eps_zero``: Σ LN₀(r)² = n,
      on rows with var > 0 (pyref at eps = 0);
    * ``normalize_not_scale_invariant``: Σ LN_ε(k r)² is checked against n k²v/(k²v + ε); when the
      predicted gap to n v/(v + ε) exceeds both error bounds, the normalized rows are certified
      different (a measurable gap on small-variance rows; at 50 digits on every positive-variance
      row);
    * the row statistics of the Lean definitions (μ = Σr/n, var = Σ(r − μ)²/n, evaluated with the
      same formulas and operations as pyref's ``_layer_norm``): ``rowMean_shift`` μ(r + c) = μ(r) + c,
      ``rowVar_shift``, ``rowMean_smul`` μ(k r) = k μ(r), ``rowVar_smul`` var(k r) = k² var(r),
      ``rowVar_nonneg`` (exact: a sum of squares).

    Would fail for LN = (r − μ)/(√var + ε) (the ε-outside-the-root bug): Σû² then equals
    n·var/(√var + ε)², off by ≈ n·ε(2√var − 1)/var, far above the bounds.

    float64 bound (per row, u = 2⁻⁵³, M = max|r|, w = var + ε exact, R = M/√w): pyref's mean is within
    γ_{n+2}M, the centred entries within e = γ_{n+4}M, |r_i − μ| ≤ √(n·var); the computed variance is
    within e(2√v + e) + γ_{n+1}v, so √(var + ε) has relative error ≤ γ_{n+4}(R + 2) (to first order)
    and |û_i − u*_i| ≤ γ_{n+4}·3√n(R + 2) =: γ·T_u. Hence |Σû² − Σu*²| ≤ 2.01√n·n·γT_u (Σû² is summed
    exactly), |Σû| ≤ nγ(T_u + 2); two evaluations on rows whose rounding adds ≤ u·(M + |c|) per
    entry (shift) or u·kM (scale, ε = 0, R = M/√var) differ by ≤ 2γ_{n+6}·3√n(R' + 2). The means and
    variances: 2γ_{n+3}·(M + |c|) resp. kM, and 2γ_{n+8}·s²(2M'√v + 2v + γM'²). Valid while
    γ_{n+6}R ≤ 1e-3 (always for ε > 0 in these ranges; rows violating it, e.g. at ε = 0 a row of
    subnormal entries whose variance underflows, are not checked). mp: the harness' 1e-40 times the
    same scales."""
    X, eps, c, k = ex
    m, n = X.shape
    b = pyref.get_backend(backend, dps)
    with b.context():
        eps_b = b.const(eps)                                   # the ε pyref uses (mp: decimal)
        Xb, cb, kb = conv(backend, dps, X, np.array(c), np.array(k))
        Xs = Xb + cb                                           # shifted rows, backend arithmetic
        Xk = Xb * kb                                           # scaled rows, backend arithmetic
        ones, zeros = b.asarray(np.ones(n)), b.asarray(np.zeros(n))

    def LNf(Y, e):
        return pyref.layers.layer_norm(Y, ones, zeros, eps=e, backend=backend, dps=dps)

    U, Us, Uk = LNf(Xb, eps), LNf(Xs, eps), LNf(Xk, eps)
    pos = [i for i in range(m) if _eps0_row_ok(X[i], n, backend)]             # ε = 0 needs var > 0
    U0 = dict(zip(pos, LNf(Xb[pos], 0.0))) if pos else {}
    Uk0 = dict(zip(pos, LNf(Xk[pos], 0.0))) if pos else {}
    with b.context():                                          # the Lean row statistics, pyref's formulas
        def stats(Y):
            mu = np.sum(Y, axis=-1) / n
            xc = Y - mu[:, None]
            return mu, np.sum(xc * xc, axis=-1) / n
        mu, var = stats(Xb)
        mu_s, var_s = stats(Xs)
        mu_k, var_k = stats(Xk)
        d_mean_s = to_float64(np.abs(mu_s - (mu + cb)))
        d_var_s = to_float64(np.abs(var_s - var))
        d_mean_k = to_float64(np.abs(mu_k - kb * mu))
        d_var_k = to_float64(np.abs(var_k - kb * kb * var))
        neg_var = max(0.0, -float(np.min(to_float64(var))))
    eps_val = eps_b if b.is_mp else eps
    parts = [(neg_var, 0.0, "rowVar_nonneg")]
    checked = 0
    for i in range(m):
        M, _mu, v, w = _row_exact(X[i], eps_val)
        Mf, vf, wf = _f(M), _f(v), _f(w)
        R = Mf / math.sqrt(wf)
        Rs = (Mf + abs(c)) / math.sqrt(wf)
        if gamma(n + 6) * Rs > 1e-3:                           # outside the derived bound's validity
            continue
        checked += 1
        with mpmath.workdps(80):
            u_ = _mp(U[i])
            sumsq, s1 = mpmath.fsum(t * t for t in u_), mpmath.fsum(u_)
            target = n * v / w
            parts.append((_f(abs(sumsq - target)), bound(backend, n + 4, 1.01 * n * math.sqrt(n) * _ln_T(n, R)),
                          f"sum_sq_normalize row {i}"))
            parts.append((_f(max(mpmath.mpf(0), sumsq - n)), bound(backend, n + 4, 1.01 * n * math.sqrt(n) * _ln_T(n, R)),
                          f"sum_sq_normalize_lt row {i}"))
            parts.append((_f(abs(s1)), bound(backend, n + 4, n * (_ln_T(n, R) + 2)), f"sum_normalize_eq_zero row {i}"))
        with b.context():
            parts.append((maxabs(Us[i] - U[i]), bound(backend, n + 6, _ln_T(n, Rs)), f"lnEps_shift row {i}"))
        Ms = Mf + abs(c)
        parts.append((float(d_mean_s[i]), _ub(backend, n + 3, Ms), f"rowMean_shift row {i}"))
        parts.append((float(d_var_s[i]), _ub(backend, n + 8, 2 * Ms * math.sqrt(vf) + 2 * vf + gamma(n + 8) * Ms ** 2),
                      f"rowVar_shift row {i}"))
        parts.append((float(d_mean_k[i]), _ub(backend, n + 3, k * Mf), f"rowMean_smul row {i}"))
        parts.append((float(d_var_k[i]), _ub(backend, n + 8, k * k * (2 * Mf * math.sqrt(vf) + 2 * vf + gamma(n + 8) * Mf ** 2)),
                      f"rowVar_smul row {i}"))
        if i in U0:
            with mpmath.workdps(80):
                R0 = _f(M / mpmath.sqrt(v))
            with b.context():
                parts.append((maxabs(Uk0[i] - U0[i]), bound(backend, n + 6, _ln_T(n, R0)), f"lnEps_scale_eps_zero row {i}"))
            with mpmath.workdps(80):
                s0 = mpmath.fsum(t * t for t in _mp(U0[i]))
                parts.append((_f(abs(s0 - n)), bound(backend, n + 4, 1.01 * n * math.sqrt(n) * _ln_T(n, R0)),
                              f"sum_sq_normalize_eps_zero row {i}"))
        # ε > 0 breaks scale invariance: Σ LN(k r)² = n k²v/(k²v + ε) ≠ n v/(v + ε) when var > 0
        with mpmath.workdps(80):
            kk = mpmath.mpf(k) ** 2
            wk = kk * v + mpmath.mpf(eps_val)
            Rk = _f(mpmath.mpf(k) * M / mpmath.sqrt(wk))
            Bk = bound(backend, n + 6, 1.01 * n * math.sqrt(n) * _ln_T(n, Rk))
            B1 = bound(backend, n + 4, 1.01 * n * math.sqrt(n) * _ln_T(n, R))
            sk = mpmath.fsum(t * t for t in _mp(Uk[i]))
            parts.append((_f(abs(sk - n * kk * v / wk)), Bk, f"sum_sq_normalize (scaled) row {i}"))
            gap = abs(n * kk * v / wk - target)
        if v > 0 and gap > 2 * (B1 + Bk):                 # the exact rows differ: pyref's must too
            with b.context():
                differ = maxabs(Uk[i] - U[i]) > 0
            parts.append((0.0 if differ else 1.0, 0.0, f"normalize_not_scale_invariant row {i}"))
    return _worst(parts, met=checked > 0)


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


@prop(theorems=[DE + "dot_density_mulVec", DE + "density_symm", DE + "density_quadratic_nonneg",
                DE + "density_mulVec_eq_zero_iff", DE + "density_mulVec_eq_iff", DE + "density_apply",
                DE + "density_diag_nonneg", DE + "trace_density_nonneg"],
      paper="Prop 3.6 (D = Q̂ᵀQ̂: xᵀDx = ‖Q̂x‖², symmetric PSD, ker D = ker Q̂, tr D = ‖Q̂‖_F²)",
      strategy=density_case)
def density_quadratic_form(ex, backend, dps):
    """On ``pyref.plga.density`` (D = Q̂ᵀQ̂ over all S rows, no 1/S):

    * ``dot_density_mulVec``: xᵀDx = (Qx)ᵀ(Qx); ``density_quadratic_nonneg``: xᵀDx ≥ 0;
    * ``density_symm``: Dᵀ = D; ``density_apply``: D = Σ_p q_p q_pᵀ (running sum of outer products);
    * tr D = ‖Q‖_F², ``density_diag_nonneg``, ``trace_density_nonneg`` (exact: sums of squares);
    * ``density_mulVec_eq_zero_iff``: (⇐) for rank-deficient Q with column k = λ·column j (λ ∈ {0,
      ±1, 2, ½}) the kernel vector x_k = λe_j − e_k has Q x_k = 0 exactly, and D x_k must vanish; (⇒)
      for the random x, ‖Qx‖² ≤ ‖x‖₁‖Dx‖_∞ (so Dx = 0 forces Qx = 0);
    * ``density_mulVec_eq_iff``: Dx = Dy and Qx = Qy for y = x + α·x_k.

    Would fail for D = Q̂ᵀQ̂/S (S ≥ 2): xᵀDx and tr D would be ‖Qx‖²/S and ‖Q‖_F²/S.

    float64 bounds (Higham §3.1, nonnegative scales): with T = |x|ᵀ|Q|ᵀ|Q||x|, both xᵀDx and ‖Qx‖²
    are within γ_{S+2d+2}T of the exact value: ``fp_bound(S+2d+2, T)`` for the identity, the sign and
    (with T + ‖x‖₁·max(|Q|ᵀ|Q||x|)) the Hölder form; D entries are within γ_S(|Q|ᵀ|Q|) (symmetry,
    the outer-product sum with γ_{S+1}, the kernel product with 2(|λ| + 1)·max(|Q|ᵀ|Q|), γ_{S+2});
    the trace with Σ Q², γ_{S+d}. mp: 1e-40 times the same scales."""
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
        parts.append((maxabs(np.array([quad - nq])), _ub(backend, S + 2 * d + 2, T), "dot_density_mulVec"))
        parts.append((max(0.0, -float(quad)), _ub(backend, S + 2 * d + 2, T), "density_quadratic_nonneg"))
        parts.append((maxabs(D - D.T), _ub(backend, S, G), "density_symm"))
        run = None
        for p in range(S):
            o = np.outer(Qb[p], Qb[p])
            run = o if run is None else run + o
        parts.append((maxabs(D - run), _ub(backend, S + 1, G), "density_apply"))
        tr = np.trace(D)
        fro = np.sum(Qb * Qb)
        parts.append((maxabs(np.array([tr - fro])), _ub(backend, S + d, float(np.sum(Q * Q))), "trace = ‖Q‖_F²"))
        diag_neg = max(0.0, -float(np.min(to_float64(np.diagonal(D)))))
        parts.append((diag_neg + max(0.0, -float(tr)), 0.0, "density_diag_nonneg / trace_density_nonneg"))
        Dx = D @ xb
        l1 = float(np.sum(np.abs(x)))
        hold = nq - np.sum(np.abs(xb)) * np.max(np.abs(Dx))       # ‖Qx‖² − ‖x‖₁‖Dx‖_∞ ≤ 0, in the backend
        T2 = T + l1 * float(np.max(G @ np.abs(x)))
        parts.append((max(0.0, float(hold)), _ub(backend, S + 2 * d + 4, T2), "density_mulVec_eq_zero_iff (⇒, Hölder)"))
        if xk is not None:
            xkb, ab = conv(backend, dps, xk, np.array(alpha))
            Qk = Qb @ xkb
            exact_ker = maxabs(Qk)                                  # 0 by construction
            lam = float(np.max(np.abs(xk)))
            parts.append((exact_ker, 0.0, "kernel vector construction (Q x_k = 0 exactly)"))
            parts.append((maxabs(D @ xkb), _ub(backend, S + 2, 2 * (lam + 1) * float(np.max(G))),
                          "density_mulVec_eq_zero_iff (⇐)"))
            yb = xb + ab * xkb
            y = to_float64(yb)
            Ty = float(np.max(G @ (np.abs(x) + np.abs(y))))
            Tq = float(np.max(aQ @ (np.abs(x) + np.abs(y))))
            parts.append((maxabs(D @ xb - D @ yb), _ub(backend, S + d + 3, 2 * Ty), "density_mulVec_eq_iff (Dx = Dy)"))
            parts.append((maxabs(Qb @ xb - Qb @ yb), _ub(backend, d + 2, 2 * Tq), "density_mulVec_eq_iff (Qx = Qy)"))
    return _worst(parts)


# ================================================ 3. online contract on a causal model
@st.composite
def causal_case(draw):
    L = draw(st.sampled_from([1, 2]))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(2, 6))
    # first token not the pad id: a row whose keys are all pads is fully masked, and the authors'
    # additive −1e9 mask then shifts every score of that row equally, so it attends every key,
    # future ones included (pyref reproduces this; such a row is not causal)
    x = [draw(st.integers(1, 10))] + draw(st.lists(st.integers(0, 10), min_size=S - 1, max_size=S - 1))
    r = draw(st.integers(0, S - 1))
    suffix = draw(st.lists(st.integers(0, 10), min_size=0, max_size=3))
    prompt = draw(st.lists(st.integers(1, 10), min_size=1, max_size=3))
    steps = draw(st.integers(2, 4))   # ≥ 2: at least one KV-cached call after the prefill
    return L, d, seed, x, r, suffix, prompt, steps


def _fwd_dev(o1, i1, o2, i2):
    return max(maxabs(o1.logits[0, i1] - o2.logits[0, i2]), maxabs(o1.hidden[0, i1] - o2.hidden[0, i2]))


@prop(theorems=[ON + "stack_block_eq_online", ON + "block_eq_online_of_shaped", ON + "prefixConsistentShaped_of_rowLocal",
                ON + "prefixConsistent_of_rowLocal", ON + "rowMapDecoder_block_eq_online", ON + "rowMapDecoder_rowLocal",
                ON + "rowMapDecoder_prefixConsistent", ON + "rowMapDecoder_prefixConsistentShaped",
                ON + "stack_rowLocal", ON + "stack_foldl_rowLocal", ON + "stack_foldl_lengthPreserving",
                ON + "rowLocal_comp", ON + "rowLocal_take"],
      paper="Rem 4.7 / Def 4.8 (a causal decoder stack: block scoring = sequential scoring = KV-cached decoding)",
      strategy=causal_case, backends=("mp",))
def causal_block_equals_online(ex, backend, dps):
    """pyref's ConstantGModel (constant per-layer operator G, random biases; no Gram, so every layer
    is row-local: a Lean ``stack`` of causal, length-preserving layers, composed with the row-wise
    embedding and head) on tokens x (first token not the pad id):

    * block = sequential (``stack_block_eq_online``, ``block_eq_online_of_shaped``, the
      ``rowMapDecoder`` form with f(prefix) = last row of the forward on the prefix): row t of the
      block forward equals the last row of the forward on x[:t+1] (logits and decoder output);
    * row-locality (``stack_rowLocal``, ``rowLocal_take``, ``rowLocal_comp``): a sequence y sharing
      x's first r+1 tokens (then a different suffix) has the same rows 0…r;
    * length preservation: one output row per token;
    * KV-cached greedy decoding (``generate(prompt, n, kvcache=True, gcache=False)``, n ≥ 2, so at
      least one cached call): step i's logits equal row S0−1+i of the block forward on the final
      token sequence (the sequential scoring realized by the cache; the pad logit's bias is −50,
      so greedy decoding never emits the pad id, which cached calls would not mask, spec B).

    Would fail if a cached call rotated the new token at position n_cached + 1.

    mp only. Both sides perform the same mpf operations on the same operands, except that the block
    forward's masked keys contribute softmax weights e^{−10⁹+O(1)} < 10^{−4·10⁸}, which vanish in the
    50-digit rounding of every sum they join; the harness bound 1e-40·scale (scale = max(1, |logits|,
    |hidden|)) is therefore far above the possible deviation. A float64 bound would need a
    network-wide round-off analysis (BLAS blocking differs between a block of S rows and a prefix)."""
    L, d, seed, x, r, suffix, prompt, steps = ex
    cfg = _cfg(L, d)
    rng = np.random.default_rng(seed + 13)
    base = pyref.ConstantGModel.random(cfg, seed=seed)
    sd = state_dict_with_biases(base, rng)
    sd["final_layer.bias"][0] = -50.0
    Gs = [rng.uniform(-1, 1, (cfg.num_heads, cfg.d_k, cfg.d_k)) for _ in range(L)]
    model = pyref.ConstantGModel.from_state_dict(sd, cfg, G=Gs)
    S = len(x)
    blk = model.forward([x], backend=backend, dps=dps)
    parts = []
    scale = 1.0
    with ctx(backend, dps):
        scale = max(scale, maxabs(blk.logits), maxabs(blk.hidden))
        shape_bad = float(blk.logits.shape[1] != S or blk.hidden.shape[1] != S)
    dev_pre = 0.0
    for t in range(S):
        o = model.forward([x[:t + 1]], backend=backend, dps=dps)
        with ctx(backend, dps):
            dev_pre = max(dev_pre, _fwd_dev(blk, t, o, t))
            shape_bad += float(o.logits.shape[1] != t + 1)
    y = x[:r + 1] + suffix
    oy = model.forward([y], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev_loc = max(_fwd_dev(blk, i, oy, i) for i in range(r + 1))
    g = model.generate(prompt, steps, kvcache=True, gcache=False, backend=backend, dps=dps)
    toks = [int(t) for t in g.tokens[0]]
    full = model.forward([toks], backend=backend, dps=dps)
    S0 = len(prompt)
    with ctx(backend, dps):
        dev_kv = max(maxabs(sl[0] - full.logits[0, S0 - 1 + i]) for i, sl in enumerate(g.step_logits))
        scale = max(scale, maxabs(full.logits))
    bnd = bound(backend, 10 ** 4, scale)
    parts += [(shape_bad, 0.0, "length preservation"), (dev_pre, bnd, "block row t = forward(x[:t+1]) last row"),
              (dev_loc, bnd, "row-locality (shared prefix)"), (dev_kv, bnd, "KV-cached step logits = block rows"),
              (float(0 in toks[:-1]), 0.0, "greedy decoding emitted the pad id")]
    return _worst(parts)


# ============================= 4. the global Gram is not prefix-consistent; the causal fix
def _layer0_queries(sd, cfg, toks, b):
    """Rotated queries q̂ [H, S, d_k] of layer 0, from pyref's public functions exactly as its
    forward computes them (embedding·√d, LN_emb, W_Q x + b_Q, per-head RoPE at positions 0…S−1)."""
    d, H, dk = cfg.d_model, cfg.num_heads, cfg.d_k
    be, dps = b.name, b.dps
    with b.context():
        E = b.asarray(sd["decoder.embedding.weight"])[np.asarray(toks)] * b.sqrt(b.const(d))
        X = pyref.layers.layer_norm(E, sd["decoder.layernorm1.weight"], sd["decoder.layernorm1.bias"],
                                    eps=cfg.ln_eps, backend=be, dps=dps)
        q = pyref.layers.linear(X, sd["decoder.dec_layers.0.mha1.wq.weight"], sd["decoder.dec_layers.0.mha1.wq.bias"],
                                backend=be, dps=dps)
        qh = np.ascontiguousarray(np.transpose(q.reshape(len(toks), H, dk), (1, 0, 2)))
        return pyref.rope.apply_rope(qh, positions=list(range(len(toks))), base=cfg.rope_base, backend=be, dps=dps)


def _layer0_head_A(sd, cfg, D, b):
    """Everything the layer does to a Gram D before the metric tensor: LN_A then Φ_res
    (pyref's public functions, the model's own parameters)."""
    m = "decoder.dec_layers.0.mha1."
    units = []
    for u in range(cfg.num_res_units):
        r = m + f"reslayerAs.{u}."
        blocks = [tuple(sd[r + f"denseAs.{g}.{n}"] for n in ("gluw1.weight", "gluw1.bias", "gluw2.weight", "gluw2.bias",
                                                            "gluw3.weight", "gluw3.bias"))
                  for g in range(cfg.num_glu_blocks)]
        units.append({"blocks": blocks, "gamma": sd[r + "layernormA.weight"], "beta": sd[r + "layernormA.bias"]})
    return _phi_res_mat(D, sd[m + "layernorm1.weight"], sd[m + "layernorm1.bias"], units, cfg.ln_eps, b.name, b.dps)


@st.composite
def global_case(draw):
    L = draw(st.sampled_from([1, 1, 2]))
    d = draw(st.sampled_from([4, 8]))
    seed = draw(st.integers(0, 2 ** 16))
    S = draw(st.integers(3, 6))
    x = draw(st.lists(st.integers(1, 10), min_size=S, max_size=S, unique=draw(st.sampled_from([True, True, False]))))
    z = draw(matrix(3, d // 2, structure=False))
    return L, d, seed, x, z


@prop(theorems=[ON + "globalGramLayer_not_prefixConsistent", ON + "globalSumDecoder_not_prefixConsistent",
                ON + "globalSumDecoder_not_prefixConsistentShaped", ON + "gram_append", ON + "gramAux_append",
                ON + "gram_quadratic_nonneg", ON + "gramAux_quadratic_nonneg", ON + "cumGramLayer_getElem?",
                ON + "cumGramLayer_block_eq_online"],
      paper="Rem 4.7 / Def 4.8 (PLGA's global Gram is not prefix-consistent; the causal cumulative Gram D_t is the fix)",
      strategy=global_case, backends=("mp",))
def global_gram_not_prefix_consistent(ex, backend, dps):
    """pyref's PLDR model (generic O(1) operator parameters, nonzero biases; tokens without pad):

    * the converse witness (``globalGramLayer_not_prefixConsistent``, and the PLGA instance of
      ``globalSumDecoder_not_prefixConsistent(Shaped)``: rows see the whole sequence): some row
      1 ≤ t ≤ S−2 of the block forward differs from the last row of the forward on x[:t+1] by more
      than 1e-30 (10¹⁰ times the 50-digit bound, so the exact values differ). Row 0 attends only key
      0 (weight 1 whatever G), row S−1 is the full sequence, and a row whose keys are copies of one
      token averages equal value vectors whatever G, so met requires S ≥ 3 and two distinct tokens
      in x[:S−1]. Also the
      Lean witness itself on ``pyref.plga.density``: d = 1, q̂ = x = [0, 1], head D = D₀₀: the block
      Gram gives 1, the prefix Gram 0 (exact);
    * the fix, the causal cumulative Gram D_t = Σ_{p≤t} q̂_p q̂_pᵀ (``gram_append``): with layer 0's
      rotated queries (recomputed with pyref's public functions), the running sum D_{t−1} +
      density(q̂_t) equals ``pyref.plga.density`` of the prefix, and zᵀD_t z ≥ 0
      (``gram_quadratic_nonneg``) for three random z per head;
    * ``cumGramLayer_getElem?`` / ``cumGramLayer_block_eq_online``: the online (sequential) call on
      x[:t+1] computes A = Φ_res(LN_A(D_t)) from the causal Gram D_t (pyref's deductive ``A`` equals
      LN_A and Φ_res applied to the running sum): sequential scoring of pyref IS the cumulative-Gram
      layer, while the block call uses D_{S−1} for every row (checked: its A is Φ_res(LN_A(D_{S−1}))).

    mp only: the witness is a claim about exact inequality, certified by the 50-digit margin
    (float64 has no rigorous round-off bound through Φ_res and the network). The Gram identities
    compare the same mpf operations in the same order (pyref's object-array matmul sums p = 0, 1, …
    left to right, like the running sum), then identical LN_A/Φ_res calls: bound 1e-40·scale."""
    L, d, seed, x, z = ex
    cfg = _cfg(L, d)
    sd = generic_plga_state_dict(cfg, seed)
    model = pyref.PLDRModel.from_state_dict(sd, cfg)
    b = pyref.get_backend(backend, dps)
    S = len(x)
    blk = model.forward([x], backend=backend, dps=dps)
    pres = [model.forward([x[:t + 1]], backend=backend, dps=dps) for t in range(S)]
    parts = []
    with b.context():
        wit = max([maxabs(blk.logits[0, t] - pres[t].logits[0, -1]) for t in range(1, S - 1)], default=0.0)
    parts.append((0.0 if wit > 1e-30 else 1.0, 0.0, f"no witness row (max deviation {wit:.3e})"))
    # the Lean witness on pyref's density: x = [0, 1], d = 1, head D = D00
    Db = pyref.plga.density(np.array([[0.0], [1.0]]), backend=backend, dps=dps)
    Dp = pyref.plga.density(np.array([[0.0]]), backend=backend, dps=dps)
    parts.append((abs(float(Db[0, 0]) - 1.0) + abs(float(Dp[0, 0])), 0.0, "Lean witness [0, 1]"))
    # the causal cumulative Gram, on layer 0's rotated queries
    qh = _layer0_queries(sd, cfg, x, b)                                   # [H, S, dk]
    with b.context():
        zb = b.asarray(z)
        qf = to_float64(qh)
        T = float(np.max(np.swapaxes(np.abs(qf), -1, -2) @ np.abs(qf)))
        run = None
        for t in range(S):
            o = pyref.plga.density(qh[:, t:t + 1, :], backend=backend, dps=dps)     # q̂_t q̂_tᵀ
            run = o if run is None else run + o
            Dt = pyref.plga.density(qh[:, :t + 1, :], backend=backend, dps=dps)
            parts.append((maxabs(run - Dt), bound(backend, S + 1, T), f"gram_append t={t}"))
            quad = np.sum((zb @ Dt) * zb, axis=-1)                          # [H, 3]: z_kᵀ D_t z_k
            Tz = float(np.max(np.sum((np.abs(z) @ np.abs(to_float64(Dt))) * np.abs(z), axis=-1)))
            parts.append((max(0.0, -float(np.min(to_float64(quad)))), bound(backend, 2 * (d // 2) + 2, Tz),
                          f"gram_quadratic_nonneg t={t}"))
            A_on = _layer0_head_A(sd, cfg, run, b)
            with b.context():
                scale = max(1.0, maxabs(A_on))
                parts.append((maxabs(pres[t].deductive[0]["A"][0] - A_on), bound(backend, 10 ** 4, scale),
                              f"online call uses the causal Gram D_t, t={t}"))
        A_blk = _layer0_head_A(sd, cfg, run, b)
        parts.append((maxabs(blk.deductive[0]["A"][0] - A_blk), bound(backend, 10 ** 4, max(1.0, maxabs(A_blk))),
                      "block call uses the global Gram D_{S-1}"))
    # a witness needs a row 1 ≤ t ≤ S−2 whose allowed keys carry different values: rows attending
    # only copies of one token average identical value vectors whatever the weights (and G)
    return _worst(parts, met=S >= 3 and len(set(x[:S - 1])) >= 2)


@st.composite
def gram_case(draw):
    dk = draw(st.sampled_from([2, 4, 6, 8]))
    S = draw(st.integers(1, 8))
    Q = draw(matrix(S, dk))
    z = draw(matrix(1, dk, structure=False))[0]
    return Q, z


@prop(theorems=[ON + "gram_append", ON + "gramAux_append", ON + "gram_quadratic_nonneg", ON + "gramAux_quadratic_nonneg",
                ON + "dot_mulVec_add", ON + "dot_mulVec_outer"],
      paper="Def 4.8 (the causal Gram's O(d²) online update D_t = D_{t−1} + q̂_t q̂_tᵀ, PSD on every prefix)",
      strategy=gram_case)
def cumulative_gram_running_sum(ex, backend, dps):
    """Rotated queries q̂_p = RoPE(Q)_p at positions 0…S−1 (``pyref.rope.apply_rope``): the running
    sum D_t = D_{t−1} + q̂_t q̂_tᵀ (outer products from ``pyref.plga.density`` of one row) equals
    ``pyref.plga.density`` of the prefix (``gram_append``); zᵀD_t z ≥ 0 (``gram_quadratic_nonneg``);
    zᵀ(D_{t−1} + q̂q̂ᵀ)z = zᵀD_{t−1}z + zᵀ(q̂q̂ᵀ)z (``dot_mulVec_add``) and zᵀ(q̂q̂ᵀ)z = (q̂·z)²
    (``dot_mulVec_outer``).

    float64 bounds: running sum and matmul are two orders of the same t+1 products, each within
    γ_{t+1}·(|Q̂|ᵀ|Q̂|): ``fp_bound(S+1, max |Q̂|ᵀ|Q̂|)``; quadratic forms within γ_{2d+2}·|z|ᵀ|A||z|
    of exact (``fp_bound(2d+2, ·)`` for a comparison of two). mp: 1e-40 times the same scales."""
    Q, z = ex
    S, dk = Q.shape
    b = pyref.get_backend(backend, dps)
    with b.context():
        qh = pyref.rope.apply_rope(b.asarray(Q), positions=list(range(S)), backend=backend, dps=dps)
        zb = b.asarray(z)
        qf = np.abs(to_float64(qh))
        T = float(np.max(qf.T @ qf))
        az = np.abs(z)
        parts = []
        run = None
        for t in range(S):
            o = pyref.plga.density(qh[t:t + 1], backend=backend, dps=dps)
            if run is not None:
                lhs = zb @ ((run + o) @ zb)
                rhs = zb @ (run @ zb) + zb @ (o @ zb)
                Ts = float(az @ (np.abs(to_float64(run)) + np.abs(to_float64(o))) @ az)
                parts.append((maxabs(np.array([lhs - rhs])), _ub(backend, 2 * dk + 2, Ts), "dot_mulVec_add"))
            qz = qh[t] @ zb
            parts.append((maxabs(np.array([zb @ (o @ zb) - qz * qz])), _ub(backend, 2 * dk + 2, float(qf[t] @ az) ** 2),
                          "dot_mulVec_outer"))
            run = o if run is None else run + o
            Dt = pyref.plga.density(qh[:t + 1], backend=backend, dps=dps)
            parts.append((maxabs(run - Dt), _ub(backend, S + 1, T), "gram_append"))
            quad = zb @ (Dt @ zb)
            parts.append((max(0.0, -float(quad)), _ub(backend, 2 * dk + 2, float(az @ np.abs(to_float64(Dt)) @ az)),
                          "gram_quadratic_nonneg"))
    return _worst(parts)


# ==================================================== 5. power law A_P = A_LM^{⊙P} (Prop 3.7)
MODEST = st.sampled_from([1.0, 0.5, 2.0, 1e-3, 10.0])
SCAL = st.sampled_from([0.5, 1.0, 2.0, -1.0, 1.5, -0.25, 0.3])


@st.composite
def power_case(draw):
    dk = draw(st.integers(1, 6))
    H = draw(st.integers(1, 2))
    mats = lambda s: np.stack([draw(matrix(dk, dk, magnitude=MODEST, structure=s)) for _ in range(H)])  # noqa: E731
    A, A2, W, bb = mats(True), mats(True), mats(False), mats(False)
    eps = draw(st.sampled_from([1e-9, 1e-6, 1e-3]))
    expo = lambda: np.stack([draw(matrix(dk, dk, magnitude=st.sampled_from([1.0, 3.0, 0.1]), structure=False))  # noqa: E731
                             for _ in range(H)])
    P, Q = expo(), expo()
    return A, A2, W, bb, eps, P, Q, draw(SCAL), draw(SCAL)


@prop(theorems=[PW + "hadPow_apply", PW + "hadPow_pos", PW + "hadPow_zero", PW + "hadPow_add", PW + "hadPow_add_exponent",
                PW + "hadPow_one", PW + "hadPow_hadPow", PW + "hadLog_hadPow", PW + "hadPow_hadamard_base"],
      paper="Prop 3.7 (the power law A_P = A_LM^{⊙P}: positive, P = 0 gives 𝟙𝟙ᵀ, group law, log-linear form)",
      strategy=power_case)
def power_law_potential_tensor(ex, backend, dps):
    """On ``pyref.plga.potential_tensor`` with A = ``pyref.plga.metric_tensor(A, W, b, ε)`` (the real
    pipeline, A_LM ≥ ε > 0; a second metric tensor B for the base rule), exponents P, Q with
    entries up to 3, scalars s, t:

    * ``hadPow_apply``: A^{⊙P} = exp(P ⊙ log A); ``hadPow_pos``: every entry > 0 (exact);
    * ``hadPow_zero``: P = 0 gives exactly 𝟙𝟙ᵀ (pow(x, 0) = 1 exactly); ``hadPow_one``: A^{⊙𝟙} = A;
    * ``hadPow_add``: A^{⊙(s+t)P} = A^{⊙sP} ⊙ A^{⊙tP}; ``hadPow_add_exponent``: A^{⊙(P+Q)} = A^{⊙P} ⊙ A^{⊙Q};
    * ``hadPow_hadPow``: (A^{⊙P})^{⊙Q} = A^{⊙(Q⊙P)}; ``hadLog_hadPow``: log A^{⊙P} = P ⊙ log A;
    * ``hadPow_hadamard_base``: (A ⊙ B)^{⊙P} = A^{⊙P} ⊙ B^{⊙P}.

    float64 bounds, relative per entry (u = 2⁻⁵³; each numpy pow/exp/log call within 1 ulp ≤ 2u of the
    exact value for its float arguments: measured ≤ 1.1u on this build, glibc ≥ 2.28 < 0.52 ulp): an
    exponent e computed with relative error δ changes x^e by the factor e^{δ·e·log x}, i.e. relative
    |e log x|·δ. With L = max|exponent ⊙ log A| (over the exponents involved) and Mx the largest entry
    compared: apply: log 2u, product u (so 3u|y|), exp 2u, pow 2u → 3uL + 4u ≤ ``fp_bound(2, (L + 2)·Mx)``;
    hadPow_add: exponents (s+t)P rounded twice, sP, tP once, three pows and a product → 3u(|s|+|t|)L + 7u
    ≤ ``fp_bound(3, ((|s|+|t|)L + 4)·Mx)``; hadPow_add_exponent: uL + 7u ≤ ``fp_bound(3, (L + 4)·Mx)``;
    iterated powers: the inner pow's 2u is raised to Q, the exponent Q⊙P rounds → 2u|Q| + uL + 4u ≤
    ``fp_bound(2, (|Q| + L + 3)·Mx)``; log form (absolute): log of a 2u-perturbed value, the log's 2u|y|
    and the right side's 3u|y| → 5uL + 2u ≤ ``fp_bound(3, L + 2)``; base rule: A·B rounds (u, raised to
    P) → u|P| + 7u ≤ ``fp_bound(1, (|P| + 4)·Mx)``; A^{⊙𝟙}: one pow → ``fp_bound(2, Mx)``. mp: 1e-40 times
    the same scales (mpmath's power/exp/log are accurate to a few units of 10⁻⁵⁰)."""
    A, A2, W, bb, eps, P, Q, s, t = ex
    H, dk, _ = A.shape
    b = pyref.get_backend(backend, dps)
    pt = lambda X, E: pyref.plga.potential_tensor(X, E, backend=backend, dps=dps)  # noqa: E731
    ALM = pyref.plga.metric_tensor(A, W, bb, eps=eps, backend=backend, dps=dps)
    BLM = pyref.plga.metric_tensor(A2, W, bb, eps=eps, backend=backend, dps=dps)
    parts = []
    with b.context():
        Pb, Qb, sb, tb = conv(backend, dps, P, Q, np.array(s), np.array(t))
        logA = b.log(ALM)
        lA = np.abs(to_float64(logA))
        aP, aQ = np.abs(P), np.abs(Q)
    AP = pt(ALM, Pb)
    with b.context():
        APf = to_float64(AP)
        # positivity (exact): the smallest entry is ≥ exp(−max|P log A|) ≥ e^{−70}, far from underflow
        parts.append((float(np.sum(~np.asarray(AP > 0, dtype=bool))), 0.0, "hadPow_pos"))
        ref = b.exp(Pb * logA)
        Ly = float(np.max(aP * lA))
        parts.append((maxabs(AP - ref), bound(backend, 2, (Ly + 2) * max(np.max(APf), maxabs(ref))), "hadPow_apply"))
    Z = pt(ALM, np.zeros_like(P))
    with b.context():
        parts.append((maxabs(Z - b.asarray(np.ones_like(P))), 0.0, "hadPow_zero"))
    A1 = pt(ALM, np.ones_like(P))
    with b.context():
        parts.append((maxabs(A1 - ALM), bound(backend, 2, maxabs(ALM)), "hadPow_one"))
        sP, tP, stP = Pb * sb, Pb * tb, Pb * (sb + tb)
    lhs, r1, r2 = pt(ALM, stP), pt(ALM, sP), pt(ALM, tP)
    with b.context():
        rhs = r1 * r2
        Ls = (abs(s) + abs(t)) * Ly
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append((maxabs(lhs - rhs), bound(backend, 3, (Ls + 4) * Mx), "hadPow_add"))
        PQ = Pb + Qb
    lhs, r2 = pt(ALM, PQ), pt(ALM, Qb)
    with b.context():
        rhs = AP * r2
        Lpq = float(np.max((aP + aQ) * lA))
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append((maxabs(lhs - rhs), bound(backend, 3, (Lpq + 4) * Mx), "hadPow_add_exponent"))
        QP = Qb * Pb
    lhs, rhs = pt(AP, Qb), pt(ALM, QP)
    with b.context():
        Lqp = float(np.max(aQ * aP * lA))
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append((maxabs(lhs - rhs), bound(backend, 2, (float(np.max(aQ)) + Lqp + 3) * Mx), "hadPow_hadPow"))
        parts.append((maxabs(b.log(AP) - Pb * logA), bound(backend, 3, Ly + 2), "hadLog_hadPow"))
        AB = ALM * BLM
    lhs, rB = pt(AB, Pb), pt(BLM, Pb)
    with b.context():
        rhs = AP * rB
        Mx = max(maxabs(lhs), maxabs(rhs))
        parts.append((maxabs(lhs - rhs), bound(backend, 1, (float(np.max(aP)) + 4) * Mx), "hadPow_hadamard_base"))
    return _worst(parts)


# ============================================== 6. the DAG regularizer (Thm 4.4, Rem 4.5)
DAG_MAG = st.sampled_from([0.05, 0.1, 0.3, 0.5])


@st.composite
def dag_case(draw):
    dk = draw(st.integers(1, 6))
    H = draw(st.integers(1, 2))
    mats = lambda s: np.stack([draw(matrix(dk, dk, magnitude=DAG_MAG, structure=s)) for _ in range(H)])  # noqa: E731
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


@prop(theorems=[DG + "matPow_entry_nonneg", DG + "trace_matPow_nonneg", DG + "expTracePartial_le_succ",
                DG + "expTracePartial_mono", DG + "expTracePartial_ge_card_add_trace", DG + "trace_exp_ge_card_add_trace",
                DG + "trace_exp_ge_card_add_trace_of_convergesTo", DG + "trace_exp_ge_card", DG + "trace_ge_of_diag_bound",
                DG + "trace_exp_ge_of_diag_bound", DG + "trace_exp_hadamard_self_ge", DG + "dagLoss_ge_log_one_add_sq",
                DG + "log_one_add_sq_pos", DG + "dagLoss_pos", DG + "dagLoss_nonneg", ST + "matPow_succ'"],
      paper="Thm 4.4 (walk side) / Rem 4.5 (the DAG loss of PLGA's positive tensors is bounded away from 0)",
      strategy=dag_case)
def dag_positivity_obstruction(ex, backend, dps):
    """M = pyref's A_LM (``pyref.plga.metric_tensor``, entries ≥ ε = min M > 0), N = M ⊙ M (the
    tensor pyref's ``dag_terms`` exponentiates), per head:

    * ``matPow_entry_nonneg`` / ``trace_matPow_nonneg``: N^k ≥ 0 entrywise, tr N^k ≥ 0 (k ≤ 6; exact:
      sums of products of nonnegatives round to nonnegatives); ``matPow_succ'``: N^k N = N N^k;
    * partial sums S_K = Σ_{k≤K} tr(N^k)/k! (K ≤ 18): nondecreasing (exact: adding a nonnegative term
      never decreases a rounded sum), S_K ≥ d + tr N for K ≥ 1 (exact, same reason);
    * on T = tr ``pyref.losses.expm``(N) (the limit of the S_K): S_K ≤ T (the hypothesis hT, K ≤ 18),
      T ≥ d + tr N ≥ d, T ≥ d + d·c (c = min_i N_ii), T ≥ d(1 + ε²) (``trace_exp_hadamard_self_ge``);
    * on ``pyref.losses.dag_terms``(M) = |log(T/d)|: ≥ log(1 + ε²) and > 0 (certified when log(1 + ε²)
      exceeds the bound; always at 50 digits); log(T/d) ≥ 0 without the |·| (``dagLoss_nonneg``);
      ``dag_loss`` = the mean over heads, ``dag_regularizer`` with (c_A, 0, 0) = c_A·dag_loss ≥
      c_A·log(1 + ε_min²) > 0.

    float64 bounds. pyref's expm (scaling and squaring of a degree-18 Taylor polynomial P) on a
    nonnegative N only adds and multiplies nonnegatives, so its result is within the componentwise
    relative error γ_K (K from :func:`_expm_K`) of P(X)^{2^s}, X = N/2^s; and P(X)^{2^s} ≥ (I + X)^{2^s} ≥
    I + N, while its coefficients of N^n (n ≤ 18) are exactly 1/n!, so tr P(X)^{2^s} ≥ S_18(N) ≥ S_K,
    and P(X)^{2^s} ≤ e^N. Hence violations of the lower bounds are ≤ (γ_K + γ_{d+3})·(bound value)
    → ``fp_bound(K + d + 3, value)``, of S_K ≤ T ≤ (γ_K + γ_{Ks})·S_K (Ks = 18(d + 3) + d, the partial
    sums' own rounding), and the DAG value is within γ_K + 3u(1 + |log|) of |log(tr e^N/d)| →
    ``fp_bound(K + 3, 1 + value)``. mp: mpmath.expm works 10 + 2j bits above 50 digits (j ≥ log₂‖N‖ + 6)
    with j squarings; its relative error is far below the 1e-40·scale harness bound. The powers:
    ``fp_bound(k(d+1), max N^{k+1})`` (nonnegative chains)."""
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
        Nh = N[h]
        K = _expm_K(Nf[h])
        Ks = 18 * (d + 3) + d
        with b.context():
            ident = b.eye(d)
            P = ident
            powers = [P]
            for k in range(1, 19):
                P = P @ Nh
                powers.append(P)
            neg = sum(float(np.sum(to_float64(powers[k]) < 0)) for k in range(7))
            neg += sum(float(to_float64(np.trace(powers[k])) < 0) for k in range(7))
            parts.append((neg, 0.0, "matPow_entry_nonneg / trace_matPow_nonneg"))
            for k in (1, 3, 5):
                alt = Nh @ powers[k]
                parts.append((maxabs(alt - powers[k + 1]), bound(backend, (k + 1) * (d + 1), float(np.max(to_float64(powers[k + 1])))),
                              "matPow_succ'"))
            Ssum, S_list = b.const(0), []
            for k in range(19):
                Ssum = Ssum + np.trace(powers[k]) / b.const(math.factorial(k))
                S_list.append(Ssum)
            S1 = S_list[1]
            mono = sum(float(S_list[k + 1] < S_list[k]) for k in range(18))
            ge = sum(float(S_list[k] < S1) for k in range(1, 19))
            parts.append((mono + ge, 0.0, "expTracePartial_mono / _ge_card_add_trace"))
            T = np.trace(E[h])
            trN = np.trace(Nh)
            dpt = b.const(d) + trN
            parts.append((max(0.0, float(dpt - T)), bound(backend, K + d + 3, float(dpt)), "trace_exp_ge_card_add_trace"))
            parts.append((max(0.0, float(b.const(d) - T)), bound(backend, K + d + 3, d), "trace_exp_ge_card"))
            cmin = np.min(np.diagonal(Nh))
            ddc = b.const(d) + b.const(d) * cmin
            parts.append((max(0.0, float(ddc - T)), bound(backend, K + d + 3, float(ddc)), "trace_exp_ge_of_diag_bound"))
            parts.append((max(0.0, float(b.const(d) * cmin - trN)), bound(backend, d + 1, float(trN)), "trace_ge_of_diag_bound"))
            e_h = np.min(M[h])
            eps_min.append(e_h)
            dee = b.const(d) * (1 + e_h * e_h)
            parts.append((max(0.0, float(dee - T)), bound(backend, K + d + 3, float(dee)), "trace_exp_hadamard_self_ge"))
            for k in range(19):
                parts.append((max(0.0, float(S_list[k] - T)), bound(backend, K + Ks, float(S_list[k])),
                              f"S_{k} ≤ tr expm(N) (hT)"))
            lg = b.log(T / b.const(d))
            parts.append((max(0.0, -float(lg)), bound(backend, K + 3, 1.0), "dagLoss_nonneg"))
        with mpmath.workdps(80):
            e80, t80 = _mp(np.array([e_h, terms[h]], dtype=object))
            low = mpmath.log(1 + e80 * e80)
            short = float(max(mpmath.mpf(0), low - t80))               # exact difference
        tv = float(terms[h])
        bnd = bound(backend, K + 3, 1.0 + abs(tv))
        parts.append((short, bnd, "dagLoss_ge_log_one_add_sq"))
        if float(low) > 2 * bnd:
            parts.append((0.0 if terms[h] > 0 else 1.0, 0.0, "dagLoss_pos / log_one_add_sq_pos"))
    with b.context():
        DL = pyref.losses.dag_loss(M, backend=backend, dps=dps)
        tot = b.const(0)
        for v in terms:
            tot = tot + v
        mean = tot / H
        tmax = float(max(abs(float(v)) for v in terms))
        parts.append((abs(float(DL - mean)), bound(backend, H + 2, tmax), "dag_loss = mean of dag_terms"))
        reg = pyref.losses.dag_regularizer([{"A_LM": M[None], "A_P": None, "G_LM": None}], coeffs=(coef, 0.0, 0.0),
                                           backend=backend, dps=dps)
        cb = b.const(coef)
        parts.append((abs(float(reg - cb * DL)), bound(backend, 4, coef * tmax), "dag_regularizer = c_A·DL(A_LM)"))
        emin = min(eps_min, key=float)
    with mpmath.workdps(80):
        e80, r80, c80 = _mp(np.array([emin, reg, cb], dtype=object))   # c_A as pyref reads it (mp: decimal)
        low = c80 * mpmath.log(1 + e80 * e80)
        short = float(max(mpmath.mpf(0), low - r80))
        low = float(low)
    Kmax = max(_expm_K(Nf[h]) for h in range(H))
    bnd = bound(backend, Kmax + H + 8, coef * (1.0 + tmax))
    parts.append((short, bnd, "dag_regularizer ≥ c_A·log(1 + ε²)"))
    if low > 2 * bnd:
        parts.append((0.0 if reg > 0 else 1.0, 0.0, "dag_regularizer > 0"))
    return _worst(parts, met=met)


@st.composite
def dag_upper_case(draw):
    dk = draw(st.integers(2, 6))
    mats = lambda s: draw(matrix(dk, dk, magnitude=DAG_MAG, structure=s))  # noqa: E731
    return mats(True), mats(False), mats(False), draw(st.sampled_from([1e-9, 1e-3, 0.1]))


@prop(theorems=[DG + "matPow_entry_eq_zero_of_strictUpper", DG + "trace_matPow_eq_zero_of_strictUpper",
                DG + "expTracePartial_eq_card_of_strictUpper", DG + "dagLoss_eq_zero_of_strictUpper"],
      paper="Rem 4.5 contrast (NOTEARS: an acyclic, topologically ordered graph has tr e^N = d and DAG loss 0)",
      strategy=dag_upper_case)
def dag_acyclic_zero(ex, backend, dps):
    """M = the strictly upper-triangular part of pyref's A_LM (``metric_tensor``), N = M ⊙ M (strictly
    upper, nonnegative): (N^k)_{ij} = 0 whenever j < i + k (k ≤ d + 1); tr N^k = 0 (k ≥ 1); every
    partial sum S_K = d (K ≤ 18); tr ``pyref.losses.expm``(N) = d and ``pyref.losses.dag_terms``(M) = 0.

    Bound 0 on both backends: every entry claimed zero is a sum of products each having an exact
    zero factor (no infinities occur), hence exactly 0 (also with FMA); pyref's float64 expm keeps an
    exactly unit diagonal (Horner: (X E)_ii sums products X_il E_li with X_il = 0 for l ≤ i and
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


# ======================================================= 7. rank-one matrices (Prop 3.9)
@st.composite
def rank_one_case(draw):
    d = draw(st.integers(2, 8))
    alpha = draw(matrix(1, d, magnitude=MODEST, structure=False))[0]
    seed = draw(st.integers(0, 2 ** 16))
    h = draw(st.integers(1, 5))
    n_units = draw(st.integers(1, 2))
    v = draw(matrix(1, d, structure=False))[0]
    kdet = draw(st.integers(13, 16))
    return alpha, seed, h, n_units, v, kdet


@prop(theorems=[R1 + "rowClone_mul_self", R1 + "rowClone_pow", R1 + "rowClone_mulVec_one", R1 + "rowClone_mulVec",
                R1 + "rowClone_sq_eq_zero", R1 + "rowClone_pow_eq_zero", R1 + "rowClone_minor2_eq_zero",
                R1 + "rowClone_exists_kernel_vector", R1 + "det_rowClone", R1 + "det_one_by_one"],
      paper="Prop 3.9 (identical rows 𝟙αᵀ: A² = (Σα)A, nilpotent when Σα = 0, det 0, σ₂/σ₁ = 0, rank 1)",
      strategy=rank_one_case)
def rank_one_identities(ex, backend, dps):
    """α' = φ(α), the row that pyref's Φ_res (LN_A then ``residual_metric_learner`` with random
    units) maps the identical-rows input 𝟙αᵀ to (``phi_res_row_local`` checks that every output row
    is φ(α)); A = 𝟙α'ᵀ (d ≥ 2):

    * ``rowClone_mul_self`` A² = (Σα')A; ``rowClone_pow`` A^{k+1} = (Σα')^k A (k ≤ 4);
      ``rowClone_mulVec_one`` A𝟙 = (Σα')𝟙; ``rowClone_mulVec`` Av = (α'·v)𝟙;
    * nilpotency (``rowClone_sq_eq_zero``, ``rowClone_pow_eq_zero``): for a⁰ with a⁰_{2j+1} = −a⁰_{2j}
      (taken from α', so Σa⁰ = 0 exactly), (𝟙a⁰ᵀ)^k = 0 for k = 2…4;
    * ``rowClone_minor2_eq_zero``: all 2×2 minors vanish (exact: a_j a_j' − a_j' a_j);
      ``rowClone_exists_kernel_vector``: v = (α'_1, −α'_0, 0, …) (e_0 if both vanish) has Av = 0;
    * ``det_rowClone``: ``pyref.analysis.det`` at 50 digits is exactly 0 (the LU of identical rows
      eliminates them exactly); its float32 value need not be 0 (LAPACK multiplies by a rounded
      reciprocal pivot, so the multipliers are 1 ± 2u₃₂ and the eliminated rows keep O(u₃₂) residues;
      measured up to ~1e-16), but it is bounded: after the first elimination every entry is
      ≤ 4u₃₂·max|α'|, partial pivoting grows entries by ≤ 2^{d−2} (taken as 2^d for the rounding of
      the blocked updates), so |det₃₂| ≤ max|α'|·(2^d·4u₃₂·max|α'|)^{d−1}; the paper's contrast: for the full-rank
      2⁻¹²(I + E) of size 13…16 (‖E‖_∞ ≤ ¼, so |det| ≥ 2^{−12n}(¾)^n > 0) the float32 determinant
      underflows to 0 while the 50-digit one is certified nonzero: a float32 zero determinant is
      underflow, not rank; ``det_one_by_one``: det [[x]] = x exactly;
    * ``pyref.analysis.singular_ratio``(A) = σ₂/σ₁ ≈ 0 and ``numerical_rank``(A) = 1 (exact).

    float64 bounds (Higham §3.1): A² and (Σα')A within 2γ_{d+1}·Σ|α'|·max|α'|; powers within
    2γ_{k(d+2)}(Σ|α'|)^k max|α'|; A𝟙, Av within 2γ_d·Σ|α'||v|; the nilpotent powers within
    γ_{k(d+1)}(Σ|a⁰|)^{k−1}max|a⁰| of 0; Av (kernel) within γ_{d+1}·2|α'_0α'_1| of 0 (an FMA may leave the
    rounding error of α'_0α'_1). singular_ratio is a float64 SVD: LAPACK's singular-value error bound
    p(d)·u·σ₁ (LAPACK Users' Guide §4.9) with p(d) taken as d² gives σ₂/σ₁ ≤ ``fp_bound(d², 1)``,
    far below numerical_rank's threshold 64·eps_f32. mp: 1e-40 times the same scales."""
    alpha, seed, h, n_units, v, kdet = ex
    d = len(alpha)
    rng = np.random.default_rng(seed)
    units = _phi_units(rng, d, h, n_units, 2)
    gA, bA = rng.uniform(0.5, 1.5, d), rng.uniform(-1, 1, d)
    Phi = _phi_res_mat(np.tile(alpha, (d, 1)), gA, bA, units, 1e-6, backend, dps)
    b = pyref.get_backend(backend, dps)
    parts = []
    with b.context():
        a = Phi[0].copy()
        af = np.abs(to_float64(a))
        A = np.stack([a] * d)                                  # 𝟙 α'ᵀ, exact
        sa = np.sum(a)
        Sabs, amax = float(np.sum(af)), float(np.max(af))
        parts.append((maxabs(A @ A - sa * A), _ub(backend, d + 1, Sabs * amax), "rowClone_mul_self"))
        Pk = A
        for k in range(1, 5):
            Pk = Pk @ A
            parts.append((maxabs(Pk - (sa ** k) * A), _ub(backend, k * (d + 2), Sabs ** k * amax), f"rowClone_pow k={k}"))
        one = b.asarray(np.ones(d))
        parts.append((maxabs(A @ one - sa * one), _ub(backend, d, Sabs), "rowClone_mulVec_one"))
        vb = b.asarray(v)
        parts.append((maxabs(A @ vb - (a @ vb) * one), _ub(backend, d, float(af @ np.abs(v))), "rowClone_mulVec"))
        a0 = a.copy()
        for j in range(0, d - 1, 2):
            a0[j + 1] = -a0[j]
        if d % 2:
            a0[d - 1] = b.const(0)
        A0 = np.stack([a0] * d)
        a0f = np.abs(to_float64(a0))
        P0 = A0
        for k in range(2, 5):
            P0 = P0 @ A0
            parts.append((maxabs(P0), _ub(backend, k * (d + 1), float(np.sum(a0f)) ** (k - 1) * float(np.max(a0f))),
                          f"rowClone_pow_eq_zero k={k}"))
        minors = 0.0
        for i in range(d):
            for i2 in range(d):
                # entry (j, j'): A_ij A_i'j' − A_ij' A_i'j
                minors = max(minors, maxabs(np.outer(A[i], A[i2]) - np.outer(A[i2], A[i])))
        parts.append((minors, 0.0, "rowClone_minor2_eq_zero"))
        if a[0] == 0 and a[1] == 0:
            kv = b.asarray(np.eye(d)[0])
        else:
            kv = b.zeros(d)
            kv[0], kv[1] = a[1], -a[0]
        nonzero = any(t != 0 for t in kv)
        parts.append((maxabs(A @ kv) + (0.0 if nonzero else 1.0), _ub(backend, d + 1, 2 * float(af[0] * af[1])),
                      "rowClone_exists_kernel_vector"))
    det_mp = pyref.analysis.det(A, dps=dps)
    parts.append((abs(float(det_mp)), 0.0, "det_rowClone (50 digits: exactly 0)"))
    det32 = pyref.analysis.det(to_float64(A), backend="float32")
    u32 = 2.0 ** -24
    parts.append((abs(float(det32)), amax * (2.0 ** d * 4 * u32 * amax) ** (d - 1), "det_rowClone (float32 LU)"))
    x0 = A[0, 0]
    parts.append((abs(float(pyref.analysis.det(np.array([[x0]], dtype=object if b.is_mp else float), dps=dps) - x0)), 0.0,
                  "det_one_by_one"))
    # float32 zero determinant = underflow, not rank: a certified nonsingular 2^-12 (I + E)
    E = np.random.default_rng(seed + 1).uniform(-1, 1, (kdet, kdet)) / (4 * kdet)
    B = (np.eye(kdet) + E) * 2.0 ** -12
    dB = pyref.analysis.det(B, dps=dps)
    with mpmath.workdps(dps):
        lower = mpmath.mpf(2) ** (-12 * kdet) * mpmath.mpf(0.75) ** kdet
        certified = abs(dB) >= lower * (1 - mpmath.mpf(10) ** -40)
    d32 = pyref.analysis.det(B, backend="float32")
    parts.append((0.0 if (certified and float(d32) == 0.0) else 1.0, 0.0, "float32 det underflow vs 50-digit det"))
    Af = to_float64(A)
    met = bool(np.any(Af != 0))
    if met:
        parts.append((pyref.analysis.singular_ratio(Af), 2 * gamma(d * d), "singular_ratio (float64 SVD)"))
        parts.append((float(pyref.analysis.numerical_rank(Af) != 1), 0.0, "numerical_rank = 1"))
    return _worst(parts, met=met)


# ======================================================= 8. Φ_res is a row map (Prop 3.11)
@st.composite
def rowmap_case(draw):
    d = draw(st.sampled_from([2, 3, 4, 6]))
    H = draw(st.integers(1, 3))
    m = draw(st.integers(1, d + 2))
    A = np.stack([draw(matrix(m, d, magnitude=MODEST)) for _ in range(H)])
    seed = draw(st.integers(0, 2 ** 16))
    hdim = draw(st.integers(1, 5))
    n_units = draw(st.integers(1, 2))
    n_blocks = draw(st.integers(1, 2))
    eps = draw(st.sampled_from([1e-6, 1e-3]))
    src = (draw(st.integers(0, H - 1)), draw(st.integers(0, m - 1)))
    dst = (draw(st.integers(0, H - 1)), draw(st.integers(0, m - 1)))
    alpha = draw(matrix(1, d, magnitude=MODEST, structure=False))[0]
    return A, seed, hdim, n_units, n_blocks, eps, src, dst, alpha


@prop(theorems=[RM + "phiResMat_apply", RM + "phiResMat_rowLocal", RM + "phiResMat_row_eq", RM + "phiResMat_rowClone",
                RM + "swigluMat_apply", RM + "unitMat_apply", RM + "leftMul_not_rowLocal"],
      paper="Prop 3.11 (Φ_res acts on every row by one shared map; the metric's W·A is not row-local)",
      strategy=rowmap_case, backends=("mp",))
def phi_res_row_local(ex, backend, dps):
    """Lean ``phiResMat`` = pyref's LN_A (``layer_norm`` with γ_A, β_A) followed by
    ``pyref.plga.residual_metric_learner`` (random units: 1–2 residual units of 1–2 SwiGLU blocks,
    random LayerNorm γ, β) on inputs [H, m, d]:

    * ``phiResMat_apply`` / ``phiResMat_rowLocal``: output row (h, i) equals Φ_res applied to row
      (h, i) alone (a 1 × d input); the same for one unit (``unitMat_apply``) and for one SwiGLU block
      (``pyref.layers.swiglu``, ``swigluMat_apply``);
    * ``phiResMat_row_eq``: after copying row (h, i) into row (h', i') — across heads — the two output
      rows are equal, and equal to the output row of a different-size input holding that row;
    * ``phiResMat_rowClone``: Φ_res(𝟙αᵀ) has every row equal to φ(α) (rank-one stays rank-one);
    * ``leftMul_not_rowLocal``, on ``pyref.plga.metric_tensor`` (A_LM = iSwiGLU(W A + b) + ε, the metric
      step's left multiplication): the Lean witness W = [[0, 1], [1, 0]], A = 0, A' = [[0, 0], [1, 1]]
      gives output rows 0 of ε·𝟙 versus (σ(1) + ε)·𝟙 although the input rows 0 agree; and with
      random W, changing one other row of A changes row i. Differences must exceed 1e-30 (certified:
      10¹⁰ times the 50-digit bound). (Had pyref multiplied A·W — row-local — this would fail.)

    mp only, bound 0 for the row-map identities: numpy evaluates object-array matmuls entry by entry
    as the same left-to-right sum of the same mpf products whatever the number of rows, and the
    LayerNorm reductions run over the last axis only, so a row computed alone or inside a batch
    undergoes identical mpf operations (measured: exactly equal). In float64, BLAS blocking depends
    on the row count (rows differ by ulps, measured ~2e-15) and Φ_res's LayerNorms amplify such
    differences by up to 1/√(var + ε); no a-priori bound is derived for that."""
    A, seed, hdim, n_units, n_blocks, eps, src, dst, alpha = ex
    H, m, d = A.shape
    rng = np.random.default_rng(seed)
    units = _phi_units(rng, d, hdim, n_units, n_blocks)
    gA, bA = rng.uniform(0.5, 1.5, d), rng.uniform(-1, 1, d)
    phi = lambda X, us=units: _phi_res_mat(X, gA, bA, us, eps, backend, dps)  # noqa: E731
    b = pyref.get_backend(backend, dps)
    parts = []
    out = phi(A)
    one_unit = pyref.plga.residual_metric_learner(A, units[:1], eps=eps, backend=backend, dps=dps)
    blk = units[0]["blocks"][0]
    sw = pyref.layers.swiglu(A, *blk, backend=backend, dps=dps)
    dev = 0.0
    for h in range(H):
        for i in range(m):
            row = A[h, i:i + 1]
            with b.context():
                dev = max(dev, maxabs(out[h, i] - phi(row)[0]))
                dev = max(dev, maxabs(one_unit[h, i] - pyref.plga.residual_metric_learner(row, units[:1], eps=eps,
                                                                                          backend=backend, dps=dps)[0]))
                dev = max(dev, maxabs(sw[h, i] - pyref.layers.swiglu(row, *blk, backend=backend, dps=dps)[0]))
    parts.append((dev, 0.0, "phiResMat_apply / unitMat_apply / swigluMat_apply"))
    A2 = A.copy()
    A2[dst] = A[src]
    out2 = phi(A2)
    other = np.concatenate([rng.uniform(-1, 1, (2, d)), A[src][None]], axis=0)   # a 3-row input holding the row
    out3 = phi(other)
    with b.context():
        parts.append((maxabs(out2[dst] - out2[src]) + maxabs(out2[src] - out3[2]), 0.0, "phiResMat_row_eq"))
    C = phi(np.tile(alpha, (d, 1)))
    ref = phi(alpha[None])[0]
    with b.context():
        parts.append((max(maxabs(C[i] - ref) for i in range(d)), 0.0, "phiResMat_rowClone"))
    # the metric's left multiplication is not row-local
    Wsw = np.array([[0.0, 1.0], [1.0, 0.0]])
    Z2 = np.zeros((2, 2))
    m0 = pyref.plga.metric_tensor(Z2, Wsw, Z2, eps=1e-9, backend=backend, dps=dps)
    m1 = pyref.plga.metric_tensor(np.array([[0.0, 0.0], [1.0, 1.0]]), Wsw, Z2, eps=1e-9, backend=backend, dps=dps)
    with b.context():
        wit = maxabs(m0[0] - m1[0])
    parts.append((0.0 if wit > 1e-30 else 1.0, 0.0, "leftMul_not_rowLocal (Lean witness)"))
    if d >= 2:
        W = rng.uniform(0.5, 1.5, (d, d)) * rng.choice([-1.0, 1.0], (d, d))   # no zero entries
        bias = rng.uniform(-1, 1, (d, d))
        Ad = rng.uniform(-1, 1, (d, d))
        Ad2 = Ad.copy()
        i, j = 0, 1
        Ad2[j] = Ad[j] + rng.uniform(0.5, 1.0, d)
        n0 = pyref.plga.metric_tensor(Ad, W, bias, eps=1e-9, backend=backend, dps=dps)
        n1 = pyref.plga.metric_tensor(Ad2, W, bias, eps=1e-9, backend=backend, dps=dps)
        with b.context():
            wit2 = maxabs(n0[i] - n1[i])
        parts.append((0.0 if wit2 > 1e-30 else 1.0, 0.0, "leftMul_not_rowLocal (random W)"))
    return _worst(parts)
