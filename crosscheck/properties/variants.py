"""Properties for ``Formal/Variants`` (issue 10: KLA, Gated DeltaNet / KDA, mHC, Attention
Residuals), evaluated on :mod:`pyref.variants` (``kla``, ``deltanet``, ``mhc``, ``attnres``).
The formulas are those of ``VARIANTS.md``; every property restates one claim of it and checks
pyref against it on generated inputs, on the ``mp`` (50 digits) and ``float64`` backends.

:data:`LEAN` maps every property to the ``Formal/Variants`` theorems (namespaces
``PLGA.Variants.{DeltaNet,Mhc,Kla,KlaChunk,AttnRes}``) whose statements it checks;
:data:`JUSTIFY` gives a one-line reason for every other theorem there (helpers, definitional
unfoldings, sum/index algebra used only inside proofs, fixed Rat illustrations).

**Inputs.** Entries are drawn from ``[-1, 1]`` (Hypothesis' own mix of edge values; every nonzero
``|x| < 1e-4`` is moved to ``±(0.5 + |x|)``, an exact 0 stays), times a magnitude from a few
decades: nonzero entries are ≥ 1e-7 in size, so no product chain
of these properties (≤ ~100 factors of size ≥ 1e-7, and decay products ≥ 0.05^10) comes near
the float64 underflow threshold, and the relative-error model below holds without
gradual-underflow terms.

**Error bounds (derived, not tuned).** Every float64 bound is an a-priori bound of the form
``|fl(f) − f| ≤ γ_D · f_abs`` (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1–3.5,
Lemma 3.3): for a straight-line program of +, −, × (and divisions by quantities computed from
positive terms only, which carry relative errors), each computed value obeys
``|x̂ − x| ≤ γ_p X`` where ``X`` is the same program evaluated on absolute values with every −
turned into + (``f_abs``), and the index ``p`` grows by one per operation, adds over the two
factors of a product, and by ``k`` for a k-term sum.  The properties compute ``f_abs`` in float64
(``_abs_*`` helpers; relative error < 1e-12 for these sizes, covered by the factor ``SLACK``) and
state the index ``D`` they use (an upper bound on ``p``, derived in each docstring).  Comparing two
evaluations of the same exact quantity uses :func:`~._util.bound` (``2 γ_D max T``, the larger of
the two majorants).  ``mp`` runs at 50 digits with :func:`~._util.mp_bound` (``1e-40·T``: every
chain here has < 10⁴ roundings).

Witness (non-vacuity) claims -- "the two orders differ", "averaging the halves is wrong", "the
transfer can amplify", "a zero candidate changes the weights" -- are checked quantitatively: the
property derives the exact size of the effect, counts the example as meeting the hypotheses
only when that size is far above the round-off bound, and then requires pyref's values to show
the effect (a deviation of 1.0 is reported otherwise).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64
from pyref.variants import attnres, deltanet, kla, mhc

from ..mutants import Mutant
from ..registry import Outcome, prop
from ._util import U64, bound, conv, ctx, maxabs, mp_bound

_DN, _MH, _KL, _KC, _AR = ("PLGA.Variants." + s + "." for s in ("DeltaNet", "Mhc", "Kla", "KlaChunk", "AttnRes"))

#: property name -> the Lean theorems whose statements it checks on pyref
LEAN: dict[str, list[str]] = {
    # KLA (VARIANTS.md §2; Formal/Variants/Kla.lean, KlaChunk.lean)
    "kla_residual_contraction": [_KL + "kla_residual_contraction", _KL + "kla_factor_nonneg",
                                 _KL + "kla_factor_lt_one", _KL + "kla_residual_eps_zero",
                                 _KL + "kla_step_is_gdn_step"],
    "kla_minimum_change": [_KL + "proj_write_solves", _KL + "increment_orthogonal",
                           _KL + "kla_projection_min_change"],
    "kla_line_search": [_KL + "residual_write", _KL + "sqLoss_line", _KL + "line_search_exact",
                        _KL + "kla_worked_example"],
    "kla_proximal_equivalence": [_KL + "prox_minimizer", _KL + "kla_beta_eq_prox_coeff",
                                 _KL + "kla_write_solves_prox"],
    "kla_interference": [_KL + "kla_interference", _KL + "readout_write"],
    "kla_chunkwise_equals_recurrence": [_KC + "recurrence_solves_system", _KC + "system_solution_unique",
                                        _KC + "chunk_output_eq_recurrence", _KC + "chunk_state_eq_recurrence"],
    # Gated DeltaNet / KDA (§1; Formal/Variants/DeltaNet.lean)
    "deltanet_chunking_equals_sequential": [_DN + "aff_comp_apply", _DN + "chunkAff_apply",
                                            _DN + "chunked_trace_eq_sequential", _DN + "chunked_states_eq_sequential",
                                            _DN + "chunked_outputs_eq_sequential", _DN + "chunked_final_eq_sequential"],
    "deltanet_order_matters": [_DN + "step_eq_affine", _DN + "scalar_gate_commutes", _DN + "gate_order_differs"],
    "deltanet_beta_one_not_invertible": [_DN + "unit_write_overwrites_row", _DN + "unit_write_forgets_row",
                                         _DN + "unit_write_not_injective"],
    # mHC (§3; Formal/Variants/Mhc.lean)
    "mhc_doubly_stochastic_nonexpansive": [_MH + "weighted_mean_sq_le", _MH + "doublyStochastic_normSq_le"],
    "mhc_products_doubly_stochastic": [_MH + "doublyStochastic_mul", _MH + "doublyStochastic_mul_normSq_le"],
    "mhc_sinkhorn_column_step": [_MH + "colStep_colSum", _MH + "colStep_colSum_of_pos", _MH + "rowStep_rowSum"],
    "mhc_sinkhorn_iterates": [_MH + "sinkhorn_round_row_sum", _MH + "sinkhorn_orders_differ"],
    "mhc_transfer_can_amplify": [_MH + "mhc_transfer_amplifies"],
    # Attention Residuals (§4; Formal/Variants/AttnRes.lean)
    "attnres_two_phase_merge": [_AR + "two_phase_merge_eq_one_pass", _AR + "depthRead_shift"],
    "attnres_average_halves_differs": [_AR + "average_of_halves_differs"],
    "attnres_zero_query_uniform": [_AR + "scores_zero_query", _AR + "zero_query_uniform",
                                   _AR + "zero_query_readout", _AR + "zero_query_not_identity"],
    "attnres_zero_gate_identity": [_AR + "zero_gate_identity"],
    "attnres_zero_candidate_changes_weights": [_AR + "rmsNorm_zero", _AR + "zero_candidate_partition",
                                               _AR + "zero_candidate_lowers_weights"],
}

#: theorems of Formal/Variants with no numeric counterpart of their own, and why
JUSTIFY: dict[str, str] = {
    # DeltaNet.lean
    _DN + "gdn_readout_apply": "definitional unfolding of the read-out Sᵀq into a sum; nothing to measure",
    _DN + "gdn_diag_mul_apply": "entry formula (Diag(d)S)_ij = d_i S_ij, the definition pyref's decay implements; a matrix-algebra helper",
    _DN + "gdn_mul_diag_apply": "entry formula (A Diag(d))_ij = A_ij d_j; matrix-algebra helper used inside proofs",
    _DN + "gdn_outer_mul_apply": "(u wᵀ)X = u (Xᵀw)ᵀ entrywise; sum-algebra helper used inside proofs",
    _DN + "aff_id_apply": "the identity affine map (I, 0) acts as the identity; structural base case of chunkAff_apply",
    _DN + "run_append": "running l₁ ++ l₂ = running l₁ then l₂; list recursion, no arithmetic",
    _DN + "trace_append": "the trace of l₁ ++ l₂ is the concatenation of traces; list recursion, no arithmetic",
    _DN + "chunkTrace_eq_trace": "structural induction step of chunked_trace_eq_sequential (whose instances are checked by deltanet_chunking_equals_sequential)",
    # Mhc.lean
    _MH + "mhc_mul_self_nonneg": "a·a ≥ 0 in an ordered ring; order helper (rounding preserves the sign of a square)",
    _MH + "mhc_fin2_cases": "every i : Fin 2 is 0 or 1; case-split helper for the Rat examples",
    _MH + "mix2_doublyStochastic": "fixed Rat example [[2/3,1/3],[1/3,2/3]] is doubly stochastic; not a pyref computation (Sinkhorn outputs are checked by mhc_products_doubly_stochastic / mhc_sinkhorn_column_step)",
    _MH + "mix_keeps_ones": "fixed Rat example: the 2×2 matrix maps [1,1] to itself (its row sums are 1); evaluating it would test numpy's 2×2 product, not pyref; row sums 1 of pyref's B are checked by mhc_products_doubly_stochastic",
    _MH + "mix_contracts_difference": "fixed Rat example: the 2×2 matrix scales [1,−1] by 1/3; illustration of the contraction on 𝟙^⊥, no pyref computation behind it (non-expansion of pyref's B is checked by mhc_doubly_stochastic_nonexpansive)",
    # Kla.lean
    _KL + "write_apply": "definitional unfolding of the write S̃ + β k eᵀ entrywise; nothing to measure",
    _KL + "sqNorm_expand": "‖d e + t w‖² expanded as a quadratic in (d, t); sum-algebra helper of sqLoss_expand / sqLoss_line",
    _KL + "frob_expand": "‖c k eᵀ + tH‖_F² expanded; sum-algebra helper of kla_projection_min_change and prox_minimizer (both checked)",
    _KL + "frob_outer_eq_dot": "⟨k eᵀ, H⟩_F = eᵀ(Hᵀk), a reordering of a double sum; structural helper",
    _KL + "readout_add_smul": "linearity of the read-out, (X + tH)ᵀk = Xᵀk + t Hᵀk; algebra helper used inside proofs",
    _KL + "sqLoss_expand": "quadratic expansion of ‖Sᵀk − v‖² along an arbitrary direction S̃ + tH; pyref computes no such line (only the write direction, whose instance sqLoss_line is checked by kla_line_search); lemma of prox_minimizer",
    _KL + "kla_mul_self_nonneg": "a·a ≥ 0 in an ordered field; order helper",
    _KL + "kla_mul_self_pos": "a ≠ 0 ⇒ a·a > 0; order helper",
    _KL + "sqNorm_nonneg": "‖x‖² ≥ 0; order helper (a sum of squares)",
    _KL + "frob_self_nonneg": "‖H‖_F² ≥ 0; order helper (a sum of squares)",
    _KL + "sqNorm_pos_of_ne": "a vector with a nonzero entry has ‖x‖² > 0; order helper turning k ≠ 0 into ‖k‖² > 0",
    _KL + "kla_ratio_pos": "ordered-field lemma ηs/(s+ε) > 0 for s, η > 0, ε ≥ 0; its instance s = ‖k‖² is kla_factor_lt_one, checked by kla_residual_contraction",
    _KL + "kla_ratio_le_one": "ordered-field lemma ηs/(s+ε) ≤ 1 for η ≤ 1; its instance s = ‖k‖² is kla_factor_nonneg, checked by kla_residual_contraction",
    # KlaChunk.lean
    _KC + "nsum_succ": "definitional unfolding of the Nat-indexed prefix sum; nothing to measure",
    _KC + "nsum_congr_lt": "prefix sums of functions agreeing below n are equal; sum-algebra helper",
    _KC + "nsum_mul_left": "c·Σf = Σ c·f for prefix sums; sum-algebra helper",
    _KC + "nsum_add": "Σ(f + g) = Σf + Σg for prefix sums; sum-algebra helper",
    _KC + "nsum_mul_right": "(Σf)·c = Σ f·c for prefix sums; sum-algebra helper",
    _KC + "fsum_nsum_comm": "exchange of a Fin sum and a prefix sum; sum-algebra helper",
    _KC + "fsum_eq_nsum": "a Fin n sum equals the Nat prefix sum; index bookkeeping",
    _KC + "nsum_masked": "a prefix sum of a term masked beyond m equals the sum up to m; index bookkeeping",
    _KC + "fsum_masked_eq_nsum": "a Fin C sum of a prefix-masked term is the prefix sum; index bookkeeping",
    _KC + "state_succ_apply": "one recurrence step written entrywise as α S + k uᵀ; definitional unfolding of DeltaNet.step with a scalar gate",
    _KC + "kc_readout_apply_left": "the read-out Sᵀp as Σ_x p_x S_x; reordering of a product in a sum",
    _KC + "readout_smul": "(aS)ᵀp = a Sᵀp; linearity helper",
    _KC + "state_unroll": "unrolled recurrence S_t = γ_t S₀ + Σ_j (γ_t/γ_{j+1}) k_j u_jᵀ; lemma whose t = C form is chunk_state_eq_recurrence (checked by kla_chunkwise_equals_recurrence)",
    _KC + "readout_unrolled": "read-out of the unrolled form; sum-algebra step of chunk_output_eq_recurrence",
    _KC + "wvec_row": "row t of the system for the recurrence's write vectors; lemma of recurrence_solves_system (checked)",
    _KC + "sysMat_apply": "definitional unfolding of the entries of I + B(A⁻ ⊙ KKᵀ)",
    _KC + "sysMat_mul_apply": "definitional unfolding of a row of (I + B(A⁻ ⊙ KKᵀ))U",
    _KC + "sysRhs_apply": "definitional unfolding of the entries of B(V − D_γ K S₀)",
    _KC + "sysMat_unit_lower": "unit lower triangularity of I + B(A⁻ ⊙ KKᵀ) holds by construction (pyref masks A⁻ to the strict lower part and its forward substitution reads only that part); no computed quantity to measure",
    _KC + "gam_ne_of": "restates the hypothesis γ_i ≠ 0 for prefixes; hypothesis plumbing",
    _KC + "outMat_apply": "definitional unfolding of the entries of O = D_γQS₀ + (A ⊙ QKᵀ)U",
    # AttnRes.lean
    _AR + "ar_ne_of_pos": "a > 0 ⇒ a ≠ 0; order helper",
    _AR + "ar_div_pos": "a, b > 0 ⇒ a/b > 0; order helper",
    _AR + "ar_exp_sub": "e^{x−y}e^{y} = e^{x} from the exp hypothesis structure; algebra helper",
    _AR + "ar_fsum_const": "a sum of n copies of c is n·c; definitional, nothing numeric to measure",
    _AR + "gZ_eq": "a shifted group partition is the unshifted one times e^{−c}; algebra helper of the merge proof",
    _AR + "gNum_eq": "a shifted group numerator is the unshifted one times e^{−c}; algebra helper of the merge proof",
    _AR + "group_partition_pos": "a nonempty group has positive partition function; order helper",
    _AR + "exp_gLse": "e^{L_G} = Σ_{i∈G} e^{s_i} for any shift c; lemma of two_phase_merge_eq_one_pass (whose merged h and L are checked by attnres_two_phase_merge)",
    _AR + "ar_fsum_split": "a sum splits into the parts over a group and its complement; index bookkeeping",
    _AR + "merge_algebra": "the field identity behind the merge; structural step of two_phase_merge_eq_one_pass",
}

#: float64 majorants are evaluated in float64 (relative error < 1e-12 here)
SLACK = 1 + 1e-6

# ============================================================================ strategies
ENTRY = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False, width=64).map(
    lambda x: x if abs(x) >= 1e-4 or x == 0 else math.copysign(0.5 + abs(x), x))
SCALE = st.sampled_from([1.0, 0.1, 10.0, 1e-3])
STATE_SCALE = st.sampled_from([1.0, 0.1, 10.0])
ALPHA = st.one_of(st.just(1.0), st.just(0.0), st.floats(0.0, 1.0, width=64))
ALPHA_POS = st.one_of(st.just(1.0), st.floats(0.05, 1.0, width=64))
ETA = st.one_of(st.just(1.0), st.floats(0.01, 1.0, width=64))
ETA_OPEN = st.floats(0.01, 0.99, width=64)   # η < 1 (the proximal form)
EPS = st.sampled_from([0.0, 1e-6, 0.25])


@st.composite
def arr(draw, shape, scale=SCALE):
    """A float64 array of ``shape`` with ENTRY values times a drawn magnitude."""
    s = draw(scale)
    n = int(np.prod(shape))
    return np.array(draw(st.lists(ENTRY, min_size=n, max_size=n)), dtype=np.float64).reshape(shape) * s


def _nonzero_rows(M):
    """Replace zero rows by e_1 (query rows must be nonzero for the read-out)."""
    M = np.array(M, dtype=np.float64)
    z = ~M.any(axis=-1)
    M[z, 0] = 1.0
    return M


@st.composite
def kla_token(draw, eta=ETA):
    dk, dv = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    return dict(S=draw(arr((dk, dv), STATE_SCALE)), k=draw(arr((dk,))), v=draw(arr((dv,), STATE_SCALE)),
                alpha=draw(ALPHA), eta=draw(eta), eps=draw(EPS))


# ============================================================================ helpers
def _bk(backend, dps):
    return pyref.get_backend(backend, dps)


def _f(x):
    """to float64 (works on mpf scalars and arrays)."""
    return to_float64(np.asarray(x, dtype=object) if not isinstance(x, np.ndarray) else x)


def _kla_base(ex, b):
    """Backend arrays of a KLA token and S̃ = αS, e = v − S̃ᵀk, n = ‖k‖² (inside b.context())."""
    S, k, v, alpha = conv(b.name, b.dps, ex["S"], ex["k"], ex["v"], np.float64(ex["alpha"]))
    St = alpha[()] * S
    e = v - St.T @ k
    return S, k, v, St, e, np.sum(k * k)


def _kla_E(ex):
    """|e|_abs = |v| + |S̃|ᵀ|k| (float64 majorant of the residual)."""
    return np.abs(ex["v"]) + (ex["alpha"] * np.abs(ex["S"])).T @ np.abs(ex["k"])


def _key_ok(ex):
    """β = η/(‖k‖²+ε) is defined (a zero key needs ε > 0)."""
    return ex["eps"] > 0 or np.any(ex["k"] != 0)


# ============================================================================ KLA (§2)
@prop(theorems=LEAN["kla_residual_contraction"], paper="KLA §2: residual contraction e⁺ = (1 − η‖k‖²/(‖k‖²+ε)) e",
      strategy=kla_token)
def kla_residual_contraction(ex, backend, dps):
    """Re-reading the key after pyref's ``kla_step`` leaves the residual e⁺ = v − S_newᵀk equal to
    f·e with e = v − S̃ᵀk (S̃ = αS, the base point) and f = 1 − η‖k‖²/(‖k‖²+ε), and f ∈ [0, 1)
    for k ≠ 0, 0 < η ≤ 1, ε ≥ 0 (f = 1 − η for ε = 0). Also the KLA step is the GDN step with
    the scalar gate α and β = pyref's ``kaczmarz_beta``: ``kla_step`` equals ``deltanet_step``
    (compared when β ≤ 1, the β range pyref's GDN step accepts). Bound: |e|_abs = |v| + |S̃|ᵀ|k|
    and β‖k‖² ≤ 1 make both sides' majorants ≤ 2(1 + β‖k‖²)|e|_abs ≤ 4|e|_abs; index D = 3d_k + 16
    (S̃ᵀk: d_k + 1, β: d_k + 2, the write: 3, S_newᵀk: d_k, two subtractions, f·e: 3); the two
    steps (the same program: decay, residual, write) have majorant |S̃| + β|k|(|e|_abs)ᵀ, same D."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)        # hypothesis k ≠ 0
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    beta = kla.kaczmarz_beta(ex["k"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    dev_gdn, bnd_gdn = 0.0, 0.0
    if bool(beta <= 1):
        Sgdn = deltanet.deltanet_step(ex["S"], ex["k"], ex["v"], beta, ex["alpha"], backend=backend, dps=dps)
        with ctx(backend, dps):
            dev_gdn = maxabs(Snew - Sgdn)
        bf = float(_f(beta))
        bnd_gdn = bound(backend, 3 * len(ex["k"]) + 16,
                        ex["alpha"] * np.abs(ex["S"]) + bf * np.outer(np.abs(ex["k"]), _kla_E(ex)))
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        eta = conv(backend, dps, np.float64(ex["eta"]))[0][()]
        f = 1 - eta * n / (n + b.const(ex["eps"]))
        e_plus = v - Snew.T @ k
        dev = maxabs(e_plus - f * e)
        x = float(_f(eta * n / (n + b.const(ex["eps"]))))
        # f ∈ [0, 1): f ≥ 0 holds in rounded arithmetic too (η‖k‖² ≤ ‖k‖² + ε, monotone rounding)
        rng = max(0.0, -float(_f(f))) + (1.0 if not float(_f(f)) < 1 else 0.0)
        if ex["eps"] == 0:
            rng += maxabs(f - (1 - eta))
    if x < 1e-12:   # f < 1 is not decidable at float64 resolution: not counted
        return Outcome(dev, 0.0, met=False)
    dk = len(ex["k"])
    T = 4 * _kla_E(ex)
    return Outcome(dev + rng + dev_gdn, bound(backend, 3 * dk + 16, T) + bnd_gdn
                   + (bound(backend, 4, 1.0) if ex["eps"] == 0 else 0.0))


@st.composite
def kla_projection_inputs(draw):
    ex = draw(kla_token())
    ex["eta"], ex["eps"] = 1.0, 0.0
    ex["H"] = draw(arr(ex["S"].shape))
    return ex


@prop(theorems=LEAN["kla_minimum_change"], paper="KLA §2: projection (η = 1, ε = 0) is the minimum-change write",
      strategy=kla_projection_inputs)
def kla_minimum_change(ex, backend, dps):
    """With η = 1, ε = 0 pyref's ``kla_step`` returns the solution of min ½‖S − S̃‖_F² s.t. Sᵀk = v:
    (a) the constraint holds, S_newᵀk = v; (b) the increment Δ = S_new − S̃ equals k eᵀ/‖k‖²;
    (c) Δ is Frobenius-orthogonal to every H with Hᵀk = 0 (drawn H projected onto that
    subspace) -- hence ‖S' − S̃‖² = ‖Δ‖² + ‖H‖² ≥ ‖Δ‖² for every feasible S' = S_new + H;
    (d) that minimum-change inequality itself, ‖Δ‖_F² ≤ ‖Δ + H‖_F² (violation max(0, lhs − rhs)).
    Majorants (E = |v| + |S̃|ᵀ|k|, n = ‖k‖²): (a) 2E, (b) 2|S̃| + 2|k|Eᵀ/n (the computed Δ is a
    difference of S_new, majorant |S̃| + |k|Eᵀ/n, and S̃), (c) Σ (2|S̃| + 2|k|Eᵀ/n) ⊙
    (|H| + |k||k|ᵀ|H|/n), (d) Σ (Δ_abs + H_abs)² (covers both sides; a square adds the indices
    of its factors plus 1, the d_k d_v-term sum d_k d_v); index D = d_k d_v + 4 d_k + 16 for
    (a)-(c), 2D + d_k d_v + 2 for (d)."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], 1.0, 0.0, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        (H,) = conv(backend, dps, ex["H"])
        Hp = H - k[:, None] * (k @ H)[None, :] / n                      # Hpᵀk = 0
        D = Snew - St
        dev_a = maxabs(Snew.T @ k - v)
        dev_b = maxabs(D - k[:, None] * e[None, :] / n)
        dev_c = maxabs(np.sum(D * Hp))
        DH = D + Hp                                                      # S' − S̃ for S' = S_new + Hp
        dev_d = max(0.0, float(_f(np.sum(D * D) - np.sum(DH * DH))))
    kk, E = np.abs(ex["k"]), _kla_E(ex)
    nf = float(np.dot(ex["k"], ex["k"]))
    Sa = ex["alpha"] * np.abs(ex["S"])
    Dabs = 2 * Sa + 2 * np.outer(kk, E) / nf
    Habs = np.abs(ex["H"]) + np.outer(kk, kk @ np.abs(ex["H"])) / nf
    Dd = ex["S"].size + 4 * len(kk) + 16
    return Outcome(dev_a + dev_b + dev_c + dev_d,
                   bound(backend, Dd, 2 * E) + bound(backend, Dd, Dabs) + bound(backend, Dd, np.sum(Dabs * Habs))
                   + bound(backend, 2 * Dd + ex["S"].size + 2, np.sum((Dabs + Habs) ** 2)))


@st.composite
def kla_line_inputs(draw):
    if draw(st.sampled_from(["random", "random", "paper"])) == "paper":
        # kla_worked_example: S̃ = 0, k = 2, v = 1; the step τ = 1 (t = τ‖k‖² = 4) overshoots
        return dict(S=np.zeros((1, 1)), k=np.array([2.0]), v=np.array([1.0]), alpha=1.0, t=4.0, paper=True)
    ex = draw(kla_token())
    ex["t"] = draw(st.one_of(st.just(1.0), st.just(0.0), st.floats(0.0, 3.0, width=64)))
    return ex


@prop(theorems=LEAN["kla_line_search"], paper="KLA §2: line search along S̃ + τ k eᵀ, minimum at τ = 1/‖k‖²",
      strategy=kla_line_inputs)
def kla_line_search(ex, backend, dps):
    """Along S(τ) = S̃ + τ k eᵀ (pyref's ``delta_write`` at the base point S̃ = αS with step τ =
    t/‖k‖², t ∈ [0, 3]): the new residual is e⁺ = v − S(τ)ᵀk = (1 − τ‖k‖²) e (any step τ),
    ½‖S(τ)ᵀk − v‖² = ½(1 − τ‖k‖²)²‖e‖², which must be > 0 whenever the exact right side is far
    above round-off (τ‖k‖² ≠ 1, e ≠ 0), and pyref's KLA write with η = 1, ε = 0
    (τ = 1/‖k‖²) attains 0, the minimum. One third of the examples is the paper's worked
    example (S̃ = 0, k = 2, v = 1, t = 4): the step τ = 1 writes S = 2 and reads out 4
    (overshoot), ``kaczmarz_beta`` is 1/4, the KLA write is S = 1/2 and reads out exactly 1.
    Majorant: the residual's R_j = (1 + τ‖k‖²)E_j (E = |v| + |S̃|ᵀ|k|) bounds e⁺ and (1 − τ‖k‖²)e
    (one comparison: bound(R)), both sides of the identity ≤ 3ΣR_j² (squares of quantities with
    error γR, and the three-factor right side); the worked example's five values are compared
    with exact constants, each within γ_D R (R = 5 ≥ every majorant there): 3·bound(R);
    index D = 3 d_k + 16."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        tau = conv(backend, dps, np.float64(ex["t"]))[0][()] / n
    Stau, _ = kla.delta_write(St, k, v, tau, backend=backend, dps=dps)
    Sstar = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], 1.0, 0.0, backend=backend, dps=dps)
    with b.context():
        r = Stau.T @ k - v
        dev_res = maxabs(-r - (1 - tau * n) * e)
        lhs = np.sum(r * r) / 2
        rhs = (1 - tau * n) ** 2 * np.sum(e * e) / 2
        rs = Sstar.T @ k - v
        fstar = np.sum(rs * rs) / 2
        dev = maxabs(lhs - rhs) + maxabs(fstar)
        lhs_f, rhs_f = float(_f(lhs)), float(_f(rhs))
        if ex.get("paper"):
            beta = kla.kaczmarz_beta(ex["k"], 1.0, 0.0, backend=backend, dps=dps)
            dev_ex = (maxabs(Stau - 2) + maxabs(Stau.T @ k - 4) + maxabs(beta - b.const(0.25))
                      + maxabs(Sstar - b.const(0.5)) + maxabs(Sstar.T @ k - 1))
    R = (1 + max(ex["t"], 1.0)) * _kla_E(ex)
    D = 3 * len(ex["k"]) + 16
    bnd = bound(backend, D, 3 * np.sum(R * R))
    if rhs_f > 2 * bnd and not lhs_f > 0:          # line_search_exact: positive off the minimum
        dev += 1.0
    dev += dev_res
    bnd += bound(backend, D, R)
    if ex.get("paper"):
        dev += dev_ex
        bnd += 3 * bound(backend, D, R)
    return Outcome(dev, bnd)


@prop(theorems=LEAN["kla_proximal_equivalence"],
      paper="KLA §2: proximal form, μ = η/((1 − η)‖k‖² + ε) gives the KLA β",
      strategy=lambda: kla_token(eta=ETA_OPEN))
def kla_proximal_equivalence(ex, backend, dps):
    """For η < 1, pyref's ``kla_step`` output S minimizes the strictly convex
    ½‖S − S̃‖_F² + (μ/2)‖Sᵀk − v‖² with μ = η/((1 − η)‖k‖² + ε): the gradient
    (S − S̃) + μ k (Sᵀk − v)ᵀ vanishes; and μ/(1 + μ‖k‖²) equals pyref's ``kaczmarz_beta``.
    Majorants: gradient |S̃| + β|k|Eᵀ + 3μ|k|Eᵀ (the residual Sᵀk − v has majorant 2E); the
    coefficient identity has relative errors only (positive terms; 1 − η is exact or one
    rounding): majorant 2β. Index D = 3 d_k + 20."""
    if not _key_ok(ex) or not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    beta = kla.kaczmarz_beta(ex["k"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        eta = conv(backend, dps, np.float64(ex["eta"]))[0][()]
        mu = eta / ((1 - eta) * n + b.const(ex["eps"]))
        G = (Snew - St) + mu * k[:, None] * (Snew.T @ k - v)[None, :]
        dev = maxabs(G) + maxabs(mu / (1 + mu * n) - beta)
    nf = float(np.dot(ex["k"], ex["k"]))
    bf = ex["eta"] / (nf + ex["eps"])
    muf = ex["eta"] / ((1 - ex["eta"]) * nf + ex["eps"])
    kk, E = np.abs(ex["k"]), _kla_E(ex)
    TG = ex["alpha"] * np.abs(ex["S"]) + (bf + 3 * muf) * np.outer(kk, E)
    D = 3 * len(kk) + 20
    return Outcome(dev, bound(backend, D, TG) + bound(backend, D, 2 * bf))


@st.composite
def kla_interference_inputs(draw):
    ex = draw(kla_token())
    kind = draw(st.sampled_from(["random", "near", "same"]))
    k2 = draw(arr(ex["k"].shape))
    ex["k2"] = {"random": k2, "near": ex["k"] + 0.1 * k2, "same": ex["k"].copy()}[kind]
    return ex


@prop(theorems=LEAN["kla_interference"], paper="KLA §2: interference Δ(Sᵀk') = β e (kᵀk')",
      strategy=kla_interference_inputs)
def kla_interference(ex, backend, dps):
    """pyref's KLA write changes the read-out of another key k' by exactly β e (kᵀk'):
    S_newᵀk' − S̃ᵀk' = β (kᵀk') e with β = η/(‖k‖² + ε), e = v − S̃ᵀk. Majorant
    2|S̃|ᵀ|k'| + 3β(|k|ᵀ|k'|)E; index D = 3 d_k + 16."""
    if not _key_ok(ex):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        k2, eta = conv(backend, dps, ex["k2"], np.float64(ex["eta"]))
        beta = eta[()] / (n + b.const(ex["eps"]))
        dev = maxabs((Snew.T @ k2 - St.T @ k2) - beta * (k @ k2) * e)
    nf = float(np.dot(ex["k"], ex["k"]))
    bf = ex["eta"] / (nf + ex["eps"])
    k2a = np.abs(ex["k2"])
    T = 2 * (ex["alpha"] * np.abs(ex["S"])).T @ k2a + 3 * bf * (np.abs(ex["k"]) @ k2a) * _kla_E(ex)
    return Outcome(dev, bound(backend, 3 * len(ex["k"]) + 16, T))


@st.composite
def kla_sequences(draw):
    T = draw(st.integers(1, 10))
    dk, dv = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    K = draw(arr((T, dk)))
    eps = draw(EPS)
    if eps == 0:
        K = _nonzero_rows(K)
    return dict(S0=draw(arr((dk, dv), STATE_SCALE)), K=K, V=draw(arr((T, dv), STATE_SCALE)),
                Q=_nonzero_rows(draw(arr((T, dk)))),
                alpha=np.array(draw(st.lists(ALPHA_POS, min_size=T, max_size=T))),
                eta=np.array(draw(st.lists(ETA, min_size=T, max_size=T))), eps=eps,
                C=draw(st.integers(1, T + 1)))


def _abs_kla_recurrent(S0, K, V, Qn, alpha, beta):
    """f_abs of the KLA token loop (|inputs|, − → +): (O_abs [T, d_v], S_abs, U_abs [T, d_v])
    with U_abs the write vectors β_t e_t."""
    S, O, U = np.abs(S0), [], []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        St = alpha[t] * S
        E = np.abs(V[t]) + St.T @ ka
        S = St + beta[t] * np.outer(ka, E)
        O.append(S.T @ np.abs(Qn[t]))
        U.append(beta[t] * E)
    return np.array(O), S, np.array(U)


def _abs_kla_chunkwise(S0, K, V, Qn, alpha, beta, C):
    """f_abs of the chunkwise form (forward substitution with + instead of −):
    (O_abs, S_abs, U_abs of the first chunk)."""
    S, outs, U1 = np.abs(S0), [], None
    Ka, Va, Qa = np.abs(K), np.abs(V), np.abs(Qn)
    for s in range(0, K.shape[0], C):
        sl = slice(s, min(s + C, K.shape[0]))
        k, v, q, a, bt = Ka[sl], Va[sl], Qa[sl], alpha[sl], beta[sl]
        g = np.cumprod(a)
        A = np.tril(g[:, None] / g[None, :])
        M = bt[:, None] * (np.tril(A, -1) * (k @ k.T))
        R = bt[:, None] * (v + g[:, None] * (k @ S))
        U = np.zeros_like(R)
        for i in range(len(g)):
            U[i] = R[i] + M[i, :i] @ U[:i]
        outs.append(g[:, None] * (q @ S) + (A * (q @ k.T)) @ U)
        S = g[-1] * S + k.T @ ((g[-1] / g)[:, None] * U)
        U1 = U if U1 is None else U1
    return np.concatenate(outs), S, U1


@prop(theorems=LEAN["kla_chunkwise_equals_recurrence"],
      paper="KLA §2: chunkwise form (unit-lower-triangular solve) equals the token recurrence",
      strategy=kla_sequences)
def kla_chunkwise_equals_recurrence(ex, backend, dps):
    """pyref's ``kla_chunkwise`` (chunks of C tokens: [I + B(A⁻ ⊙ KKᵀ)]U = B(V − D_γKS₀),
    O = D_γQ̂S₀ + (A ⊙ Q̂Kᵀ)U, S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_j) U) equals the token loop
    ``kla_recurrent`` in outputs and final state (α ∈ [0.05, 1], so every γ_i ≠ 0); and on the
    first chunk, the solution U of pyref's ``kla_chunk`` system (forward substitution) equals
    the recurrence's write vectors u_t = β_t(v_t − (α_t S_{t−1})ᵀk_t) (β_t pyref's
    ``kaczmarz_beta``, S_t pyref's recurrent states): the recurrence's U solves the system and
    is its only solution. Bound: γ_D times the sum of the two programs' majorants
    (:func:`_abs_kla_recurrent`, :func:`_abs_kla_chunkwise`, also for U) with
    D = T(2d_k + 3C + 12) + 2d_k + 3C + 10: per token the
    recurrence adds ≤ 2d_k + 7 to the index (decay 1, S̃ᵀk d_k, subtraction 1, β d_k + 2, the
    write 3), the read-out q̂ = q/‖q‖ adds 2d_k + 3; per chunk the solve adds ≤ C(2d_k + 3C + 9)
    (entries of B(A⁻⊙KKᵀ) have index 2d_k + 2C + 5, row i sums i terms) and S_out 3C + 3."""
    e = ex
    O1, S1, states = kla.kla_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], e["eps"],
                                       return_states=True, backend=backend, dps=dps)
    O2, S2 = kla.kla_chunkwise(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], e["eps"],
                               chunk_size=e["C"], backend=backend, dps=dps)
    T, dk = e["K"].shape
    C = min(e["C"], T)
    _, _, Uc = kla.kla_chunk(e["S0"], e["K"][:C], e["V"][:C], e["Q"][:C], e["alpha"][:C], e["eta"][:C], e["eps"],
                             backend=backend, dps=dps)
    bk = kla.kaczmarz_beta(e["K"][:C], e["eta"][:C], e["eps"], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = maxabs(O1 - O2) + maxabs(S1 - S2)
        S0, K, V, al = conv(backend, dps, e["S0"], e["K"], e["V"], e["alpha"])
        prev = [S0] + [states[t] for t in range(C - 1)]
        Urec = np.stack([bk[t] * (V[t] - (al[t] * prev[t]).T @ K[t]) for t in range(C)])
        dev += maxabs(Uc - Urec)
    beta = e["eta"] / (np.sum(e["K"] ** 2, axis=1) + e["eps"])
    Qn = e["Q"] / np.linalg.norm(e["Q"], axis=1, keepdims=True)
    Oa1, Sa1, Ua1 = _abs_kla_recurrent(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta)
    Oa2, Sa2, Ua2 = _abs_kla_chunkwise(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta, C)
    D = T * (2 * dk + 3 * C + 12) + 2 * dk + 3 * C + 10
    return Outcome(dev, SLACK * (bound(backend, D, np.maximum(Oa1, Oa2)) + bound(backend, D, np.maximum(Sa1, Sa2))
                                 + bound(backend, D, np.maximum(Ua1[:C], Ua2))))


# ============================================================================ DeltaNet / KDA (§1)
@st.composite
def deltanet_sequences(draw):
    T = draw(st.integers(1, 10))
    dk, dv = draw(st.integers(1, 4)), draw(st.integers(1, 3))
    K = _nonzero_rows(draw(arr((T, dk))))
    K = K / np.linalg.norm(K, axis=1, keepdims=True)      # GDN/KDA L2-normalize keys: β‖k‖² ≤ 1
    gate = draw(st.sampled_from(["gdn", "kda"]))
    shape = (T,) if gate == "gdn" else (T, dk)
    n = int(np.prod(shape))
    alpha = np.array(draw(st.lists(ALPHA, min_size=n, max_size=n))).reshape(shape)
    beta = np.array(draw(st.lists(st.one_of(st.just(1.0), st.just(0.0), st.floats(0.0, 1.0, width=64)),
                                  min_size=T, max_size=T)))
    cuts = sorted(draw(st.sets(st.integers(1, T - 1), max_size=T - 1))) if T > 1 else []
    lengths = [b - a for a, b in zip([0] + cuts, cuts + [T])]
    return dict(S0=draw(arr((dk, dv), STATE_SCALE)), K=K, V=draw(arr((T, dv), STATE_SCALE)),
                Q=draw(arr((T, dk))), beta=beta, alpha=alpha, lengths=lengths)


def _dmat(alpha_t, dk):
    return alpha_t * np.eye(dk) if np.ndim(alpha_t) == 0 else np.diag(alpha_t)


def _abs_deltanet_recurrent(S0, K, V, Q, beta, alpha):
    S, O = np.abs(S0), []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        X = _dmat(alpha[t], len(ka)) @ S
        S = X + beta[t] * np.outer(ka, np.abs(V[t]) + X.T @ ka)
        O.append(S.T @ np.abs(Q[t]))
    return np.array(O), S


def _abs_deltanet_chunked(S0, K, V, Q, beta, alpha, lengths):
    S, O, s = np.abs(S0), [], 0
    dk = K.shape[1]
    for n in lengths:
        P = R = None
        for t in range(s, s + n):
            ka = np.abs(K[t])
            Pt = (np.eye(dk) + beta[t] * np.outer(ka, ka)) @ _dmat(alpha[t], dk)
            Rt = beta[t] * np.outer(ka, np.abs(V[t]))
            P, R = (Pt, Rt) if P is None else (Pt @ P, Pt @ R + Rt)
            O.append((P @ S + R).T @ np.abs(Q[t]))
        S = P @ S + R
        s += n
    return np.array(O), S


@prop(theorems=LEAN["deltanet_chunking_equals_sequential"],
      paper="GDN/KDA §1: per-token affine maps compose (P₂P₁, P₂R₁ + R₂); any chunking equals the token loop",
      strategy=deltanet_sequences)
def deltanet_chunking_equals_sequential(ex, backend, dps):
    """pyref's ``deltanet_chunked`` over a random contiguous partition (prefix maps composed inside
    each chunk with ``compose``, S_t = P_t S_start + R_t) equals the token loop
    ``deltanet_recurrent`` (decay then correct) in every output and the final state, for the
    scalar (GDN) and the diagonal (KDA) gate, β and α in [0, 1] (0 and 1 included), L2-normalized
    keys. Every intermediate state S_t is compared too: the chunked run of the first t tokens
    (the partition cut at t) ends with the within-chunk state P_t S_start + R_t, which must equal
    the loop's state S_t (``return_states``). Bound: γ_D × the sum of both programs' majorants
    (per prefix for the states), D = T(3d_k + 10) + 3d_k + 10 (the
    loop adds ≤ 2d_k + 5 per token; a composition P_tP adds ≤ d_k + 4, P_tR + R_t ≤ d_k + 4,
    P S + R ≤ d_k + 1 per chunk, the read-out d_k)."""
    e = ex
    O1, S1, states = deltanet.deltanet_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"],
                                                 return_states=True, backend=backend, dps=dps)
    O2, S2 = deltanet.deltanet_chunked(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"], e["lengths"],
                                       backend=backend, dps=dps)
    with ctx(backend, dps):
        dev = maxabs(O1 - O2) + maxabs(S1 - S2)
    T, dk = e["K"].shape
    D = T * (3 * dk + 10) + 3 * dk + 10
    bnd_states = 0.0
    for t in range(1, T):                                 # t = T is the final state above
        cut = np.cumsum(e["lengths"])
        lt = [int(x) for x in np.diff(np.concatenate([[0], cut[cut < t], [t]]))]
        args = (e["S0"], e["K"][:t], e["V"][:t], e["Q"][:t], e["beta"][:t], e["alpha"][:t])
        _, St = deltanet.deltanet_chunked(*args, lt, backend=backend, dps=dps)
        with ctx(backend, dps):
            dev += maxabs(St - states[t - 1])
        _, Sa_r = _abs_deltanet_recurrent(*args)
        _, Sa_c = _abs_deltanet_chunked(*args, lt)
        bnd_states += bound(backend, D, np.maximum(Sa_r, Sa_c))
    Oa1, Sa1 = _abs_deltanet_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"])
    Oa2, Sa2 = _abs_deltanet_chunked(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"], e["lengths"])
    return Outcome(dev, SLACK * (bound(backend, D, np.maximum(Oa1, Oa2)) + bound(backend, D, np.maximum(Sa1, Sa2))
                                 + bnd_states))


@st.composite
def order_inputs(draw):
    dk, dv = draw(st.integers(2, 5)), draw(st.integers(1, 3))
    gate = draw(st.sampled_from(["kda", "kda", "gdn"]))
    alpha = (np.array(draw(st.lists(st.floats(0.0, 1.0, width=64), min_size=dk, max_size=dk)))
             if gate == "kda" else draw(st.floats(0.0, 1.0, width=64)))
    return dict(k=draw(arr((dk,))), v=draw(arr((dv,), STATE_SCALE)), S=draw(arr((dk, dv), STATE_SCALE)),
                beta=draw(st.one_of(st.just(1.0), st.floats(0.05, 1.0, width=64))), alpha=alpha, gate=gate)


@prop(theorems=LEAN["deltanet_order_matters"],
      paper="GDN/KDA §1: (I − βkkᵀ)D ≠ D(I − βkkᵀ) for a non-scalar D; scalar gates commute",
      strategy=order_inputs)
def deltanet_order_matters(ex, backend, dps):
    """pyref's ``step_map`` P equals (I − βkkᵀ)D (decay first), pyref's ``deltanet_step`` equals
    P S + R, and P − D(I − βkkᵀ) = β(Dkkᵀ − kkᵀD) (the commutator identity). Witness: for a
    diagonal D the exact commutator size c = β max_ij |α_j − α_i||k_i k_j| is derived; examples
    with c above 1e6 × the round-off bound count as meeting the hypotheses and must show
    |P − D(I − βkkᵀ)| above the bound; a scalar gate (GDN) must commute (bound). Majorants:
    (1 + β|k||k|ᵀ)·max α for the matrices (index 6), (1 + β|k||k|ᵀ)|DS| + β|k||v|ᵀ for the step
    (index 2d_k + 8)."""
    k, v, S, beta, alpha = ex["k"], ex["v"], ex["S"], ex["beta"], ex["alpha"]
    P, R = deltanet.step_map(k, v, beta, alpha, backend=backend, dps=dps)
    Snew = deltanet.deltanet_step(S, k, v, beta, alpha, backend=backend, dps=dps)
    dk = len(k)
    b = _bk(backend, dps)
    with b.context():
        kb, vb, Sb, bb, ab = conv(backend, dps, k, v, S, np.float64(beta), np.asarray(alpha, dtype=np.float64))
        bb = bb[()]
        I = b.eye(dk)
        Dm = ab[()] * I if ab.ndim == 0 else I * ab[None, :]
        E = I - bb * (kb[:, None] * kb[None, :])
        kkT = kb[:, None] * kb[None, :]
        other = Dm @ E
        comm = P - other
        dev = (maxabs(P - E @ Dm) + maxabs(comm - bb * (Dm @ kkT - kkT @ Dm))
               + maxabs(Snew - (P @ Sb + R)))
        comm_size = maxabs(comm)
    ka = np.abs(k)
    amax = float(np.max(alpha))
    Tm = (1 + beta * np.outer(ka, ka)) * max(amax, 1e-300)
    Ts = (1 + beta * np.outer(ka, ka)) @ (np.abs(_dmat(alpha, dk)) @ np.abs(S)) + beta * np.outer(ka, np.abs(v))
    bnd = bound(backend, 6, 2 * Tm) + bound(backend, 2 * dk + 8, Ts)
    if ex["gate"] == "gdn":
        return Outcome(dev + comm_size, bnd + bound(backend, 6, 2 * Tm))
    c = beta * float(np.max(np.abs(alpha[None, :] - np.asarray(alpha)[:, None]) * np.abs(np.outer(k, k))))
    bm = bound(backend, 6, 2 * Tm)
    if not c > 1e6 * bm:
        return Outcome(dev, bnd, met=False)        # (near-)commuting draw: not a witness
    return Outcome(dev + (0.0 if comm_size > bm else 1.0), bnd)


@st.composite
def rollback_inputs(draw):
    dk, dv = draw(st.integers(1, 5)), draw(st.integers(1, 3))
    S = draw(arr((dk, dv), STATE_SCALE))
    j = draw(st.integers(0, dk - 1))
    S2 = S.copy()
    S2[j] = draw(arr((dv,), STATE_SCALE))
    alpha = draw(st.sampled_from(["identity", "scalar", "kda"]))
    a = (1.0 if alpha == "identity" else draw(st.floats(0.0, 1.0, width=64)) if alpha == "scalar"
         else np.array(draw(st.lists(st.floats(0.0, 1.0, width=64), min_size=dk, max_size=dk))))
    return dict(S=S, S2=S2, j=j, v=draw(arr((dv,), STATE_SCALE)), alpha=a)


@prop(theorems=LEAN["deltanet_beta_one_not_invertible"],
      paper="GDN §1: with β = 1, k = e_j the write is not invertible (speculative rollback)",
      strategy=rollback_inputs)
def deltanet_beta_one_not_invertible(ex, backend, dps):
    """pyref's ``deltanet_step`` with β = 1, k = e_j (D = I as in VARIANTS.md, also a scalar or
    diagonal gate): two old states differing only in row j map to the same new state, whose row
    j is v and whose other rows are the decayed old rows (D S)_i (the old rows for D = I), so the
    old state cannot be recovered. Met when the two states differ. Rows i ≠ j are exact
    (k_i = 0: X_i + 0·r = X_i, and X_i = α_i S_i is the same single rounding here; the bound
    γ_1-term below covers it anyway); row j = X_j + (v − X_j) has error ≤ γ_2(|X_j| + |v|) for
    each state."""
    S, S2, j, v, a = ex["S"], ex["S2"], ex["j"], ex["v"], ex["alpha"]
    k = np.zeros(S.shape[0])
    k[j] = 1.0
    N1 = deltanet.deltanet_step(S, k, v, 1.0, a, backend=backend, dps=dps)
    N2 = deltanet.deltanet_step(S2, k, v, 1.0, a, backend=backend, dps=dps)
    with ctx(backend, dps):
        vb, Sb, ab = conv(backend, dps, v, S, np.asarray(a, dtype=np.float64))
        X = ab[()] * Sb if ab.ndim == 0 else ab[:, None] * Sb
        dev = maxabs(N1 - N2) + maxabs(N1[j] - vb) + maxabs(np.delete(N1 - X, j, axis=0))
    aj = a if np.ndim(a) == 0 else a[j]
    T = aj * (np.abs(S[j]) + np.abs(S2[j])) + 2 * np.abs(v)
    Tx = np.abs(_dmat(a, S.shape[0])) @ np.abs(S)
    return Outcome(dev, bound(backend, 3, T) + bound(backend, 1, Tx), met=bool(np.any(S[j] != S2[j])))


# ============================================================================ mHC (§3)
@st.composite
def sinkhorn_inputs(draw, n_lo=1):
    n = draw(st.integers(n_lo, 6))
    Z = draw(arr((n, n), st.sampled_from([0.5, 1.0, 3.0])))
    return dict(Z=Z, iters=draw(st.sampled_from([10, 30, 80])),
                order=draw(st.sampled_from(mhc.ORDERS)))


def _sums(B):
    """(row sums, column sums) of a backend array, summed in the backend, returned as float64."""
    return to_float64(np.sum(B, axis=1)), to_float64(np.sum(B, axis=0))


@prop(theorems=LEAN["mhc_doubly_stochastic_nonexpansive"],
      paper="mHC §3: ‖Bv‖₂ ≤ ‖v‖₂ for doubly stochastic B ≥ 0 (B from Sinkhorn)",
      strategy=lambda: st.tuples(sinkhorn_inputs(), st.integers(1, 3), st.data()))
def mhc_doubly_stochastic_nonexpansive(ex, backend, dps):
    """For pyref's Sinkhorn matrix B (nonnegative) and vectors v: ‖Bv‖² ≤ c_max r_max ‖v‖², the
    Schur bound ‖B‖₂² ≤ ‖B‖₁‖B‖_∞ with the measured maximal column/row sums of B -- for an
    exactly doubly stochastic B this is the theorem ‖Bv‖ ≤ ‖v‖. Row by row, the Cauchy–Schwarz
    step (B_i·v)² ≤ r_i Σ_j B_ij v_j² with r_i the measured row sum (for r_i = 1 the weighted
    mean inequality (Σ w_j x_j)² ≤ Σ w_j x_j²). Examples count as meeting the
    hypothesis when c_max r_max − 1 ≤ 1e-3 (B doubly stochastic up to that defect). Round-off:
    Bv and the sums have majorants B|v| and c, r (nonnegative terms); index D = 2n + 4 on
    Σ(B|v|)² + c r ‖v‖², and on (B|v|)_i² + r_i (B v²)_i for the rows."""
    sk, m, data = ex
    n = sk["Z"].shape[0]
    V = data.draw(arr((n, m)))
    B = mhc.sinkhorn(sk["Z"], sk["iters"], sk["order"], backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        (Vb,) = conv(backend, dps, V)
        rmax, cmax = np.max(np.sum(B, axis=1)), np.max(np.sum(B, axis=0))
        BV = B @ Vb
        lhs = np.sum(BV * BV, axis=0)
        rhs = cmax * rmax * np.sum(Vb * Vb, axis=0)
        viol = np.max(to_float64(lhs - rhs))
        r = np.sum(B, axis=1)
        viol_rows = np.max(to_float64(BV * BV - r[:, None] * (B @ (Vb * Vb))))
        defect = float(_f(cmax * rmax - 1))
    Bf = to_float64(B)
    T = np.sum((Bf @ np.abs(V)) ** 2, axis=0) + float(_f(cmax * rmax)) * np.sum(V * V, axis=0)
    Tr = (Bf @ np.abs(V)) ** 2 + Bf.sum(axis=1)[:, None] * (Bf @ (V * V))
    return Outcome(max(0.0, viol) + max(0.0, viol_rows),
                   SLACK * (bound(backend, 2 * n + 4, T) + bound(backend, 2 * n + 4, Tr)), met=defect <= 1e-3)


@st.composite
def sinkhorn_factors(draw):
    """2 or 3 Sinkhorn inputs of one size n (the first also carries test vectors V [n, 1..3])."""
    n, m = draw(st.integers(1, 6)), draw(st.integers(2, 3))
    exs = [dict(Z=draw(arr((n, n), st.sampled_from([0.5, 1.0, 3.0]))), iters=draw(st.sampled_from([10, 30, 80])),
                order=draw(st.sampled_from(mhc.ORDERS))) for _ in range(m)]
    exs[0]["V"] = draw(arr((n, draw(st.integers(1, 3)))))
    return exs


@prop(theorems=LEAN["mhc_products_doubly_stochastic"],
      paper="mHC §3: products of doubly stochastic matrices are doubly stochastic",
      strategy=lambda: sinkhorn_factors())
def mhc_products_doubly_stochastic(exs, backend, dps):
    """Products B₁B₂(B₃) of pyref Sinkhorn matrices are nonnegative with row and column sums 1,
    up to the factors' own defects: |P𝟙 − 𝟙| ≤ Σ_m (Π_{l<m} r_max,l) δr_m and
    |𝟙ᵀP − 𝟙ᵀ| ≤ Σ_m δc_m (Π_{l>m} c_max,l) (exact algebra for nonnegative factors with row
    sums r_l and column sums c_l; 0 for doubly stochastic factors); and the stack does not
    expand: ‖Pv‖² ≤ c_max r_max ‖v‖² with P's measured maximal column/row sums (the Schur bound
    of mhc_doubly_stochastic_nonexpansive, = ‖v‖² for exactly doubly stochastic factors). Met
    when every factor's defect is ≤ 1e-3. Round-off: nonnegative terms, majorant n-fold products
    of sums ≤ 2, index D = 3(n + 2); the norm check as in mhc_doubly_stochastic_nonexpansive
    (index 2n + 4 on Σ(P|v|)² + c r ‖v‖², P computed is a nonnegative matrix)."""
    Bs = [mhc.sinkhorn(x["Z"], x["iters"], x["order"], backend=backend, dps=dps) for x in exs]
    n = exs[0]["Z"].shape[0]
    with ctx(backend, dps):
        P = Bs[0]
        for Bm in Bs[1:]:
            P = P @ Bm
        one = conv(backend, dps, np.float64(1.0))[0][()]
        dP_r, dP_c = maxabs(np.sum(P, axis=1) - one), maxabs(np.sum(P, axis=0) - one)
        neg = float(np.sum(to_float64(P) < 0))
        dr = [maxabs(np.sum(Bm, axis=1) - one) for Bm in Bs]
        dc = [maxabs(np.sum(Bm, axis=0) - one) for Bm in Bs]
        rows = [_sums(Bm) for Bm in Bs]
        V = exs[0]["V"]
        (Vb,) = conv(backend, dps, V)
        PV = P @ Vb
        crP = np.max(np.sum(P, axis=0)) * np.max(np.sum(P, axis=1))
        viol = max(0.0, float(np.max(to_float64(np.sum(PV * PV, axis=0) - crP * np.sum(Vb * Vb, axis=0)))))
        Pf, crf = to_float64(P), float(_f(crP))
    rmax = [float(np.max(r)) for r, _ in rows]
    cmax = [float(np.max(c)) for _, c in rows]
    allow_r = sum(math.prod(rmax[:m]) * dr[m] for m in range(len(Bs)))
    allow_c = sum(dc[m] * math.prod(cmax[m + 1:]) for m in range(len(Bs)))
    dev = max(0.0, dP_r - allow_r) + max(0.0, dP_c - allow_c) + neg + viol
    # the defects dr/dc are measured in the backend's arithmetic: their own round-off is
    # covered by the same allowance
    TV = np.sum((Pf @ np.abs(V)) ** 2, axis=0) + crf * np.sum(V * V, axis=0)
    return Outcome(dev, SLACK * (bound(backend, 3 * (n + 2), 2.0 ** len(Bs)) + bound(backend, 2 * n + 4, TV)),
                   met=max(dr + dc) <= 1e-3)


@st.composite
def positive_matrices(draw):
    n, m = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    vals = draw(st.lists(st.floats(1e-3, 1.0, width=64), min_size=n * m, max_size=n * m))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
    return np.array(vals).reshape(n, m) * scale, draw(sinkhorn_inputs())


@prop(theorems=LEAN["mhc_sinkhorn_column_step"],
      paper="mHC §3: after a Sinkhorn column step the column sums are exactly 1",
      strategy=positive_matrices)
def mhc_sinkhorn_column_step(ex, backend, dps):
    """pyref's ``sinkhorn_col_step`` gives column sums 1 and ``sinkhorn_row_step`` row sums 1 for a
    positive M [n, m]; a full ``sinkhorn`` run ending with a column step (row-first order) has
    column sums 1 (col-first: row sums 1). Round-off: each entry M_ij/s_j has relative error
    γ_{n+1} (positive terms), the check sum γ_n more: |Σ − 1| ≤ γ_{2n+2}."""
    M, sk = ex
    Cm = mhc.sinkhorn_col_step(M, backend=backend, dps=dps)
    Rm = mhc.sinkhorn_row_step(M, backend=backend, dps=dps)
    B = mhc.sinkhorn(sk["Z"], sk["iters"], sk["order"], backend=backend, dps=dps)
    with ctx(backend, dps):
        one = conv(backend, dps, np.float64(1.0))[0][()]
        dev = maxabs(np.sum(Cm, axis=0) - one) + maxabs(np.sum(Rm, axis=1) - one)
        last_axis = 0 if sk["order"] == "row-first" else 1
        dev += maxabs(np.sum(B, axis=last_axis) - one)
    n = max(M.shape + sk["Z"].shape)
    return Outcome(dev, 3 * bound(backend, 2 * n + 2, 1.0))


def _frac(x):
    """Exact rational value of a float64 or mpf."""
    if isinstance(x, mpmath.mpf):
        man, exp = x.man_exp
        return Fraction(man) * Fraction(2) ** exp
    return Fraction(float(x))


def _exact_sinkhorn(M, iters, order):
    """Sinkhorn rounds in exact rational arithmetic (Fractions)."""
    M = [[Fraction(x) for x in row] for row in M]

    def rows(M):
        return [[x / sum(r) for x in r] for r in M]

    def cols(M):
        s = [sum(M[i][j] for i in range(len(M))) for j in range(len(M[0]))]
        return [[M[i][j] / s[j] for j in range(len(M[0]))] for i in range(len(M))]

    for _ in range(iters):
        M = cols(rows(M)) if order == "row-first" else rows(cols(M))
    return M


SINK_M0 = np.array([[4.0, 1.0], [1.0, 1.0]])


@st.composite
def integer_matrices(draw):
    if draw(st.sampled_from(["random", "random", "paper"])) == "paper":
        return SINK_M0.copy(), 1                       # VARIANTS.md §3: M⁽⁰⁾ = [[4,1],[1,1]], one round
    n = draw(st.integers(2, 4))
    vals = draw(st.lists(st.integers(1, 9), min_size=n * n, max_size=n * n))
    return np.array(vals, dtype=np.float64).reshape(n, n), draw(st.integers(1, 3))


@prop(theorems=LEAN["mhc_sinkhorn_iterates"],
      paper="mHC §3: Sinkhorn iterates; row-first and column-first orders give different finite iterates",
      strategy=integer_matrices)
def mhc_sinkhorn_iterates(ex, backend, dps):
    """pyref's ``sinkhorn_iterate`` from a positive integer M⁽⁰⁾ equals the exact rational Sinkhorn
    iterates (Fractions) for both orders, and the two orders differ (witness: met when the exact
    iterates differ by more than 1e6 × the bound; then pyref's two results must differ by more
    than twice the bound). A finite round is not doubly stochastic: for the row-first order
    (ending with a column step), when an exact row sum is farther than 1e6 × the bound from 1,
    the exact sum of pyref's entries in that row must differ from 1 by more than bound × the
    exact row sum. One third of the examples is the paper's M⁽⁰⁾ = [[4,1],[1,1]], one round:
    row 1 then sums to 82/91 (pyref's row sum within bound × 82/91 of it), and the orders differ
    (entry (1,2): 2/7 vs 5/13). Round-off: entrywise relative error ρ, after a step ≤
    (1+ρ)(1+u)/((1−ρ)(1−γ_{n−1})) − 1 (numerator ρ, the sum of nonnegative terms a weighted
    average of the ρ's plus γ_{n−1}, one division), ρ₀ = 0 (integers are exact); the deviation is
    the largest relative error, computed exactly with Fractions (so a row of nonnegative entries
    sums within bound × its exact sum)."""
    M, iters = ex
    n = M.shape[0]
    res, exact = {}, {}
    for order in mhc.ORDERS:
        res[order] = mhc.sinkhorn_iterate(M, iters, order, backend=backend, dps=dps)
        exact[order] = _exact_sinkhorn(M, iters, order)
    with ctx(backend, dps):
        # unit round-off: 2^-53, or 2^(1-prec) at the mp working precision (correct rounding)
        u = U64 if backend == "float64" else 2.0 ** (1 - mpmath.mp.prec)
    gam = (n - 1) * u / (1 - (n - 1) * u)
    rho = 0.0
    for _ in range(2 * iters):
        rho = (1 + rho) * (1 + u) / ((1 - rho) * (1 - gam)) - 1
    rel = max(abs(_frac(res[o][i, j]) / exact[o][i][j] - 1)
              for o in mhc.ORDERS for i in range(n) for j in range(n))
    bnd = SLACK * rho if backend == "float64" else max(rho, mp_bound(1.0))
    gap_exact = max(abs(exact["row-first"][i][j] - exact["col-first"][i][j]) for i in range(n) for j in range(n))
    met = float(gap_exact) > 1e6 * bnd
    dev = float(rel)
    bq = Fraction(bnd)
    rows_exact = [sum(exact["row-first"][i]) for i in range(n)]
    rows_res = [sum(_frac(res["row-first"][i, j]) for j in range(n)) for i in range(n)]
    for i in range(n):
        if abs(rows_exact[i] - 1) > 1e6 * bq * max(rows_exact[i], 1) and not abs(rows_res[i] - 1) > bq * rows_exact[i]:
            dev += 1.0                                  # pyref's finite round looks doubly stochastic
    if iters == 1 and np.array_equal(M, SINK_M0):
        if rows_exact[0] != Fraction(82, 91) or exact["row-first"][0][1] != Fraction(2, 7) \
                or exact["col-first"][0][1] != Fraction(5, 13):
            dev += 1.0                                  # the exact reference does not reproduce the paper
        if abs(rows_res[0] - Fraction(82, 91)) > bq * Fraction(82, 91):
            dev += 1.0                                  # pyref's row 1 does not sum to 82/91
    if met:
        with ctx(backend, dps):
            gap = maxabs(res["row-first"] - res["col-first"])
        dev += 0.0 if gap > 2 * bnd else 1.0
    return Outcome(dev, bnd, met=met)


@st.composite
def transfer_inputs(draw):
    kind = draw(st.sampled_from(["random", "random", "paper"]))
    if kind == "paper":   # one stream, B = 1, A = 0.5, C = 1, F(u) = 4u: x ↦ 3x
        d = draw(st.integers(1, 4))
        return dict(Z=np.zeros((1, 1)), iters=1, order="row-first", X=draw(arr((1, d))), A=np.array([[0.5]]),
                    C=np.array([[1.0]]), g=4.0, x=draw(arr((d,))))
    sk = draw(sinkhorn_inputs())
    n, d = sk["Z"].shape[0], draw(st.integers(1, 4))
    sk.update(X=draw(arr((n, d))), A=draw(arr((1, n), st.just(1.0))), C=draw(arr((n, 1), st.just(1.0))),
              g=draw(st.floats(0.5, 4.0, width=64)), x=draw(arr((d,))))
    return sk


@prop(theorems=LEAN["mhc_transfer_can_amplify"],
      paper="mHC §3: the bound constrains B only; the transfer x ↦ Bx + C F(Ax) can amplify",
      strategy=transfer_inputs)
def mhc_transfer_can_amplify(ex, backend, dps):
    """pyref's ``mhc_transfer`` with F(u) = g·u equals (B + g C A) X (B from Sinkhorn; the paper's
    one-stream example B = 1, A = 0.5, C = 1, g = 4 gives 3X); witness: with all streams equal
    (X = 𝟙xᵀ, A = 𝟙ᵀ/n, C = 𝟙) the output is B𝟙xᵀ + g𝟙xᵀ, of Frobenius norm ≥ (1 + g − δr)‖X‖ > ‖X‖
    (δr the row-sum defect of B; met when δr ≤ 1e-3) although ‖B‖₂ ≤ 1: pyref's output must have
    ‖out‖ > (1 + g/2)‖X‖. Identity majorant B|X| + g|C||A||X|, index D = 2n + 4."""
    B = mhc.sinkhorn(ex["Z"], ex["iters"], ex["order"], backend=backend, dps=dps)
    n, d = ex["X"].shape
    b = _bk(backend, dps)
    with b.context():
        (gb,) = conv(backend, dps, np.float64(ex["g"]))
        g = gb[()]
        out = mhc.mhc_transfer(ex["X"], B, ex["A"], ex["C"], lambda u: g * u, backend=backend, dps=dps)
        X, A, C = conv(backend, dps, ex["X"], ex["A"], ex["C"])
        dev = maxabs(out - (B + g * (C @ A)) @ X)
        Xw = np.ones((n, 1)) * ex["x"][None, :]
        Aw = np.full((1, n), 1.0 / n)
        outw = mhc.mhc_transfer(Xw, B, Aw, np.ones((n, 1)), lambda u: g * u, backend=backend, dps=dps)
        outw_norm = float(_f(b.sqrt(np.sum(outw * outw))))
    Bf = to_float64(B)
    T = Bf @ np.abs(ex["X"]) + ex["g"] * np.abs(ex["C"]) @ np.abs(ex["A"]) @ np.abs(ex["X"])
    dr = float(np.max(np.abs(Bf.sum(axis=1) - 1)))
    met = dr <= 1e-3 and np.any(ex["x"] != 0)
    if met and not outw_norm > (1 + ex["g"] / 2) * float(np.linalg.norm(Xw)):
        dev += 1.0
    return Outcome(dev, bound(backend, 2 * n + 4, T), met=bool(met))


# ============================================================================ AttnRes (§4)
@st.composite
def attnres_inputs(draw, n_lo=2):
    N, d = draw(st.integers(n_lo, 8)), draw(st.integers(1, 6))
    V = draw(arr((N, d)))
    w = draw(arr((d,), st.sampled_from([0.1, 1.0, 10.0])))
    mask = np.array(draw(st.lists(st.booleans(), min_size=N, max_size=N)))
    if mask.all() or not mask.any():
        mask[0] = not mask[0]
    return dict(V=V, w=w, mask=mask, h=draw(arr((d,))), g=draw(st.floats(-2.0, 2.0, width=64)))


def _abs_scores(V, w, eps=attnres.EPS):
    """|w|ᵀ|RMSNorm(v_i)| in float64 (the score majorant) and log N."""
    d = V.shape[1]
    Kf = np.abs(V) / np.sqrt(eps + np.sum(V * V, axis=1, keepdims=True) / d)
    return Kf @ np.abs(w)


def _attn_T(ex):
    """Majorant scale of depth-attention read-outs: 8 max|v| (1 + max |w|ᵀ|k_i| + log N) (see
    attnres_two_phase_merge)."""
    N = ex["V"].shape[0]
    return 8 * max(float(np.max(np.abs(ex["V"]))), 1e-300) * (1 + float(np.max(_abs_scores(ex["V"], ex["w"]))) + math.log(N))


def _attn_D(ex):
    N, d = ex["V"].shape
    return 2 * N + 2 * d + 16


@prop(theorems=LEAN["attnres_two_phase_merge"],
      paper="AttnRes §4: two-phase (block/partial) evaluation with log-sum-exp statistics equals one pass",
      strategy=attnres_inputs)
def attnres_two_phase_merge(ex, backend, dps):
    """pyref's ``two_phase_depth_attention`` (partials h_G, L_G of two random non-empty groups,
    merged by L = log(e^{L_A} + e^{L_B}), h = e^{L_A−L}h_A + e^{L_B−L}h_B) and pyref's one-pass
    ``depth_attention`` both equal the read-out computed here from the spec formulas
    (k_i = v_i/√(ε + ‖v_i‖²/d), s_i = wᵀk_i, α = softmax(s) with max subtraction, h = Σα_i v_i),
    and L = log Σ_i e^{s_i}; pyref's one-pass h (max-shifted) also equals the unshifted
    e^{s_i}/Σ_j e^{s_j} read-out (shift invariance; |s_i| ≤ 10·6·√6 < 150 here, no overflow).
    Bound: score errors δ ≤ γ(2d+6)·|w|ᵀ|k_i|, exp arguments
    additionally u·|s|; the weights' relative error is ≤ 2 × (argument error) + γ_{N+3}, the merge
    adds 2 × (error of L_A − L) + 4u; with h ≤ max|v| this is ≤ γ_D·8 max|v|(1 + max|w|ᵀ|k_i| +
    log N) per evaluation, D = 2N + 2d + 16 (same scale for L without the max|v|; the unshifted
    reference has no shift rounding, so the same bound)."""
    V, w, mask = ex["V"], ex["w"], ex["mask"]
    h2, L2 = attnres.two_phase_depth_attention(w, V, mask, backend=backend, dps=dps)
    h1, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        Vb, wb = conv(backend, dps, V, w)
        d = V.shape[1]
        Kb = Vb / b.sqrt(b.const(attnres.EPS) + np.sum(Vb * Vb, axis=1, keepdims=True) / d)
        s = Kb @ wb
        m = np.max(s)
        ez = b.exp(s - m)
        Z = np.sum(ez)
        href = (ez / Z) @ Vb
        Lref = m + b.log(Z)
        e0 = b.exp(s)
        href0 = (e0 / np.sum(e0)) @ Vb                  # no max subtraction
        dev = maxabs(h1 - href) + maxabs(h2 - href) + maxabs(h1 - href0)
        devL = maxabs(L2 - Lref)
    T = _attn_T(ex)
    TL = 8 * (1 + float(np.max(_abs_scores(V, w))) + math.log(V.shape[0]))
    return Outcome(dev + devL, 3 * bound(backend, _attn_D(ex), T) + bound(backend, _attn_D(ex), TL))


@prop(theorems=LEAN["attnres_average_halves_differs"],
      paper="AttnRes §4: averaging the two groups' read-outs is not the one-pass result",
      strategy=attnres_inputs)
def attnres_average_halves_differs(ex, backend, dps):
    """With pyref's partials (h_A, L_A), (h_B, L_B) and one-pass h: h − ½(h_A + h_B) =
    (σ(L_A − L_B) − ½)(h_A − h_B) (σ the logistic function: e^{L_A−L} = σ(L_A − L_B)). Witness:
    met when the exact right side is far above round-off (groups with different partition
    functions and read-outs); then pyref's average must differ from the one-pass h by more than
    the bound. Bound: three read-outs and σ (argument error ≤ 2 × L error), each within the
    attnres_two_phase_merge majorant: 4 × that bound."""
    V, w, mask = ex["V"], ex["w"], ex["mask"]
    hA, LA = attnres.depth_attention_partial(w, V[mask], backend=backend, dps=dps)
    hB, LB = attnres.depth_attention_partial(w, V[~mask], backend=backend, dps=dps)
    h, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        avg = (hA + hB) / 2
        sig = 1 / (1 + b.exp(LB - LA))
        rhs = (sig - b.const(0.5)) * (hA - hB)
        dev = maxabs((h - avg) - rhs)
        effect = maxabs(rhs)
        seen = maxabs(h - avg)
    bnd = 4 * bound(backend, _attn_D(ex), _attn_T(ex))
    met = effect > 1e3 * bnd
    if met and not seen > bnd:
        dev += 1.0
    return Outcome(dev, bnd, met=met)


@prop(theorems=LEAN["attnres_zero_query_uniform"],
      paper="AttnRes §4: w = 0 gives uniform weights; the additive Delta read-out is then not the identity",
      strategy=attnres_inputs)
def attnres_zero_query_uniform(ex, backend, dps):
    """With query w = 0 pyref's scores (``depth_scores``) are exact zeros and its weights exactly
    1/N (exp(0) = 1, the sum N is exact: bound 0), and pyref's additive Delta AttnRes input is
    h̃ + (1/N)Σv_i, i.e. the read-out is the candidate mean (majorant
    |h̃| + (1/N)Σ|v_i|, index N + 3) -- not the identity: met when the mean candidate is far above
    round-off, then ĥ must differ from h̃ by more than the bound."""
    V, h = ex["V"], ex["h"]
    N, d = V.shape
    zero = np.zeros(d)
    _, a = attnres.depth_attention(zero, V, backend=backend, dps=dps)
    s0 = attnres.depth_scores(zero, V, backend=backend, dps=dps)
    hh = attnres.delta_attnres_input(h, zero, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        Vb, hb = conv(backend, dps, V, h)
        uni = b.const(1) / N
        dev_w = maxabs(a - uni) + maxabs(s0)
        dev_h = maxabs(hh - (hb + np.sum(Vb, axis=0) / N))
        moved = maxabs(hh - hb)
    T = np.abs(h) + np.sum(np.abs(V), axis=0) / N
    bnd = bound(backend, N + 3, T)
    mean = float(np.max(np.abs(V.mean(axis=0))))
    met = mean > 1e3 * bnd
    if dev_w != 0.0:                          # the uniform weights are exact: bound 0
        return Outcome(dev_w + dev_h, 0.0)
    dev = dev_h + (1.0 if met and not moved > bnd else 0.0)
    return Outcome(dev, bnd, met=met)


@prop(theorems=LEAN["attnres_zero_gate_identity"],
      paper="AttnRes §4: the zero-initialized scalar gate ĥ = h̃ + g·r is the identity at g = 0",
      strategy=attnres_inputs)
def attnres_zero_gate_identity(ex, backend, dps):
    """pyref's ``gated_attnres_input`` with g = 0 returns h̃ exactly (h̃ + 0·r = h̃: bound 0), and
    for the drawn g it returns h̃ + g·r with r pyref's one-pass read-out (majorant |h̃| + |g||r|,
    index 2 plus the read-out's own bound)."""
    V, w, h, g = ex["V"], ex["w"], ex["h"], ex["g"]
    h0 = attnres.gated_attnres_input(h, w, V, 0.0, backend=backend, dps=dps)
    hg = attnres.gated_attnres_input(h, w, V, g, backend=backend, dps=dps)
    r, _ = attnres.depth_attention(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        hb, gb = conv(backend, dps, h, np.float64(g))
        dev0 = maxabs(h0 - hb)
        devg = maxabs(hg - (hb + gb[()] * r))
    T = np.abs(h) + abs(g) * np.max(np.abs(V))
    if dev0 != 0.0:
        return Outcome(dev0 + devg, 0.0)
    return Outcome(devg, bound(backend, 2, T) + abs(g) * bound(backend, _attn_D(ex), _attn_T(ex)))


@prop(theorems=LEAN["attnres_zero_candidate_changes_weights"],
      paper="AttnRes §4: a zero-vector candidate still changes the other weights (adds e⁰ to the denominator)",
      strategy=lambda: st.tuples(attnres_inputs(n_lo=1), st.integers(0, 8)))
def attnres_zero_candidate_changes_weights(ex, backend, dps):
    """Appending a zero vector as a candidate (at a random position): pyref's new weights are
    α'_i = α_i Z/(Z + 1) for the old candidates and 1/(Z + 1) for the zero one (its key is 0, its
    score 0: pyref's ``rms_norm`` of the zero vector is exactly 0), Z = Σ e^{s_i} from pyref's
    ``depth_scores``; no old weight may rise (α'_i ≤ α_i up to the bound); witness: met when
    1/(Z + 1) is far above round-off, then α' must differ from α by more than the bound. Weights
    ≤ 1 with relative error ≤ 2 × argument error + γ: majorant 4(1 + max|w|ᵀ|k_i|), index
    D = 2N + 2d + 16."""
    e, pos = ex
    V, w = e["V"], e["w"]
    N, d = V.shape
    pos = pos % (N + 1)
    V2 = np.insert(V, pos, np.zeros(d), axis=0)
    _, a = attnres.depth_attention(w, V, backend=backend, dps=dps)
    _, a2 = attnres.depth_attention(w, V2, backend=backend, dps=dps)
    s = attnres.depth_scores(w, V, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        m = max(np.max(s), b.const(0))
        ez = b.exp(s - m)
        Zm = np.sum(ez)                       # Z e^{-m}
        z0 = b.exp(-m)                        # e^0 e^{-m}
        others = np.delete(a2, pos)
        dev = maxabs(others - a * Zm / (Zm + z0)) + maxabs(a2[pos] - z0 / (Zm + z0))
        dev += maxabs(attnres.rms_norm(np.zeros((1, d)), backend=backend, dps=dps))
        rise = float(np.max(to_float64(others - a))) if N else 0.0       # exact value −α_i/(Z + 1) < 0
        change = maxabs(others - a)
        effect = float(_f(z0 / (Zm + z0))) * float(np.max(to_float64(a)))
    T = 4 * (1 + float(np.max(_abs_scores(V, w))))
    bnd = bound(backend, 2 * (N + 1) + 2 * d + 16, T)
    met = effect > 1e3 * bnd
    if met and not change > bnd:
        dev += 1.0
    if rise > bnd:                                    # an old weight rose beyond round-off
        dev += 1.0
    return Outcome(dev, bnd, met=met)


# ============================================================================ mutants
VARIANT_MUTANTS = [
    # KLA
    Mutant("kla_beta_without_eps", "variants/kla.py",
           "return eta / (_sqnorm(k) + eps)", "return eta / _sqnorm(k)",
           "KLA β = η/‖k‖² (ε dropped)", ["kla_residual_contraction", "kla_proximal_equivalence"]),
    Mutant("kla_decay_after_write", "variants/kla.py",
           "return _write(alpha * S, k, v, beta)[0]", "return alpha * _write(S, k, v, beta)[0]",
           "KLA writes at the undecayed state and decays afterwards (base point S instead of S̃ = αS)",
           ["kla_residual_contraction"]),
    Mutant("kla_readout_unnormalized", "variants/kla.py",
           "return (S.T @ q) / b.sqrt(_sqnorm(q))", "return S.T @ q",
           "KLA read-out Sᵀq without the 1/‖q‖", ["kla_chunkwise_equals_recurrence"]),
    Mutant("kla_chunk_state_without_decay_ratios", "variants/kla.py",
           "S_out = gam[-1] * S0 + K.T @ ((gam[-1] / gam)[:, None] * U)",
           "S_out = gam[-1] * S0 + K.T @ U",
           "chunkwise S_out forgets the decay factors γ_C/γ_j", ["kla_chunkwise_equals_recurrence"]),
    Mutant("kla_chunk_readout_strict_mask", "variants/kla.py",
           "O = gam[:, None] * (Qn @ S0) + (A * (Qn @ K.T)) @ U",
           "O = gam[:, None] * (Qn @ S0) + (A_strict * (Qn @ K.T)) @ U",
           "chunkwise read-out uses A⁻ (misses the current token's write)", ["kla_chunkwise_equals_recurrence"]),
    # Gated DeltaNet / KDA
    Mutant("deltanet_residual_before_decay", "variants/deltanet.py",
           "r = v - X.T @ k                            # [d_v]",
           "r = v - S.T @ k                            # [d_v]",
           "the delta-rule residual is read from the undecayed state S instead of X = D S",
           ["deltanet_chunking_equals_sequential", "deltanet_order_matters"]),
    Mutant("deltanet_compose_reversed", "variants/deltanet.py",
           "return P2 @ P1, P2 @ R1 + R2", "return P1 @ P2, P1 @ R2 + R1",
           "affine maps composed in the wrong order", ["deltanet_chunking_equals_sequential"]),
    Mutant("deltanet_map_decay_on_left", "variants/deltanet.py",
           "P = E * alpha if np.ndim(alpha) == 0 else E * alpha[None, :]",
           "P = E * alpha if np.ndim(alpha) == 0 else alpha[:, None] * E",
           "KDA step map D(I − βkkᵀ) instead of (I − βkkᵀ)D", ["deltanet_order_matters"]),
    Mutant("deltanet_chunk_state_reset", "variants/deltanet.py",
           "            S = P @ S + R\n", "            S = R\n",
           "the state is reset at every chunk boundary (a new document, not a chunking)",
           ["deltanet_chunking_equals_sequential"]),
    # mHC
    Mutant("sinkhorn_col_step_uses_row_sums", "variants/mhc.py",
           "return M / np.sum(M, axis=0, keepdims=True)", "return M / np.sum(M, axis=1, keepdims=True)",
           "the Sinkhorn column step divides by the row sums", ["mhc_sinkhorn_column_step"]),
    Mutant("sinkhorn_orders_swapped", "variants/mhc.py",
           'first, second = (_row_step, _col_step) if order == "row-first" else (_col_step, _row_step)',
           'first, second = (_col_step, _row_step) if order == "row-first" else (_row_step, _col_step)',
           "row-first and column-first rounds swapped", ["mhc_sinkhorn_iterates", "mhc_sinkhorn_column_step"]),
    Mutant("sinkhorn_one_round_short", "variants/mhc.py",
           "for _ in range(n_iters):", "for _ in range(n_iters - 1):",
           "Sinkhorn runs one round fewer than asked", ["mhc_sinkhorn_iterates"]),
    Mutant("mhc_transfer_without_mixing", "variants/mhc.py",
           "return B @ X + C @ y", "return X + C @ y",
           "the layer adds the plain residual X instead of the mixed streams B X", ["mhc_transfer_can_amplify"]),
    # AttnRes
    Mutant("attnres_merge_by_averaging", "variants/attnres.py",
           "return b.exp(LA - L) * hA + b.exp(LB - L) * hB, L", "return (hA + hB) / 2, L",
           "two-phase merge averages the groups' read-outs", ["attnres_two_phase_merge"]),
    Mutant("attnres_lse_without_max", "variants/attnres.py",
           "return alpha @ V, _scalar(m + b.log(Z)), alpha", "return alpha @ V, _scalar(b.log(Z)), alpha",
           "a group's log-partition forgets the subtracted maximum", ["attnres_two_phase_merge"]),
    Mutant("attnres_values_are_normalized_keys", "variants/attnres.py",
           "return alpha @ V, _scalar(m + b.log(Z)), alpha",
           "return alpha @ _rms_norm(b, V, eps), _scalar(m + b.log(Z)), alpha",
           "the read-out averages the RMS-normalized keys instead of the raw candidates",
           ["attnres_two_phase_merge"]),
    Mutant("attnres_rmsnorm_without_mean", "variants/attnres.py",
           "return V / b.sqrt(eps + np.sum(V * V, axis=-1, keepdims=True) / d)",
           "return V / b.sqrt(eps + np.sum(V * V, axis=-1, keepdims=True))",
           "RMSNorm divides by ‖v‖ instead of ‖v‖/√d", ["attnres_two_phase_merge"]),
    Mutant("attnres_gate_ignored", "variants/attnres.py",
           "return h_tilde + g[()] * _partial(b, w, V, e)[0]", "return h_tilde + _partial(b, w, V, e)[0]",
           "the scalar gate is ignored (ĥ = h̃ + r)", ["attnres_zero_gate_identity"]),
]
