"""Cross-check properties of ``Formal/Variants/DeltaNet.lean``:
``deltanet_chunking_equals_sequential``, ``deltanet_order_matters``,
``deltanet_beta_one_not_invertible``, the comparisons with the independent evaluator
(:mod:`crosscheck.spec_eval.variants_linear`) ``deltanet_maps_match_spec``,
``deltanet_sequence_matches_spec`` and ``deltanet_split_matches_spec``, and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

from pyref.variants import deltanet

from ...registry import Checks, combine, prop
from ...spec_eval import variants_linear as SL
from ...spec_eval._scalar import mat
from .._arith import bound, conv, ctx, maxabs
from ._shared import ALPHA, RNG, SLACK, STATE_SCALE, _bk, _nonzero_rows, arr, gap

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Variants.DeltaNet.gdn_readout_apply":
        "definitional unfolding of the read-out Sᵀq into a sum; nothing to measure",
    "PLGA.Variants.DeltaNet.gdn_diag_mul_apply":
        "entry formula (Diag(d)S)_ij = d_i S_ij, the definition pyref's decay implements; a "
        "matrix-algebra helper",
    "PLGA.Variants.DeltaNet.gdn_mul_diag_apply":
        "entry formula (A Diag(d))_ij = A_ij d_j; matrix-algebra helper used inside proofs",
    "PLGA.Variants.DeltaNet.gdn_outer_mul_apply":
        "(u wᵀ)X = u (Xᵀw)ᵀ entrywise; sum-algebra helper used inside proofs",
    "PLGA.Variants.DeltaNet.aff_id_apply":
        "the identity affine map (I, 0) acts as the identity; structural base case of "
        "chunkAff_apply",
    "PLGA.Variants.DeltaNet.chunkTrace_eq_trace":
        "structural induction step of chunked_trace_eq_sequential (whose instances are checked by "
        "deltanet_chunking_equals_sequential)",
}


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
    beta = np.array(draw(st.lists(st.floats(0.02, 0.98, width=64), min_size=T, max_size=T)))
    cuts = sorted(draw(st.sets(st.integers(1, T - 1), max_size=T - 1))) if T > 1 else []
    lengths = [b - a for a, b in zip([0] + cuts, cuts + [T])]
    return dict(S0=draw(arr((dk, dv), STATE_SCALE)), K=K, V=draw(arr((T, dv), STATE_SCALE)),
                Q=draw(arr((T, dk))), beta=beta, alpha=alpha, lengths=lengths)


def _dmat(alpha_t, dk):
    return alpha_t * np.eye(dk) if np.ndim(alpha_t) == 0 else np.diag(alpha_t)


def _abs_deltanet_recurrent(S0, K, V, Q, beta, alpha):
    S, out = np.abs(S0), []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        X = _dmat(alpha[t], len(ka)) @ S
        S = X + beta[t] * np.outer(ka, np.abs(V[t]) + X.T @ ka)
        out.append(S.T @ np.abs(Q[t]))
    return np.array(out), S


def _abs_deltanet_chunked(S0, K, V, Q, beta, alpha, lengths):
    S, out, s = np.abs(S0), [], 0
    dk = K.shape[1]
    for n in lengths:
        P = R = None
        for t in range(s, s + n):
            ka = np.abs(K[t])
            Pt = (np.eye(dk) + beta[t] * np.outer(ka, ka)) @ _dmat(alpha[t], dk)
            Rt = beta[t] * np.outer(ka, np.abs(V[t]))
            P, R = (Pt, Rt) if P is None else (Pt @ P, Pt @ R + Rt)
            out.append((P @ S + R).T @ np.abs(Q[t]))
        S = P @ S + R
        s += n
    return np.array(out), S


@prop(theorems=["PLGA.Variants.DeltaNet.aff_comp_apply", "PLGA.Variants.DeltaNet.chunkAff_apply",
                "PLGA.Variants.DeltaNet.chunked_trace_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_states_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_outputs_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_final_eq_sequential"],
      paper="GDN/KDA §1: per-token affine maps compose (P₂P₁, P₂R₁ + R₂); any chunking equals the "
            "token loop",
      strategy=deltanet_sequences, examples=(
          # special values: β = 1, α = 1 (D = I); β = 0, α = 0 (no write, the state wiped);
          # a KDA gate with a zero channel
          dict(S0=np.array([[1.0, -2.0], [0.5, 3.0]]), K=np.array([[1.0, 0.0], [0.6, 0.8],
                                                                   [0.0, 1.0]]),
               V=np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, 0.0]]), Q=np.ones((3, 2)),
               beta=np.ones(3), alpha=np.ones(3), lengths=[1, 2]),
          dict(S0=np.array([[1.0, -2.0], [0.5, 3.0]]), K=np.array([[1.0, 0.0], [0.6, 0.8],
                                                                   [0.0, 1.0]]),
               V=np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, 0.0]]), Q=np.ones((3, 2)),
               beta=np.array([0.0, 1.0, 0.5]), alpha=np.array([[0.0, 1.0], [1.0, 1.0],
                                                               [0.5, 0.0]]), lengths=[3])))
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
    O1, S1, states = deltanet.deltanet_recurrent(e["S0"], e["K"], e["V"], e["Q"],
                                                 e["beta"], e["alpha"],
                                                 return_states=True, backend=backend, dps=dps)
    O2, S2 = deltanet.deltanet_chunked(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"],
                                       e["lengths"],
                                       backend=backend, dps=dps)
    with ctx(backend, dps):
        dev_o, dev_s = maxabs(O1 - O2), maxabs(S1 - S2)
    T, dk = e["K"].shape
    D = T * (3 * dk + 10) + 3 * dk + 10
    parts = []
    for t in range(1, T):                                 # t = T is the final state above
        cut = np.cumsum(e["lengths"])
        lt = [int(x) for x in np.diff(np.concatenate([[0], cut[cut < t], [t]]))]
        args = (e["S0"], e["K"][:t], e["V"][:t], e["Q"][:t], e["beta"][:t], e["alpha"][:t])
        _, St = deltanet.deltanet_chunked(*args, lt, backend=backend, dps=dps)
        with ctx(backend, dps):
            dev_t = maxabs(St - states[t - 1])
        _, Sa_r = _abs_deltanet_recurrent(*args)
        _, Sa_c = _abs_deltanet_chunked(*args, lt)
        parts.append((f"chunked_states_eq_sequential: S_{t}", dev_t,
                      SLACK * bound(backend, D, np.maximum(Sa_r, Sa_c))))
    Oa1, Sa1 = _abs_deltanet_recurrent(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"])
    Oa2, Sa2 = _abs_deltanet_chunked(e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"],
                                     e["lengths"])
    parts += [("chunked_outputs_eq_sequential", dev_o,
               SLACK * bound(backend, D, np.maximum(Oa1, Oa2))),
              ("chunked_final_eq_sequential", dev_s,
               SLACK * bound(backend, D, np.maximum(Sa1, Sa2)))]
    return combine(parts)


@st.composite
def order_inputs(draw):
    dk, dv = draw(st.integers(2, 5)), draw(st.integers(1, 3))
    gate = draw(st.sampled_from(["kda", "kda", "gdn"]))
    alpha = (np.array(draw(st.lists(st.floats(0.0, 1.0, width=64), min_size=dk, max_size=dk)))
             if gate == "kda" else draw(st.floats(0.0, 1.0, width=64)))
    return dict(k=draw(arr((dk,))), v=draw(arr((dv,), STATE_SCALE)),
                S=draw(arr((dk, dv), STATE_SCALE)),
                beta=draw(st.floats(0.05, 1.0, width=64)),
                alpha=alpha, gate=gate)


@prop(theorems=["PLGA.Variants.DeltaNet.step_eq_affine",
                "PLGA.Variants.DeltaNet.scalar_gate_commutes",
                "PLGA.Variants.DeltaNet.gate_order_differs"],
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
        kb, vb, Sb, bb, ab = conv(backend, dps, k, v, S, np.float64(beta),
                                  np.asarray(alpha, dtype=np.float64))
        bb = bb[()]
        eye = b.eye(dk)
        Dm = ab[()] * eye if ab.ndim == 0 else eye * ab[None, :]
        E = eye - bb * (kb[:, None] * kb[None, :])
        kkT = kb[:, None] * kb[None, :]
        other = Dm @ E
        comm = P - other
        dev_p = maxabs(P - E @ Dm)
        dev_c = maxabs(comm - bb * (Dm @ kkT - kkT @ Dm))
        dev_s = maxabs(Snew - (P @ Sb + R))
        comm_size = maxabs(comm)
    ka = np.abs(k)
    amax = float(np.max(alpha))
    Tm = (1 + beta * np.outer(ka, ka)) * max(amax, 1e-300)
    Ts = (1 + beta * np.outer(ka, ka)) @ (np.abs(_dmat(alpha, dk))
                                          @ np.abs(S)) + beta * np.outer(ka, np.abs(v))
    bm = bound(backend, 6, 2 * Tm)
    # the two matrix identities share the matrices' bound (their sum stays within it)
    parts = [("step_map P = (I − βkkᵀ)D and the commutator identity", dev_p + dev_c, bm),
             ("step_eq_affine: deltanet_step = P S + R", dev_s, bound(backend, 2 * dk + 8, Ts))]
    if ex["gate"] == "gdn":
        return combine(parts + [("scalar_gate_commutes", comm_size, bm)])
    c = beta * float(np.max(np.abs(alpha[None, :] - np.asarray(alpha)[:, None])
                            * np.abs(np.outer(k, k))))
    if not c > 1e6 * bm:
        return combine(parts, met=False)        # (near-)commuting draw: not a witness
    return combine(parts
                   + [("gate_order_differs: commutator above the bound",
                       0.0 if comm_size > bm else 1.0, 0.0)])


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


@prop(theorems=["PLGA.Variants.DeltaNet.unit_write_overwrites_row",
                "PLGA.Variants.DeltaNet.unit_write_forgets_row",
                "PLGA.Variants.DeltaNet.unit_write_not_injective"],
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
        dev_j = maxabs(N1 - N2) + maxabs(N1[j] - vb)
        dev_x = maxabs(np.delete(N1 - X, j, axis=0))
    aj = a if np.ndim(a) == 0 else a[j]
    T = aj * (np.abs(S[j]) + np.abs(S2[j])) + 2 * np.abs(v)
    Tx = np.abs(_dmat(a, S.shape[0])) @ np.abs(S)
    return combine([("unit_write_overwrites_row / not_injective: row j = v for both states", dev_j,
                     bound(backend, 3, T)),
                    ("unit_write_forgets_row: rows i ≠ j = (D S)_i", dev_x, bound(backend, 1, Tx))],
                   met=bool(np.any(S[j] != S2[j])))


# ============================================================================ spec evaluator
def _gate(rng, gate, lead, dk):
    """Generic gates in (0.05, 0.95): shape lead (GDN, scalar per token) or lead + (d_k,)
    (KDA, per key channel)."""
    shape = tuple(lead) + ((dk,) if gate == "kda" else ())
    a = rng.uniform(0.05, 0.95, shape)
    return float(a) if a.ndim == 0 else a


@st.composite
def deltanet_generic(draw):
    """A generic GDN/KDA sequence (T ∈ [2, 6], d_k, d_v ∈ [2, 4], keys of size ~ 1/√d_k·scale,
    β ∈ (0, 1), gates in (0.05, 0.95)), a random contiguous partition, a chunk size, and a
    generic pair of affine maps (P₁, R₁), (P₂, R₂) with a state S (non-commuting P's)."""
    rng = draw(RNG)
    T, dk, dv = draw(st.integers(2, 6)), draw(st.integers(2, 4)), draw(st.integers(2, 4))
    gate = draw(st.sampled_from(["gdn", "kda"]))
    s = draw(st.sampled_from([0.1, 1.0, 10.0]))
    u = rng.uniform
    cuts = sorted(draw(st.sets(st.integers(1, T - 1), max_size=T - 1)))
    return dict(S0=u(-1, 1, (dk, dv)) * s,
                K=u(-1, 1, (T, dk)) * draw(st.sampled_from([0.5, 1.0, 1.5])) / np.sqrt(dk),
                V=u(-1, 1, (T, dv)) * s, Q=u(-1, 1, (T, dk)), beta=u(0.02, 0.98, T),
                alpha=_gate(rng, gate, (T,), dk), gate=gate,
                lengths=[b - a for a, b in zip([0] + cuts, cuts + [T])],
                C=draw(st.integers(1, T + 1)),
                P1=u(-1, 1, (dk, dk)), R1=u(-1, 1, (dk, dv)) * s, P2=u(-1, 1, (dk, dk)),
                R2=u(-1, 1, (dk, dv)) * s)


def _tokens(ex):
    """The evaluator's ``Token`` list of the sequence (gate: α_t𝟙 for GDN, α_t for KDA)."""
    K, V, Q, beta, alpha = (mat(ex[n]) for n in ("K", "V", "Q", "beta", "alpha"))
    dk = len(K[0])
    return [SL.Token(alpha[t] if isinstance(alpha[t], list) else [alpha[t]] * dk, beta[t], K[t],
                     V[t], Q[t]) for t in range(len(K))]


def _abs_token_maps(K, V, beta, alpha):
    """f_abs of each token's (P, R): ((I + β|k||k|ᵀ)|D|, β|k||v|ᵀ)."""
    out = []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        out.append(((np.eye(len(ka)) + beta[t] * np.outer(ka, ka)) @ _dmat(alpha[t], len(ka)),
                    beta[t] * np.outer(ka, np.abs(V[t]))))
    return out


def _special_dn(**kw):
    T, dk, dv = 3, 2, 3
    ex = dict(S0=np.arange(6.0).reshape(dk, dv) - 2, K=np.array([[1.0, 0.0], [0.6, 0.8],
                                                                    [0.0, 1.0]]),
              V=np.arange(9.0).reshape(T, dv) / 4, Q=np.ones((T, dk)), beta=np.ones(T),
              alpha=np.ones(T), gate="gdn", lengths=[1, 2], C=2, P1=np.eye(dk),
              R1=np.zeros((dk, dv)), P2=np.array([[0.0, 1.0], [1.0, 0.0]]), R2=np.ones((dk, dv)))
    ex.update(kw)
    return ex


#: special values, run before the generic draws: β = 1, D = I, unit keys (the rollback write);
#: β = 0 and α = 0 (no write, the state is wiped); a KDA gate with a zero channel; the identity
#: and a permutation as affine maps
DN_EXAMPLES = (_special_dn(), _special_dn(beta=np.zeros(3), alpha=np.zeros(3), lengths=[3]),
               _special_dn(alpha=np.array([[1.0, 0.0], [0.5, 1.0], [0.0, 0.25]]), gate="kda",
                           lengths=[1, 1, 1], C=4))


@prop(theorems=["PLGA.Variants.DeltaNet.step_eq_affine", "PLGA.Variants.DeltaNet.aff_comp_apply"],
      paper="GDN/KDA §1: the step X + βk(v − Xᵀk)ᵀ, its affine map ((I − βkkᵀ)D, βkvᵀ), "
            "composition (P₂P₁, P₂R₁ + R₂)",
      strategy=deltanet_generic, examples=DN_EXAMPLES)
def deltanet_maps_match_spec(ex, backend, dps):
    """pyref's one-token and affine-map functions against the evaluator (``DeltaNet.lean``) on
    generic inputs, for the first token of the drawn sequence (GDN or KDA gate): ``deltanet_step``
    = ``step`` and = ``Aff.apply (Token.aff t)`` (``step_eq_affine``); ``step_map`` =
    ``Token.aff``; ``compose_maps`` of a generic (non-commuting) pair = ``Aff.comp``;
    ``apply_map`` = ``Aff.apply``; applying pyref's composition = applying the two maps in turn
    (``aff_comp_apply``). Bounds (float64, a-priori): the step (decay 1, residual d_k + 1,
    (βk)rᵀ 2, sum 1) index d_k + 5 on |D||S| + β|k|(|v| + (|D||S|)ᵀ|k|)ᵀ; P = (I − (βk)kᵀ)D
    index 4 on (I + β|k||k|ᵀ)|D|, R index 2 on β|k||v|ᵀ; P₂P₁ index d_k on |P₂||P₁|,
    P₂R₁ + R₂ and P S + R index d_k + 1 on |P₂||R₁| + |R₂| and |P||S| + |R|; the composed
    map applied, index 2d_k + 1 on |P₂||P₁||S| + |P₂||R₁| + |R₂|."""
    e = ex
    S, k, v, b0 = e["S0"], e["K"][0], e["V"][0], e["beta"][0]
    a0 = e["alpha"][0]
    P1, R1, P2, R2 = e["P1"], e["R1"], e["P2"], e["R2"]
    got_step = deltanet.deltanet_step(S, k, v, b0, a0, backend=backend, dps=dps)
    got_P, got_R = deltanet.step_map(k, v, b0, a0, backend=backend, dps=dps)
    cP, cR = deltanet.compose_maps(P1, R1, P2, R2, backend=backend, dps=dps)
    got_app = deltanet.apply_map(P1, R1, S, backend=backend, dps=dps)
    got_chain = deltanet.apply_map(cP, cR, S, backend=backend, dps=dps)
    with mpmath.workdps(dps):
        t0 = _tokens(e)[0]
        Sm = mat(S)
        a1, a2 = SL.Aff(mat(P1), mat(R1)), SL.Aff(mat(P2), mat(R2))
        aff = SL.Token_aff(t0)
        comp = SL.Aff_comp(a2, a1)
        ref = dict(step=SL.step(t0, Sm), step_aff=SL.Aff_apply(aff, Sm), P=aff.P, R=aff.R,
                   cP=comp.P, cR=comp.R, app=SL.Aff_apply(a1, Sm),
                   chain=SL.Aff_apply(a2, SL.Aff_apply(a1, Sm)))
    dk = len(k)
    Pa, Ra = _abs_token_maps(e["K"][:1], e["V"][:1], e["beta"][:1], e["alpha"][:1])[0]
    DS = np.abs(_dmat(a0, dk)) @ np.abs(S)
    Tstep = DS + b0 * np.outer(np.abs(k), np.abs(v) + DS.T @ np.abs(k))
    aP1, aR1, aP2, aR2, aS = (np.abs(x) for x in (P1, R1, P2, R2, S))
    chk = Checks()
    chk.le("deltanet_step = step", gap(got_step, ref["step"]), bound(backend, dk + 5, Tstep))
    chk.le("step_eq_affine: deltanet_step = Aff.apply Token.aff", gap(got_step, ref["step_aff"]),
           bound(backend, dk + 5, Tstep))
    chk.le("step_map P = Token.aff P", gap(got_P, ref["P"]), bound(backend, 4, Pa))
    chk.le("step_map R = Token.aff R", gap(got_R, ref["R"]), bound(backend, 2, Ra))
    chk.le("compose_maps P = P₂P₁", gap(cP, ref["cP"]), bound(backend, dk, aP2 @ aP1))
    chk.le("compose_maps R = P₂R₁ + R₂", gap(cR, ref["cR"]),
           bound(backend, dk + 1, aP2 @ aR1 + aR2))
    chk.le("apply_map = Aff.apply", gap(got_app, ref["app"]),
           bound(backend, dk + 1, aP1 @ aS + aR1))
    chk.le("aff_comp_apply: (a₂ ∘ a₁) S = a₂ (a₁ S)", gap(got_chain, ref["chain"]),
           bound(backend, 2 * dk + 1, aP2 @ aP1 @ aS + aP2 @ aR1 + aR2))
    return chk.outcome()


def _abs_chunk_map(K, V, beta, alpha):
    """f_abs of the composed chunk map: (P_abs, R_abs) composed as P₂P₁, P₂R₁ + R₂."""
    P = R = None
    for Pt, Rt in _abs_token_maps(K, V, beta, alpha):
        P, R = (Pt, Rt) if P is None else (Pt @ P, Pt @ R + Rt)
    return P, R


def _abs_states(S0, K, V, beta, alpha):
    """f_abs of the token loop per token (states [T, d_k, d_v])."""
    S, out = np.abs(S0), []
    for t in range(K.shape[0]):
        ka = np.abs(K[t])
        X = _dmat(alpha[t], len(ka)) @ S
        S = X + beta[t] * np.outer(ka, np.abs(V[t]) + X.T @ ka)
        out.append(S)
    return np.array(out)


@prop(theorems=["PLGA.Variants.DeltaNet.chunkAff_apply",
                "PLGA.Variants.DeltaNet.chunked_trace_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_states_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_outputs_eq_sequential",
                "PLGA.Variants.DeltaNet.chunked_final_eq_sequential"],
      paper="GDN/KDA §1: the token loop, a chunk's composed map, and the chunked evaluation",
      strategy=deltanet_generic, examples=DN_EXAMPLES)
def deltanet_sequence_matches_spec(ex, backend, dps):
    """pyref's sequence functions against the evaluator (``DeltaNet.lean``) on generic GDN/KDA
    sequences: ``deltanet_recurrent`` (with and without ``return_states``) = ``trace`` of the
    read-outs, ``trace`` of the states and ``run``; ``chunk_map`` of the whole sequence =
    ``chunkAff`` and, applied to S₀, = ``run`` (``chunkAff_apply``); ``chunk_lengths`` =
    the chunking's lengths (a chunk size and a drawn partition); ``deltanet_chunked`` over
    the drawn partition and over chunks of C: outputs = ``chunkedTrace`` of the read-outs and =
    ``trace`` of the flattened sequence, final state = ``chunkedRun`` and = ``run``.
    Bound: γ_D × the sum of the loop's and the chunked program's majorants (the same majorants
    and index D = T(3d_k + 10) + 3d_k + 10 as ``deltanet_chunking_equals_sequential``; the
    chunk map index T(d_k + 5) on the composed f_abs maps: per token P_tP adds d_k + 4,
    P_tR + R_t d_k + 5)."""
    e = ex
    args = (e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"])
    Oq, Sq, states = deltanet.deltanet_recurrent(*args, return_states=True, backend=backend,
                                                 dps=dps)
    Oq2, Sq2 = deltanet.deltanet_recurrent(*args, backend=backend, dps=dps)
    cmP, cmR = deltanet.chunk_map(e["K"], e["V"], e["beta"], e["alpha"], backend=backend, dps=dps)
    T, dk = e["K"].shape
    parts = {"partition": e["lengths"], "size": e["C"]}
    got_len = {n: deltanet.chunk_lengths(T, c) for n, c in parts.items()}
    got_ch = {n: deltanet.deltanet_chunked(*args, c, backend=backend, dps=dps)
              for n, c in parts.items()}
    with mpmath.workdps(dps):
        ts, S0 = _tokens(e), mat(e["S0"])
        ro = lambda t, S: SL.readout(S, t.query)  # noqa: E731 (the trace's g)
        ref = dict(out=SL.trace(ro, ts, S0), states=SL.trace(lambda t, S: S, ts, S0),
                   final=SL.run(ts, S0), cm=SL.chunkAff(ts, dk, len(S0[0])))
        ref["cm_app"] = SL.Aff_apply(ref["cm"], S0)
        ref_len = {n: SL.chunkLengths(T, c) for n, c in parts.items()}
        cs = {n: SL.chunksOf(ts, ref_len[n]) for n in parts}
        ref_ch = {n: (SL.chunkedTrace(ro, cs[n], S0), SL.chunkedRun(cs[n], S0)) for n in parts}
    Oa1, Sa1 = _abs_deltanet_recurrent(*args)
    Sta = _abs_states(*args[:3], e["beta"], e["alpha"])
    Pa, Ra = _abs_chunk_map(e["K"], e["V"], e["beta"], e["alpha"])
    D = T * (3 * dk + 10) + 3 * dk + 10
    chk = Checks()
    chk.le("deltanet_recurrent outputs = trace readout", gap(Oq, ref["out"]) + gap(Oq2, ref["out"]),
           SLACK * bound(backend, D, Oa1))
    chk.le("deltanet_recurrent states = trace", gap(states, ref["states"]),
           SLACK * bound(backend, D, Sta))
    chk.le("deltanet_recurrent final = run", gap(Sq, ref["final"]) + gap(Sq2, ref["final"]),
           SLACK * bound(backend, D, Sa1))
    chk.le("chunk_map P = chunkAff P", gap(cmP, ref["cm"].P), bound(backend, T * (dk + 5), Pa))
    chk.le("chunk_map R = chunkAff R", gap(cmR, ref["cm"].R), bound(backend, T * (dk + 5), Ra))
    with ctx(backend, dps):
        cm_app = cmP @ conv(backend, dps, e["S0"])[0] + cmR
    chk.le("chunkAff_apply: chunk_map applied to S₀ = run", gap(cm_app, ref["final"]),
           SLACK * bound(backend, D, Pa @ np.abs(e["S0"]) + Ra))
    for n in parts:
        chk.exact(f"chunk_lengths ({n}) = the chunking's lengths", int(got_len[n] != ref_len[n]))
        Oa2, Sa2 = _abs_deltanet_chunked(*args, ref_len[n])
        (Oc, Sc), (ro_c, run_c) = got_ch[n], ref_ch[n]
        bo, bs = SLACK * bound(backend, D, Oa1 + Oa2), SLACK * bound(backend, D, Sa1 + Sa2)
        chk.le(f"deltanet_chunked ({n}) outputs = chunkedTrace", gap(Oc, ro_c), bo)
        chk.le(f"chunked_outputs_eq_sequential ({n}): = trace", gap(Oc, ref["out"]), bo)
        chk.le(f"deltanet_chunked ({n}) final = chunkedRun", gap(Sc, run_c), bs)
        chk.le(f"chunked_final_eq_sequential ({n}): = run", gap(Sc, ref["final"]), bs)
    return chk.outcome()


@st.composite
def deltanet_split(draw):
    """A generic GDN/KDA sequence (:func:`deltanet_generic`) and a split point t ∈ [0, T]
    (t = 0 or T: an empty first or second piece, a sequence of no tokens)."""
    ex = draw(deltanet_generic())
    ex["t"] = draw(st.integers(0, len(ex["K"])))
    return ex


def _piece(ex, sl):
    """(K, V, Q, β, α) of the tokens in slice ``sl``."""
    return tuple(ex[n][sl] for n in ("K", "V", "Q", "beta", "alpha"))


@prop(theorems=["PLGA.Variants.DeltaNet.run_append", "PLGA.Variants.DeltaNet.trace_append"],
      paper="GDN/KDA §1: a sequence in two pieces, the second started from the first's final "
            "state (streaming, prefill then decode), equals one pass",
      strategy=deltanet_split)
def deltanet_split_matches_spec(ex, backend, dps):
    """pyref's ``deltanet_recurrent`` (with ``return_states``) and ``deltanet_chunked`` (chunks of
    C) run on the first t tokens from S₀ and then on the rest from the first run's final state
    (the array handed over as is) against the evaluator's one pass over the whole sequence:
    ``run (l₁ ++ l₂) S₀ = run l₂ (run l₁ S₀)`` (``run_append``: the final states) and ``trace``
    of l₁ ++ l₂ = the concatenated traces of the pieces (``trace_append``: outputs and states).
    Every piece, empty ones included, returns outputs [n, d_v] and states [n, d_k, d_v] (exact
    shape check; d_k, d_v drawn independently). Bounds: the recurrent pieces perform the one-pass
    loop's operations in the same order on the same values, so the one-pass majorant and index
    D = T(3d_k + 10) + 3d_k + 10 of ``deltanet_chunking_equals_sequential`` apply; the chunked
    pieces are the chunked program over the chunking ``chunk_lengths(t, C) ++
    chunk_lengths(T − t, C)`` (majorant :func:`_abs_deltanet_chunked` of that chunking), whose
    index is at most the sum of the two pieces' indices, D + 3d_k + 10."""
    e, t = ex, ex["t"]
    T, dk = e["K"].shape
    dv = e["V"].shape[1]
    kw = {"backend": backend, "dps": dps}
    first, rest = _piece(e, slice(0, t)), _piece(e, slice(t, T))
    O1, S1, st1 = deltanet.deltanet_recurrent(e["S0"], *first, return_states=True, **kw)
    O2, S2, st2 = deltanet.deltanet_recurrent(S1, *rest, return_states=True, **kw)
    C1, R1 = deltanet.deltanet_chunked(e["S0"], *first, e["C"], **kw)
    C2, R2 = deltanet.deltanet_chunked(R1, *rest, e["C"], **kw)
    chk = Checks()
    shapes = [(O1, (t, dv)), (O2, (T - t, dv)), (st1, (t, dk, dv)), (st2, (T - t, dk, dv)),
              (C1, (t, dv)), (C2, (T - t, dv))]
    wrong = float(sum(np.shape(x) != s for x, s in shapes))
    chk.exact("piece outputs [n, d_v], states [n, d_k, d_v] (n tokens)", wrong)
    if wrong:                                  # the pieces cannot be concatenated
        return chk.outcome()
    with mpmath.workdps(dps):
        ts, S0 = _tokens(e), mat(e["S0"])
        ro = lambda tok, S: SL.readout(S, tok.query)  # noqa: E731 (the trace's g)
        ref = dict(out=SL.trace(ro, ts, S0), states=SL.trace(lambda tok, S: S, ts, S0),
                   final=SL.run(ts, S0))
    args = (e["S0"], e["K"], e["V"], e["Q"], e["beta"], e["alpha"])
    Oa, Sa = _abs_deltanet_recurrent(*args)
    lengths = SL.chunkLengths(t, e["C"]) + SL.chunkLengths(T - t, e["C"])
    Oc, Sc = _abs_deltanet_chunked(*args, lengths)
    D = T * (3 * dk + 10) + 3 * dk + 10
    chk.le("trace_append: recurrent outputs of the pieces = trace of the whole",
           gap(np.concatenate([O1, O2]), ref["out"]), SLACK * bound(backend, D, Oa))
    chk.le("trace_append: recurrent states of the pieces = state trace of the whole",
           gap(np.concatenate([st1, st2]), ref["states"]),
           SLACK * bound(backend, D, _abs_states(*args[:3], e["beta"], e["alpha"])))
    chk.le("run_append: recurrent final state = run of the whole", gap(S2, ref["final"]),
           SLACK * bound(backend, D, Sa))
    Dc = D + 3 * dk + 10
    chk.le("trace_append: chunked outputs of the pieces = trace of the whole",
           gap(np.concatenate([C1, C2]), ref["out"]), SLACK * bound(backend, Dc, Oc))
    chk.le("run_append: chunked final state = run of the whole", gap(R2, ref["final"]),
           SLACK * bound(backend, Dc, Sc))
    return chk.outcome()
