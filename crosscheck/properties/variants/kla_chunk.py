"""Cross-check properties of ``Formal/Variants/KlaChunk.lean``: ``kla_chunkwise_equals_recurrence``
and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from pyref.variants import kla

from ...registry import combine, prop
from .._arith import bound, conv, ctx, maxabs
from ._shared import EPS, ETA, SLACK, STATE_SCALE, _nonzero_rows, arr

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Variants.KlaChunk.nsum_succ":
        "definitional unfolding of the Nat-indexed prefix sum; nothing to measure",
    "PLGA.Variants.KlaChunk.nsum_congr_lt":
        "prefix sums of functions agreeing below n are equal; sum-algebra helper",
    "PLGA.Variants.KlaChunk.nsum_mul_left":
        "c·Σf = Σ c·f for prefix sums; sum-algebra helper",
    "PLGA.Variants.KlaChunk.nsum_add":
        "Σ(f + g) = Σf + Σg for prefix sums; sum-algebra helper",
    "PLGA.Variants.KlaChunk.nsum_mul_right":
        "(Σf)·c = Σ f·c for prefix sums; sum-algebra helper",
    "PLGA.Variants.KlaChunk.fsum_nsum_comm":
        "exchange of a Fin sum and a prefix sum; sum-algebra helper",
    "PLGA.Variants.KlaChunk.fsum_eq_nsum":
        "a Fin n sum equals the Nat prefix sum; index bookkeeping",
    "PLGA.Variants.KlaChunk.nsum_masked":
        "a prefix sum of a term masked beyond m equals the sum up to m; index bookkeeping",
    "PLGA.Variants.KlaChunk.fsum_masked_eq_nsum":
        "a Fin C sum of a prefix-masked term is the prefix sum; index bookkeeping",
    "PLGA.Variants.KlaChunk.state_succ_apply":
        "one recurrence step written entrywise as α S + k uᵀ; definitional unfolding of "
        "DeltaNet.step with a scalar gate",
    "PLGA.Variants.KlaChunk.kc_readout_apply_left":
        "the read-out Sᵀp as Σ_x p_x S_x; reordering of a product in a sum",
    "PLGA.Variants.KlaChunk.readout_smul":
        "(aS)ᵀp = a Sᵀp; linearity helper",
    "PLGA.Variants.KlaChunk.state_unroll":
        "unrolled recurrence S_t = γ_t S₀ + Σ_j (γ_t/γ_{j+1}) k_j u_jᵀ; lemma whose t = C form is "
        "chunk_state_eq_recurrence (checked by kla_chunkwise_equals_recurrence)",
    "PLGA.Variants.KlaChunk.readout_unrolled":
        "read-out of the unrolled form; sum-algebra step of chunk_output_eq_recurrence",
    "PLGA.Variants.KlaChunk.wvec_row":
        "row t of the system for the recurrence's write vectors; lemma of recurrence_solves_system "
        "(checked)",
    "PLGA.Variants.KlaChunk.sysMat_apply":
        "definitional unfolding of the entries of I + B(A⁻ ⊙ KKᵀ)",
    "PLGA.Variants.KlaChunk.sysMat_mul_apply":
        "definitional unfolding of a row of (I + B(A⁻ ⊙ KKᵀ))U",
    "PLGA.Variants.KlaChunk.sysRhs_apply":
        "definitional unfolding of the entries of B(V − D_γ K S₀)",
    "PLGA.Variants.KlaChunk.sysMat_unit_lower":
        "unit lower triangularity of I + B(A⁻ ⊙ KKᵀ) holds by construction (pyref masks A⁻ to the "
        "strict lower part and its forward substitution reads only that part); no computed "
        "quantity to measure",
    "PLGA.Variants.KlaChunk.gam_ne_of":
        "restates the hypothesis γ_i ≠ 0 for prefixes; hypothesis plumbing",
    "PLGA.Variants.KlaChunk.outMat_apply":
        "definitional unfolding of the entries of O = D_γQS₀ + (A ⊙ QKᵀ)U",
}


ALPHA_POS = st.one_of(st.just(1.0), st.floats(0.05, 1.0, width=64))


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
    S, out, U = np.abs(S0), [], []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        St = alpha[t] * S
        E = np.abs(V[t]) + St.T @ ka
        S = St + beta[t] * np.outer(ka, E)
        out.append(S.T @ np.abs(Qn[t]))
        U.append(beta[t] * E)
    return np.array(out), S, np.array(U)


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


@prop(theorems=["PLGA.Variants.KlaChunk.recurrence_solves_system",
                "PLGA.Variants.KlaChunk.system_solution_unique",
                "PLGA.Variants.KlaChunk.chunk_output_eq_recurrence",
                "PLGA.Variants.KlaChunk.chunk_state_eq_recurrence"],
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
    O1, S1, states = kla.kla_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["alpha"],
                                       e["eta"], e["eps"],
                                       return_states=True, backend=backend, dps=dps)
    O2, S2 = kla.kla_chunkwise(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], e["eps"],
                               chunk_size=e["C"], backend=backend, dps=dps)
    T, dk = e["K"].shape
    C = min(e["C"], T)
    _, _, Uc = kla.kla_chunk(e["S0"], e["K"][:C], e["V"][:C], e["Q"][:C], e["alpha"][:C],
                             e["eta"][:C], e["eps"],
                             backend=backend, dps=dps)
    bk = kla.kaczmarz_beta(e["K"][:C], e["eta"][:C], e["eps"], backend=backend, dps=dps)
    with ctx(backend, dps):
        dev_o, dev_s = maxabs(O1 - O2), maxabs(S1 - S2)
        S0, K, V, al = conv(backend, dps, e["S0"], e["K"], e["V"], e["alpha"])
        prev = [S0] + [states[t] for t in range(C - 1)]
        Urec = np.stack([bk[t] * (V[t] - (al[t] * prev[t]).T @ K[t]) for t in range(C)])
        dev_u = maxabs(Uc - Urec)
    beta = e["eta"] / (np.sum(e["K"] ** 2, axis=1) + e["eps"])
    Qn = e["Q"] / np.linalg.norm(e["Q"], axis=1, keepdims=True)
    Oa1, Sa1, Ua1 = _abs_kla_recurrent(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta)
    Oa2, Sa2, Ua2 = _abs_kla_chunkwise(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta, C)
    D = T * (2 * dk + 3 * C + 12) + 2 * dk + 3 * C + 10
    return combine([
        ("chunk_output_eq_recurrence: outputs", dev_o,
         SLACK * bound(backend, D, np.maximum(Oa1, Oa2))),
        ("chunk_state_eq_recurrence: final state", dev_s,
         SLACK * bound(backend, D, np.maximum(Sa1, Sa2))),
        ("recurrence_solves_system: first-chunk U", dev_u,
         SLACK * bound(backend, D, np.maximum(Ua1[:C], Ua2)))])
