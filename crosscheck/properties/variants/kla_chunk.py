"""Cross-check properties of ``Formal/Variants/KlaChunk.lean``: ``kla_chunkwise_equals_recurrence``,
the comparisons with the independent evaluator (:mod:`crosscheck.spec_eval.variants_linear`)
``kla_recurrence_matches_spec``, ``kla_chunk_matches_spec`` and ``kla_split_matches_spec``, and
``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

from pyref.variants import kla

from ...registry import Checks, combine, prop
from ...spec_eval import variants_linear as SL
from ...spec_eval._scalar import const, fsum, mat, matmul
from .._arith import bound, conv, ctx, maxabs
from ._shared import EPS, ETA, RNG, SLACK, STATE_SCALE, _nonzero_rows, arr, gap

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
    "PLGA.Variants.KlaChunk.kc_readout_apply_left":
        "the read-out Sᵀp as Σ_x p_x S_x; reordering of a product in a sum",
    "PLGA.Variants.KlaChunk.readout_smul":
        "(aS)ᵀp = a Sᵀp; linearity helper",
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


#: generic decays in (0, 1): every γ_i ≠ 0 (α = 1 runs as an explicit example of
#: kla_chunk_matches_spec)
ALPHA_POS = st.floats(0.05, 0.98, width=64)


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


# ============================================================================ spec evaluator
@st.composite
def kla_generic_sequences(draw):
    """A generic KLA sequence: T ∈ [2, 7], d_k, d_v ∈ [2, 4], generic keys, values, queries and
    start state, per-token α ∈ (0.3, 0.98) (every γ_i ≠ 0) and η ∈ (0.05, 1), a generic ε (or
    1e-6), and a chunk size C ∈ [1, T + 1]."""
    rng = draw(RNG)
    T, dk, dv = draw(st.integers(2, 7)), draw(st.integers(2, 4)), draw(st.integers(2, 4))
    s = draw(st.sampled_from([0.1, 1.0, 10.0]))
    u = rng.uniform
    return dict(S0=u(-1, 1, (dk, dv)) * s, K=u(-1, 1, (T, dk)) * draw(st.sampled_from([0.5, 2.0])),
                V=u(-1, 1, (T, dv)) * s, Q=u(-1, 1, (T, dk)), alpha=u(0.3, 0.98, T),
                eta=u(0.05, 1.0, T), eps=draw(st.sampled_from([kla.EPS, float(u(0.01, 0.5))])),
                C=draw(st.integers(1, T + 1)))


def _stream(ex):
    """The evaluator's ``Stream`` of the KLA sequence (β_t = klaBeta, normalized queries) and
    its start state (inside ``mpmath.workdps``)."""
    K, V, Q, a, eta = (mat(ex[n]) for n in ("K", "V", "Q", "alpha", "eta"))
    return SL.klaStream(K, V, Q, a, eta, const(ex["eps"])), mat(ex["S0"])


def _unrolled(s, S0, t, W):
    """The right side of ``state_unroll``: cum t · S₀ + Σ_{j<t} (cum t/cum (j+1)) k_j u_jᵀ (u_j
    = ``wvec``, given as ``W``), assembled from the evaluator's ``cum``."""
    ct = SL.cum(s, t)
    return [[ct * S0[x][y] + fsum(ct / SL.cum(s, j + 1) * (s.k[j][x] * W[j][y]) for j in range(t))
             for y in range(len(S0[0]))] for x in range(len(S0))]


def _abs_kla_states(S0, K, V, Qn, alpha, beta):
    """f_abs of the token loop per token: (states_abs [T, d_k, d_v], O_abs [T, d_v])."""
    S, states, out = np.abs(S0), [], []
    for t in range(K.shape[0]):
        ka, St = np.abs(K[t]), alpha[t] * S
        S = St + beta[t] * np.outer(ka, np.abs(V[t]) + St.T @ ka)
        states.append(S)
        out.append(S.T @ np.abs(Qn[t]))
    return np.array(states), np.array(out)


def _floats(ex):
    """(β [T], normalized queries) in float64, for the majorants (relative error < 1e-12)."""
    beta = ex["eta"] / (np.sum(ex["K"] ** 2, axis=1) + ex["eps"])
    return beta, ex["Q"] / np.linalg.norm(ex["Q"], axis=1, keepdims=True)


def _special_seq(**kw):
    T, dk, dv = 3, 2, 2
    ex = dict(S0=np.array([[1.0, -0.5], [0.25, 2.0]]), K=np.array([[1.0, 0.0], [1.0, 1.0],
                                                                     [0.0, -2.0]]),
              V=np.array([[0.5, 1.0], [-1.0, 0.0], [2.0, 0.5]]), Q=np.ones((T, dk)),
              alpha=np.ones(T), eta=np.ones(T), eps=0.0, C=1)
    ex.update(kw)
    assert ex["S0"].shape == (dk, dv)
    return ex


#: special values, run before the generic draws: no decay (α = 1), η = 1, ε = 0, chunks of one
#: token; one chunk for the whole sequence; a chunk size beyond T
SEQ_EXAMPLES = (_special_seq(), _special_seq(C=3, alpha=np.array([0.5, 1.0, 0.25])),
                _special_seq(C=5, eta=np.full(3, 0.5), eps=1e-6))


@prop(theorems=["PLGA.Variants.KlaChunk.state_succ_apply", "PLGA.Variants.KlaChunk.state_unroll"],
      paper="KLA §2: the token recurrence S_t = α_t S_{t−1} + k_t u_tᵀ and o_t = S_tᵀq_t/‖q_t‖",
      strategy=kla_generic_sequences, examples=SEQ_EXAMPLES)
def kla_recurrence_matches_spec(ex, backend, dps):
    """pyref's ``kla_recurrent`` (with and without ``return_states``) against the evaluator's
    KLA ``Stream`` (``KlaChunk.state``: ``state (t+1) = DeltaNet.step (s.tok t) (state t)``,
    β_t = ``klaBeta``, read-out with q_t/‖q_t‖) on generic sequences: every state S_t
    (``state_succ_apply``), every output, the final state; and every pyref state against the
    unrolled form cum t · S₀ + Σ_{j<t} (cum t/cum(j+1)) k_j u_jᵀ assembled from the evaluator's
    ``cum`` and ``wvec`` (``state_unroll``, all γ_i ≠ 0 here). Bound: γ_D × the loop's majorant
    per state and output (:func:`_abs_kla_states`), D = T(2d_k + 8) + 2d_k + 2 (each token adds
    ≤ 2d_k + 8 to the state's index: decay 1, S̃ᵀk d_k, subtraction 1, βk d_k + 4, product and
    sum 2; the read-out 2d_k + 2)."""
    e = ex
    args = (e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], e["eps"])
    Ot, S, states = kla.kla_recurrent(*args, return_states=True, backend=backend, dps=dps)
    O2, S2 = kla.kla_recurrent(*args, backend=backend, dps=dps)
    T, dk = e["K"].shape
    with mpmath.workdps(dps):
        s, S0 = _stream(e)
        St = [SL.state(s, S0, t) for t in range(T + 1)]
        W = [SL.wvec(s, S0, t) for t in range(T)]
        ref_o = [SL.readout(St[t + 1], s.q[t]) for t in range(T)]
        unrolled = [_unrolled(s, S0, t + 1, W) for t in range(T)]
    beta, Qn = _floats(e)
    Sa, Oa = _abs_kla_states(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta)
    D = T * (2 * dk + 8) + 2 * dk + 2
    chk = Checks()
    for t in range(T):
        bt = SLACK * bound(backend, D, Sa[t])
        chk.le(f"state_succ_apply: S_{t + 1} = state", gap(states[t], St[t + 1]), bt)
        chk.le(f"state_unroll: S_{t + 1} = unrolled form", gap(states[t], unrolled[t]), bt)
    chk.le("outputs o_t = readout S_t q̂_t", gap(Ot, ref_o), SLACK * bound(backend, D, Oa))
    chk.le("final state = state T", gap(S, St[T]), SLACK * bound(backend, D, Sa[-1]))
    chk.le("return_states=False: same (O, S_T)", gap(O2, ref_o) + gap(S2, St[T]),
           SLACK * bound(backend, D, np.concatenate([Oa.ravel(), Sa[-1].ravel()])))
    return chk.outcome()


@prop(theorems=["PLGA.Variants.KlaChunk.recurrence_solves_system",
                "PLGA.Variants.KlaChunk.system_solution_unique",
                "PLGA.Variants.KlaChunk.chunk_output_eq_recurrence",
                "PLGA.Variants.KlaChunk.chunk_state_eq_recurrence"],
      paper="KLA §2: chunkwise form against the Lean chunk matrices and the recurrence",
      strategy=kla_generic_sequences, examples=SEQ_EXAMPLES)
def kla_chunk_matches_spec(ex, backend, dps):
    """pyref's ``kla_chunk`` on the first C tokens (all three results) and ``kla_chunkwise``
    (chunks of C) against the evaluator (``KlaChunk.lean``) on generic sequences: U = ``Urec``
    (the recurrence's write vectors: ``system_solution_unique``), and pyref's U solves the
    evaluator's system, ``sysMat`` U − ``sysRhs`` = 0 (``recurrence_solves_system``); O =
    ``outMat S₀ Urec`` and = the recurrence outputs ``readout (state (i+1)) q̂_i``
    (``chunk_output_eq_recurrence``); S_out = ``stateOut S₀ Urec`` = ``state C``
    (``chunk_state_eq_recurrence``); ``kla_chunkwise``'s outputs and final state = the
    recurrence's over the whole sequence. Bound: γ_D × the chunkwise program's majorant
    (``_abs_kla_chunkwise``), D = T(2d_k + 3C + 12) + 2d_k + 3C + 10 (derived at
    ``kla_chunkwise_equals_recurrence``); the system residual of pyref's U is
    sysMat(Û − U), majorant |sysMat| U_abs with |sysMat| ≤ I + B|A⁻||K||K|ᵀ."""
    e = ex
    T, dk = e["K"].shape
    C = min(e["C"], T)
    sl = slice(0, C)
    Oc, Sc, Uc = kla.kla_chunk(e["S0"], e["K"][sl], e["V"][sl], e["Q"][sl], e["alpha"][sl],
                               e["eta"][sl], e["eps"], backend=backend, dps=dps)
    Ow, Sw = kla.kla_chunkwise(e["S0"], e["K"], e["V"], e["Q"], e["alpha"], e["eta"], e["eps"],
                               chunk_size=e["C"], backend=backend, dps=dps)
    with mpmath.workdps(dps):
        s, S0 = _stream(e)
        U = SL.Urec(s, C, S0)
        resid = SL.sub(matmul(SL.sysMat(s, C), mat(Uc)), SL.sysRhs(s, C, S0))
        zero = [[mpmath.mpf(0)] * len(r) for r in resid]
        St = [SL.state(s, S0, t) for t in range(T + 1)]
        rec_o = [SL.readout(St[t + 1], s.q[t]) for t in range(T)]
        ref = dict(out=SL.outMat(s, C, S0, U), sout=SL.stateOut(s, C, S0, U))
    beta, Qn = _floats(e)
    Oa, Sa, Ua = _abs_kla_chunkwise(e["S0"], e["K"][sl], e["V"][sl], Qn[sl], e["alpha"][sl],
                                    beta[sl], C)
    Owa, Swa, _ = _abs_kla_chunkwise(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta, C)
    g = np.cumprod(e["alpha"][sl])
    Ka = np.abs(e["K"][sl])
    Mabs = np.eye(C) + beta[sl][:, None] * np.tril(g[:, None] / g[None, :], -1) * (Ka @ Ka.T)
    D = T * (2 * dk + 3 * C + 12) + 2 * dk + 3 * C + 10
    chk = Checks()
    chk.le("system_solution_unique: U = Urec", gap(Uc, U), SLACK * bound(backend, D, Ua))
    chk.le("recurrence_solves_system: sysMat U = sysRhs", gap(resid, zero),
           SLACK * bound(backend, D, Mabs @ Ua))
    chk.le("O = outMat S₀ Urec", gap(Oc, ref["out"]), SLACK * bound(backend, D, Oa))
    chk.le("chunk_output_eq_recurrence: O = recurrence outputs", gap(Oc, rec_o[:C]),
           SLACK * bound(backend, D, Oa))
    chk.le("S_out = stateOut S₀ Urec", gap(Sc, ref["sout"]), SLACK * bound(backend, D, Sa))
    chk.le("chunk_state_eq_recurrence: S_out = state C", gap(Sc, St[C]),
           SLACK * bound(backend, D, Sa))
    chk.le("kla_chunkwise outputs = recurrence", gap(Ow, rec_o), SLACK * bound(backend, D, Owa))
    chk.le("kla_chunkwise final state = state T", gap(Sw, St[T]), SLACK * bound(backend, D, Swa))
    return chk.outcome()


@st.composite
def kla_split(draw):
    """A generic KLA sequence (:func:`kla_generic_sequences`) and a split point t ∈ [0, T]
    (t = 0 or T: an empty first or second piece, a sequence of no tokens)."""
    ex = draw(kla_generic_sequences())
    ex["t"] = draw(st.integers(0, len(ex["K"])))
    return ex


def _kla_piece(ex, sl):
    """(K, V, Q, α, η) of the tokens in slice ``sl``."""
    return tuple(ex[n][sl] for n in ("K", "V", "Q", "alpha", "eta"))


def _abs_chunkwise_pieces(ex, Qn, beta, t):
    """f_abs of ``kla_chunkwise`` on tokens [0, t) from S₀ and then on [t, T) from the first
    piece's final state (:func:`_abs_kla_chunkwise` chained; an empty piece is skipped):
    (O_abs [T, d_v], S_abs)."""
    S, outs = np.abs(ex["S0"]), []
    for sl in (slice(0, t), slice(t, len(ex["K"]))):
        if sl.stop > sl.start:
            Oa, S, _ = _abs_kla_chunkwise(S, ex["K"][sl], ex["V"][sl], Qn[sl], ex["alpha"][sl],
                                         beta[sl], ex["C"])
            outs.append(Oa)
    return np.concatenate(outs), S


@prop(theorems=["PLGA.Variants.DeltaNet.run_append", "PLGA.Variants.DeltaNet.trace_append",
                "PLGA.Variants.KlaChunk.state_succ_apply"],
      paper="KLA §2: a sequence in two pieces, the second started from the first's final state "
            "(streaming, prefill then decode), equals one pass",
      strategy=kla_split)
def kla_split_matches_spec(ex, backend, dps):
    """pyref's ``kla_recurrent`` (with ``return_states``) and ``kla_chunkwise`` (chunks of C) run
    on the first t tokens from S₀ and then on the rest from the first run's final state (the
    array handed over as is) against the evaluator's one pass: the KLA tokens are the GDN tokens
    ``Stream.tok`` (β_t = ``klaBeta``, q̂_t = q_t/‖q_t‖), so ``trace`` / ``run`` of the whole
    token list (= ``state`` T, ``state_succ_apply``) equal the concatenated traces of the pieces
    and the second piece's final state (``trace_append``, ``run_append``). Every piece, empty
    ones included, returns outputs [n, d_v] and states [n, d_k, d_v] (exact shape check; d_k,
    d_v drawn independently). Bounds: the recurrent pieces perform the one-pass loop's
    operations in the same order on the same values (majorant :func:`_abs_kla_states`, index
    D = T(2d_k + 8) + 2d_k + 2 of ``kla_recurrence_matches_spec``); the chunkwise pieces are
    two chunkwise programs chained (majorant :func:`_abs_chunkwise_pieces`), index at most the
    sum of the two pieces' indices of ``kla_chunkwise_equals_recurrence``,
    T(2d_k + 3C + 12) + 2(2d_k + 3C + 10)."""
    e, t = ex, ex["t"]
    T, dk = e["K"].shape
    dv, C = e["V"].shape[1], e["C"]
    kw = {"backend": backend, "dps": dps}
    first, rest = _kla_piece(e, slice(0, t)), _kla_piece(e, slice(t, T))
    O1, S1, st1 = kla.kla_recurrent(e["S0"], *first, e["eps"], return_states=True, **kw)
    O2, S2, st2 = kla.kla_recurrent(S1, *rest, e["eps"], return_states=True, **kw)
    W1, R1 = kla.kla_chunkwise(e["S0"], *first, e["eps"], chunk_size=C, **kw)
    W2, R2 = kla.kla_chunkwise(R1, *rest, e["eps"], chunk_size=C, **kw)
    chk = Checks()
    shapes = [(O1, (t, dv)), (O2, (T - t, dv)), (st1, (t, dk, dv)), (st2, (T - t, dk, dv)),
              (W1, (t, dv)), (W2, (T - t, dv))]
    wrong = float(sum(np.shape(x) != s for x, s in shapes))
    chk.exact("piece outputs [n, d_v], states [n, d_k, d_v] (n tokens)", wrong)
    if wrong:                                  # the pieces cannot be concatenated
        return chk.outcome()
    with mpmath.workdps(dps):
        s, S0 = _stream(e)
        ts = [SL.Stream_tok(s, i) for i in range(T)]
        ro = lambda tok, S: SL.readout(S, tok.query)  # noqa: E731 (the trace's g)
        ref = dict(out=SL.trace(ro, ts, S0), states=SL.trace(lambda tok, S: S, ts, S0),
                   final=SL.run(ts, S0), state=SL.state(s, S0, T))
    beta, Qn = _floats(e)
    Sa, Oa = _abs_kla_states(e["S0"], e["K"], e["V"], Qn, e["alpha"], beta)
    Owa, Swa = _abs_chunkwise_pieces(e, Qn, beta, t)
    D = T * (2 * dk + 8) + 2 * dk + 2
    Dw = T * (2 * dk + 3 * C + 12) + 2 * (2 * dk + 3 * C + 10)
    chk.le("trace_append: recurrent outputs of the pieces = trace of the whole",
           gap(np.concatenate([O1, O2]), ref["out"]), SLACK * bound(backend, D, Oa))
    chk.le("trace_append: recurrent states of the pieces = state trace of the whole",
           gap(np.concatenate([st1, st2]), ref["states"]), SLACK * bound(backend, D, Sa))
    chk.le("run_append: recurrent final state = run of the whole", gap(S2, ref["final"]),
           SLACK * bound(backend, D, Sa[-1]))
    chk.le("state_succ_apply: recurrent final state = state T", gap(S2, ref["state"]),
           SLACK * bound(backend, D, Sa[-1]))
    chk.le("trace_append: chunkwise outputs of the pieces = trace of the whole",
           gap(np.concatenate([W1, W2]), ref["out"]), SLACK * bound(backend, Dw, Owa))
    chk.le("run_append: chunkwise final state = run of the whole", gap(R2, ref["final"]),
           SLACK * bound(backend, Dw, Swa))
    return chk.outcome()
