"""Gated DeltaNet (GDN) and Kimi Delta Attention (KDA), VARIANTS.md §1.

One head, column-vector convention: state ``S`` [d_k, d_v], key/query ``k, q`` [d_k],
value ``v`` [d_v], write strength ``β ∈ [0, 1]``, gate ``D = α I`` (GDN: scalar α ∈ [0, 1])
or ``D = Diag(α)`` (KDA: α ∈ [0, 1]^{d_k}).  Decay, then correct:

    X = D S_{t−1},  r = v − Xᵀk,  S_t = X + β k rᵀ = (I − β k kᵀ) D S_{t−1} + β k vᵀ,
    o_t = S_tᵀ q_t                                   (no query normalization)

Each token is the affine map ``S ↦ P S + R`` with ``P = (I − β k kᵀ) D`` [d_k, d_k] and
``R = β k vᵀ`` [d_k, d_v] (:func:`step_map`).  Composing ``(P₁, R₁)`` then ``(P₂, R₂)``
gives ``(P₂P₁, P₂R₁ + R₂)`` (:func:`compose_maps`).  :func:`deltanet_chunked` evaluates a
sequence over any contiguous partition: inside a chunk the prefix maps ``(P_t, R_t)`` are
composed token by token and give ``S_t = P_t S_start + R_t``; the chunk's full map carries
the state to the next chunk.  In exact arithmetic this equals the token loop
(:func:`deltanet_recurrent`) for every partition.

Sequences: K, Q [T, d_k], V [T, d_v], beta [T], alpha [T] (GDN) or [T, d_k] (KDA).
Public functions take plain arrays and ``backend=``/``dps=`` keywords.
"""
from __future__ import annotations

import numpy as np

from ..backend import Backend, get_backend
from ..inputs import conv, need_finite, need_int, need_range, need_shape


# ============================================================================ internal
def _decay(alpha, S):
    """D S for D = αI (alpha 0-d) or Diag(α) (alpha [d_k]); S [d_k, ...]."""
    return alpha * S if np.ndim(alpha) == 0 else alpha[:, None] * S


def _step(S, k, v, beta, alpha):
    """S_t = X + β k (v − Xᵀk)ᵀ with X = D S."""
    X = _decay(alpha, S)                       # [d_k, d_v]
    r = v - X.T @ k                            # [d_v]
    return X + (beta * k)[:, None] * r[None, :]


def _step_map(b: Backend, k, v, beta, alpha):
    """(P, R) = ((I − β k kᵀ) D, β k vᵀ)."""
    dk = k.shape[0]
    E = b.eye(dk) - (beta * k)[:, None] * k[None, :]       # I − β k kᵀ          [d_k, d_k]
    # right-multiplying by D scales columns
    P = E * alpha if np.ndim(alpha) == 0 else E * alpha[None, :]
    R = (beta * k)[:, None] * v[None, :]                   # [d_k, d_v]
    return P, R


def _compose(P1, R1, P2, R2):
    """First (P₁, R₁), then (P₂, R₂): S ↦ P₂(P₁S + R₁) + R₂."""
    return P2 @ P1, P2 @ R1 + R2


def _recurrent(b: Backend, S0, K, V, Q, beta, alpha):
    S = S0
    out, states = [], []
    for t in range(K.shape[0]):
        S = _step(S, K[t], V[t], beta[t], alpha[t])
        out.append(S.T @ Q[t])
        states.append(S)
    out = np.stack(out) if out else b.zeros((0, S0.shape[1]))
    states = np.stack(states) if states else b.zeros((0,) + S0.shape)
    return out, S, states


def _chunked(b: Backend, S0, K, V, Q, beta, alpha, lengths):
    S = S0
    out = []
    start = 0
    for n in lengths:
        P = R = None
        for t in range(start, start + n):
            Pt, Rt = _step_map(b, K[t], V[t], beta[t], alpha[t])
            P, R = (Pt, Rt) if P is None else _compose(P, R, Pt, Rt)   # prefix map of the chunk
            out.append((P @ S + R).T @ Q[t])                           # S_t = P_t S_start + R_t
        if P is not None:
            S = P @ S + R
        start += n
    out = np.stack(out) if out else b.zeros((0, S0.shape[1]))
    return out, S


# ============================================================================ validation
def _gate(b: Backend, fn, alpha, dk, lead=()):
    """alpha: shape lead (GDN, scalar per token) or lead + (d_k,) (KDA), entries in [0, 1]."""
    if alpha.shape not in (tuple(lead), tuple(lead) + (dk,)):
        want = "[" + ", ".join(str(s) for s in lead) + "]"
        want_kda = "[" + ", ".join(str(s) for s in tuple(lead) + (dk,)) + "]"
        raise ValueError(f"{fn}: alpha must have shape {want} (GDN, scalar gate) or {want_kda} "
                         f"(KDA, diagonal gate), got shape {tuple(alpha.shape)}")
    need_finite(b, fn, "alpha", alpha)
    need_range(fn, "alpha", alpha, 0, 1)


def _beta(b: Backend, fn, beta, lead=()):
    need_shape(fn, "beta", beta, tuple(lead))
    need_finite(b, fn, "beta", beta)
    need_range(fn, "beta", beta, 0, 1)


def _one_token(b: Backend, fn, k, v, beta, alpha, dv=None):
    need_shape(fn, "k", k, (None,))
    need_shape(fn, "v", v, (dv,))
    need_finite(b, fn, "k", k)
    need_finite(b, fn, "v", v)
    _beta(b, fn, beta)
    _gate(b, fn, alpha, k.shape[0])


def _seq_inputs(b: Backend, fn, S0, K, V, Q, beta, alpha):
    S0, K, V, Q, beta, alpha = conv(b, S0, K, V, Q, beta, alpha)
    need_shape(fn, "K", K, (None, None))
    T, dk = K.shape
    need_shape(fn, "S0", S0, (dk, None))
    need_shape(fn, "V", V, (T, S0.shape[1]))
    need_shape(fn, "Q", Q, (T, dk))
    for nm, a in (("S0", S0), ("K", K), ("V", V), ("Q", Q)):
        need_finite(b, fn, nm, a)
    if beta.ndim == 0:
        beta = np.broadcast_to(beta, (T,)).copy()
    _beta(b, fn, beta, (T,))
    if alpha.ndim == 0:
        alpha = np.broadcast_to(alpha, (T,)).copy()
    _gate(b, fn, alpha, dk, (T,))
    return S0, K, V, Q, beta, alpha


# ============================================================================ public
def deltanet_step(S, k, v, beta, alpha, backend="float64", dps=50):
    """One GDN/KDA token: S_t = (I − β k kᵀ) D S + β k vᵀ, computed as decay then correct.

    S [d_k, d_v], k [d_k], v [d_v], beta ∈ [0, 1], alpha a scalar in [0, 1] (GDN, D = αI) or
    [d_k] in [0, 1] (KDA, D = Diag(α)).  Returns S_t [d_k, d_v]."""
    fn = "deltanet_step"
    b = get_backend(backend, dps)
    with b.context():
        S, k, v, beta, alpha = conv(b, S, k, v, beta, alpha)
        need_shape(fn, "S", S, (None, None))
        need_finite(b, fn, "S", S)
        _one_token(b, fn, k, v, beta, alpha, S.shape[1])
        if k.shape[0] != S.shape[0]:
            raise ValueError(f"deltanet_step: k must have shape [{S.shape[0]}], got shape "
                             f"{tuple(k.shape)}")
        return _step(S, k, v, beta[()], alpha)


def step_map(k, v, beta, alpha, backend="float64", dps=50):
    """The token's affine map S ↦ P S + R: (P = (I − β k kᵀ) D [d_k, d_k],
    R = β k vᵀ [d_k, d_v])."""
    fn = "step_map"
    b = get_backend(backend, dps)
    with b.context():
        k, v, beta, alpha = conv(b, k, v, beta, alpha)
        _one_token(b, fn, k, v, beta, alpha)
        return _step_map(b, k, v, beta[()], alpha)


def compose_maps(P1, R1, P2, R2, backend="float64", dps=50):
    """Composition of S ↦ P₁S + R₁ followed by S ↦ P₂S + R₂: returns (P₂P₁, P₂R₁ + R₂)."""
    fn = "compose_maps"
    b = get_backend(backend, dps)
    with b.context():
        P1, R1, P2, R2 = conv(b, P1, R1, P2, R2)
        need_shape(fn, "P1", P1, (None, None))
        dk = P1.shape[0]
        need_shape(fn, "P1", P1, (dk, dk))
        need_shape(fn, "P2", P2, (dk, dk))
        need_shape(fn, "R1", R1, (dk, None))
        need_shape(fn, "R2", R2, R1.shape)
        for nm, a in (("P1", P1), ("R1", R1), ("P2", P2), ("R2", R2)):
            need_finite(b, fn, nm, a)
        return _compose(P1, R1, P2, R2)


def apply_map(P, R, S, backend="float64", dps=50):
    """P S + R: P [d_k, d_k], R and S [d_k, d_v]."""
    fn = "apply_map"
    b = get_backend(backend, dps)
    with b.context():
        P, R, S = conv(b, P, R, S)
        need_shape(fn, "S", S, (None, None))
        need_shape(fn, "P", P, (S.shape[0], S.shape[0]))
        need_shape(fn, "R", R, S.shape)
        return P @ S + R


def chunk_map(K, V, beta, alpha, backend="float64", dps=50):
    """The composed affine map (P, R) of a whole chunk K [C, d_k], V [C, d_v], beta [C],
    alpha [C] or [C, d_k] (C ≥ 1): S_end = P S_start + R."""
    fn = "chunk_map"
    b = get_backend(backend, dps)
    with b.context():
        K, V, beta, alpha = conv(b, K, V, beta, alpha)
        need_shape(fn, "K", K, (None, None))
        if K.shape[0] == 0:
            raise ValueError(f"{fn}: a chunk needs at least one token, got K of shape "
                             f"{tuple(K.shape)}")
        S0 = b.zeros((K.shape[1], V.shape[-1] if V.ndim == 2 else 0))
        _, K, V, _, beta, alpha = _seq_inputs(b, fn, S0, K, V, K, beta, alpha)
        P, R = _step_map(b, K[0], V[0], beta[0], alpha[0])
        for t in range(1, K.shape[0]):
            P, R = _compose(P, R, *_step_map(b, K[t], V[t], beta[t], alpha[t]))
        return P, R


def deltanet_recurrent(S0, K, V, Q, beta, alpha, return_states=False, backend="float64", dps=50):
    """The GDN/KDA token loop from S0 [d_k, d_v]: K, Q [T, d_k], V [T, d_v], beta [T] (or
    scalar), alpha [T] (GDN; or scalar) or [T, d_k] (KDA).

    Returns (O [T, d_v], S_T [d_k, d_v]) (+ states [T, d_k, d_v] with ``return_states``)."""
    fn = "deltanet_recurrent"
    b = get_backend(backend, dps)
    with b.context():
        S0, K, V, Q, beta, alpha = _seq_inputs(b, fn, S0, K, V, Q, beta, alpha)
        out, S, states = _recurrent(b, S0, K, V, Q, beta, alpha)
        return (out, S, states) if return_states else (out, S)


def chunk_lengths(T, chunks):
    """Normalize a partition of T tokens: an int chunk size (last chunk shorter) or a sequence
    of positive lengths summing to T."""
    fn = "deltanet_chunked"
    if isinstance(chunks, (int, np.integer)) and not isinstance(chunks, bool):
        C = need_int(fn, "chunks", chunks, 1)
        return [min(C, T - s) for s in range(0, T, C)]
    try:
        lengths = [need_int(fn, "chunk length", n, 1) for n in chunks]
    except TypeError:
        raise ValueError(f"{fn}: chunks must be a chunk size or a list of lengths, "
                         f"got {chunks!r}") from None
    if sum(lengths) != T:
        raise ValueError(f"{fn}: chunk lengths must sum to the sequence length {T}, got {lengths} "
                         f"(sum {sum(lengths)})")
    return lengths


def deltanet_chunked(S0, K, V, Q, beta, alpha, chunks, backend="float64", dps=50):
    """GDN/KDA over a contiguous partition of the sequence (``chunks``: a chunk size, or a list
    of chunk lengths summing to T) by composing per-token affine maps inside each chunk (see
    the module docstring).  Same inputs and outputs as :func:`deltanet_recurrent`."""
    fn = "deltanet_chunked"
    b = get_backend(backend, dps)
    with b.context():
        S0, K, V, Q, beta, alpha = _seq_inputs(b, fn, S0, K, V, Q, beta, alpha)
        return _chunked(b, S0, K, V, Q, beta, alpha, chunk_lengths(K.shape[0], chunks))
