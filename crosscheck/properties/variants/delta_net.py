"""Cross-check properties of ``Formal/Variants/DeltaNet.lean``:
``deltanet_chunking_equals_sequential``, ``deltanet_order_matters``,
``deltanet_beta_one_not_invertible`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from pyref.variants import deltanet

from ...registry import combine, prop
from .._arith import bound, conv, ctx, maxabs
from ._shared import ALPHA, SLACK, STATE_SCALE, _bk, _nonzero_rows, arr

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
    "PLGA.Variants.DeltaNet.run_append":
        "running l₁ ++ l₂ = running l₁ then l₂; list recursion, no arithmetic",
    "PLGA.Variants.DeltaNet.trace_append":
        "the trace of l₁ ++ l₂ is the concatenation of traces; list recursion, no arithmetic",
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
    beta = np.array(draw(st.lists(st.one_of(st.just(1.0), st.just(0.0),
                                            st.floats(0.0, 1.0, width=64)),
                                  min_size=T, max_size=T)))
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
                beta=draw(st.one_of(st.just(1.0), st.floats(0.05, 1.0, width=64))),
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
