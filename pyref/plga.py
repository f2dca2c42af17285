"""Power Law Graph Attention, public array API (spec A.4): density operator, residual
metric learner Φ_res, metric tensor A_LM, potential tensor A_P, energy-curvature tensor
G_LM, the deductive operator, scores, masks, softmax, and per-head attention (PLGA, SDPA
and the constant-operator ablation v510G).

Every function takes plain arrays plus ``backend=``/``dps=`` keywords, converts them
(:func:`pyref.inputs.conv`), validates, and evaluates the formula of :mod:`pyref.ops`
inside the backend's precision context.  The multi-head sublayer the model runs is
:func:`pyref.attention.multi_head_attention`.
"""
from __future__ import annotations

import numpy as np

from . import arb_centered, ops
from .backend import get_backend
from .inputs import conv, need_square
from .params import GLUParams, ResUnitParams


def density(Qhat, backend="float64", dps=50):
    """Density operator D = Q̂ᵀQ̂ = Σ_p q̂_p q̂_pᵀ for Q̂ [..., S, d_k] -> [..., d_k, d_k].

    Symmetric positive semidefinite; uses all S rows (no causal mask, no 1/S)."""
    b = get_backend(backend, dps)
    with b.context():
        (Q,) = conv(b, Qhat)
        if Q.ndim < 2:
            raise ValueError(f"density: Qhat must be [..., S, d_k], got shape {Q.shape}")
        return ops.density(b, Q)


def residual_metric_learner(A, units, eps=1e-6, backend="float64", dps=50):
    """Φ_res: for each unit u, A <- LN_u(A + g_{u,n}(… g_{u,1}(A))), each g a SwiGLU block
    applied to every row of A (d_k -> A_dff -> d_k), LN over the last axis.

    ``units``: list of dicts ``{"blocks": [(W1, b1, W2, b2, W3, b3), ...], "gamma": γ,
    "beta": β}`` (W1, W2 [A_dff, d_k], W3 [d_k, A_dff]).  A [..., d_k, d_k] -> same.
    Row-local: output row i depends only on input row i.
    """
    b = get_backend(backend, dps)
    with b.context():
        (A,) = conv(b, A)
        cu = []
        for i, u in enumerate(units):
            try:
                blocks = [tuple(conv(b, *blk)) for blk in u["blocks"]]
                g, be = conv(b, u["gamma"], u["beta"])
            except (KeyError, TypeError) as e:
                raise ValueError(f"residual_metric_learner: unit {i} malformed ({e!r}); "
                                 "expected {'blocks': [(W1,b1,W2,b2,W3,b3), ...], 'gamma', "
                                 "'beta'}") from None
            cu.append(ResUnitParams(tuple(GLUParams(*blk) for blk in blocks), g, be))
        if b.is_arb:   # as the model does on arb (pyref.arb_centered; same enclosure property)
            return arb_centered.residual_units(b, A, cu, eps)
        return ops.residual_metric_learner(b, A, cu, eps)


def metric_tensor(A, W, b, eps=1e-9, backend="float64", dps=50):
    """A_LM = iSwiGLU(W A + b) + eps (elementwise iSwiGLU(u) = u²σ(u); W left-multiplies).

    A [..., d_k, d_k], W and b [..., d_k, d_k] (broadcast, e.g. [H, d_k, d_k]).
    Every entry is ≥ eps."""
    bk = get_backend(backend, dps)
    with bk.context():
        A, W, bb = conv(bk, A, W, b)
        need_square("metric_tensor(A)", A)
        return ops.metric_tensor(bk, A, W, bb, eps)


def potential_tensor(A_LM, P, backend="float64", dps=50):
    """A_P = A_LM^{⊙P}, entrywise real power (A_LM > 0)."""
    b = get_backend(backend, dps)
    with b.context():
        A_LM, P = conv(b, A_LM, P)
        return ops.potential_tensor(b, A_LM, P)


def energy_curvature_tensor(A_P, a, b_a, backend="float64", dps=50):
    """G_LM = a · A_P + b_a (matrix product)."""
    b = get_backend(backend, dps)
    with b.context():
        A_P, a, b_a = conv(b, A_P, a, b_a)
        return ops.energy_curvature(b, A_P, a, b_a)


def deductive_operator(A, W, b, P, a, b_a, eps=1e-9, backend="float64", dps=50):
    """Steps 6-8 of PLGA: returns dict with "A_LM", "A_P", "G_LM"."""
    bk = get_backend(backend, dps)
    with bk.context():
        A, W, bb, P, a, b_a = conv(bk, A, W, b, P, a, b_a)
        A_LM, A_P, G_LM = ops.operator(bk, A, W, bb, P, a, b_a, eps)
        return {"A_LM": A_LM, "A_P": A_P, "G_LM": G_LM}


def attention_scores(Qhat, Khat, G=None, backend="float64", dps=50):
    """E = (Q̂ G) K̂ᵀ / √d_k for Q̂ [..., S, d_k], K̂ [..., T, d_k], G [..., d_k, d_k]
    (G=None: the identity, i.e. scaled dot-product scores)."""
    b = get_backend(backend, dps)
    with b.context():
        Q, K, G = conv(b, Qhat, Khat, G)
        if Q.shape[-1] != K.shape[-1]:
            raise ValueError(f"attention_scores: d_k mismatch, Qhat {Q.shape} vs Khat {K.shape}")
        return ops.scores(b, Q, K, G)


def causal_pad_mask(tokens, pad_id=0):
    """The training/prefill mask M = max(pad, causal), float 0/1 with 1 = masked,
    shape [B, 1, S, S]: causal[t, p] = [p > t], pad[b, p] = [tokens[b, p] == pad_id]."""
    t = np.asarray(tokens)
    if t.ndim != 2:
        raise ValueError(f"causal_pad_mask: tokens must be [batch, S], got shape {t.shape}")
    S = t.shape[1]
    causal = 1.0 - np.tril(np.ones((S, S)))                       # [S,S]
    pad = (t == pad_id).astype(np.float64)[:, None, None, :]      # [B,1,1,S]
    return np.maximum(causal[None, None], pad)                    # [B,1,S,S]


def softmax(x, backend="float64", dps=50):
    """Softmax over the last axis."""
    b = get_backend(backend, dps)
    with b.context():
        return ops.softmax(b, b.asarray(x))


def masked_softmax(x, mask=None, mode="additive", backend="float64", dps=50):
    """Softmax over the last axis with a 0/1 mask (1 = masked).

    ``mode="additive"`` (the authors' code): softmax(x + mask·(-1e9)).
    ``mode="exact"`` (the Lean ``maskedSoftmax``): masked entries are exactly 0 and the
    rest renormalize; every row must keep at least one unmasked entry.
    """
    b = get_backend(backend, dps)
    with b.context():
        x = b.asarray(x)
        if mask is None:
            return ops.softmax(b, x)
        m = np.broadcast_to(np.asarray(mask, dtype=np.float64), x.shape)
        if not np.all((m == 0) | (m == 1)):
            raise ValueError("masked_softmax: mask entries must be 0 or 1")
        if mode == "additive":
            return ops.softmax(b, ops.masked(b, x, m))
        if mode != "exact":
            raise ValueError(f"masked_softmax: mode must be 'additive' or 'exact', got {mode!r}")
        keep = m == 0
        if not np.all(keep.any(axis=-1)):
            raise ValueError("masked_softmax(mode='exact'): a row has every entry masked")
        # max over the kept entries only (finite: every row keeps one)
        mx = np.max(np.where(keep, x, b.const(float("-inf"))), axis=-1, keepdims=True)
        e = b.exp(np.where(keep, x - mx, b.const(0)))
        e = np.where(keep, e, b.const(0))
        return e / np.sum(e, axis=-1, keepdims=True)


def plga_attention(Qhat, Khat, V, G, mask=None, backend="float64", dps=50):
    """Per-head attention with an operator: softmax((Q̂GK̂ᵀ)/√d_k + mask·(-1e9)) V.

    Q̂ [..., S, d_k], K̂ [..., T, d_k], V [..., T, d_v], G [..., d_k, d_k] or None (= I).
    Returns (output [..., S, d_v], weights [..., S, T])."""
    b = get_backend(backend, dps)
    with b.context():
        Q, K, Vv, G = conv(b, Qhat, Khat, V, G)
        att = ops.softmax(b, ops.masked(b, ops.scores(b, Q, K, G), mask))
        return b.matmul(att, Vv), att


def sdpa_attention(Qhat, Khat, V, mask=None, backend="float64", dps=50):
    """Scaled dot-product attention softmax(Q̂K̂ᵀ/√d_k + mask·(-1e9)) V (a separate code
    path: no operator multiplication at all).  Returns (output, weights)."""
    b = get_backend(backend, dps)
    with b.context():
        Q, K, Vv = conv(b, Qhat, Khat, V)
        d_k = Q.shape[-1]
        E = b.matmul(Q, np.swapaxes(K, -1, -2)) / b.sqrt(b.const(d_k))
        att = ops.softmax(b, ops.masked(b, E, mask))
        return b.matmul(att, Vv), att


def constant_operator_attention(Qhat, Khat, V, G, mask=None, backend="float64", dps=50):
    """The v510G ablation's attention: a fixed operator G (not learned). Same as
    :func:`plga_attention` with G given; G = I gives SDPA."""
    if G is None:
        raise ValueError("constant_operator_attention: G is required")
    return plga_attention(Qhat, Khat, V, G, mask=mask, backend=backend, dps=dps)


def port_causal_mask(S, n_cached=0, attention_mask=None):
    """The Hugging Face port's mask (``create_causal_mask``) as a bool array, True = masked,
    shape [B | 1, 1, S, T] with T = n_cached + S: key j is masked for query i when
    j > n_cached + i (causal) or ``attention_mask[b, j]`` is 0 ([B, T] of 0/1 or bools).
    Without an attention mask no pad key is masked.  None when nothing is masked."""
    T = n_cached + S
    q = np.arange(n_cached, T)[:, None]                                    # [S,1]
    m = (np.arange(T)[None, :] > q)[None, None]                            # [1,1,S,T]
    if attention_mask is not None:
        am = np.asarray(attention_mask).astype(bool)
        if am.ndim != 2 or am.shape[1] != T:
            raise ValueError(f"port_causal_mask: attention_mask must be [batch, {T}], got "
                             f"shape {am.shape}")
        m = m | ~am[:, None, None, :]
    return m if m.any() else None
