"""Power Law Graph Attention (spec A.4): density operator, residual metric learner Φ_res,
metric tensor A_LM, potential tensor A_P, energy-curvature tensor G_LM, scores, masks,
softmax, and the multi-head attention layer (PLGA, SDPA = operator pinned to I, and the
constant-operator ablation v510G).

Shapes: B batch, S query length, T key length (= S, or cache length + 1), H heads,
d_k head dim.  Per-head tensors are [B, H, ·, ·]; W, b, P, a, b_a are [H, d_k, d_k].

Public functions take plain arrays and ``backend=``/``dps=`` keywords; internal ``_``
functions take a Backend and arrays already converted.
"""
from __future__ import annotations

import numpy as np

from .backend import Backend, get_backend
from .layers import _iswiglu, _layer_norm, _linear, _swiglu
from .rope import _apply_rope

MASK_VALUE = -1e9  # the authors' finite additive mask constant


# ============================================================================ internal
def _density(qh):
    """D = Q̂ᵀQ̂ over all S rows (non-causal, no 1/S): qh [..., S, d_k] -> [..., d_k, d_k]."""
    return np.matmul(np.swapaxes(qh, -1, -2), qh)


def _phi_res(b: Backend, A, units, eps):
    """Residual metric learner: for each unit, A <- LN_u(A + g_n(…g_1(A))) (row-wise).

    ``units``: list of dicts {"blocks": [(W1, b1, W2, b2, W3, b3), ...], "gamma", "beta"}.
    A [..., d_k, d_k] -> same shape.
    """
    for u in units:
        Ain = A
        for blk in u["blocks"]:
            A = _swiglu(b, A, *blk)
        A = _layer_norm(b, A + Ain, u["gamma"], u["beta"], eps)
    return A


def _metric_tensor(b: Backend, A, W, bias, eps):
    """A_LM = iSwiGLU(W A + b) + eps; W left-multiplies (mixes rows). [.., H, d_k, d_k]."""
    return _iswiglu(b, np.matmul(W, A) + bias) + b.const(eps)


def _potential_tensor(b: Backend, A_LM, P):
    """A_P = A_LM^{⊙P} (elementwise real power)."""
    return b.power(A_LM, P)


def _energy_curvature(A_P, a, b_a):
    """G_LM = a · A_P + b_a (matrix product, a left-multiplies)."""
    return np.matmul(a, A_P) + b_a


def _softmax(b: Backend, x, overwrite=False):
    """Softmax over the last axis, with max subtraction (shift invariant).
    ``overwrite=True`` lets float backends reuse ``x``'s memory (a temporary)."""
    m = np.max(x, axis=-1, keepdims=True)
    if b.is_mp:
        e = b.exp(x - m)
        return e / np.sum(e, axis=-1, keepdims=True)
    e = np.subtract(x, m, out=x if overwrite else None)   # then in place ([B,H,S,T] is large)
    np.exp(e, out=e)
    e /= np.sum(e, axis=-1, keepdims=True)
    return e


def _scores(b: Backend, qh, kh, G):
    """E = (Q̂ G) K̂ᵀ / √d_k (G None means the identity: SDPA). [B,H,S,d_k]x[B,H,T,d_k] -> [B,H,S,T]."""
    d_k = qh.shape[-1]
    lhs = qh if G is None else np.matmul(qh, G)
    return np.matmul(lhs, np.swapaxes(kh, -1, -2)) / b.sqrt(b.const(d_k))


def _masked(b: Backend, E, mask):
    """E + mask·(-1e9) (mask 1 = masked), or E if mask is None."""
    if mask is None:
        return E
    return E + b.asarray(mask) * b.const(MASK_VALUE)


def _mha(b: Backend, cfg, p, x, mask, kv=None, gc=None, mode="plga", G_const=None):
    """One multi-head attention sublayer (``plgMultiHeadAttention.forward``).

    ``p``: dict of backend arrays keyed like the state dict below ``...mha1.``
    (``wq.weight``, ``plgatt_layer.Wlst``, ``reslayerAs.{u}.denseAs.{g}.gluw1.weight`` …,
    pre-grouped as ``p["_units"]`` for Φ_res).  ``x`` [B, S, d].  ``mask`` [B|1, 1, S, T]
    or None.  ``kv``: None or the cache [K̂ [B,T0,H,d_k], V [B,T0,H,d_k], (A)].  ``gc``:
    None or [A_LM, G_LM].  ``mode``: "plga" (learned operator), "sdpa" (G = I), or
    "constant" (G = ``G_const`` [.., H, d_k, d_k]).

    Returns (out [B, S, d], deductive dict, new kv cache, new g cache).
    """
    B, S, d = x.shape
    H = cfg.num_heads
    dk = d // H
    q = _linear(x, p["wq.weight"], p["wq.bias"]).reshape(B, S, H, dk)   # [B,S,H,dk]
    k = _linear(x, p["wk.weight"], p["wk.bias"]).reshape(B, S, H, dk)
    v = _linear(x, p["wv.weight"], p["wv.bias"]).reshape(B, S, H, dk)
    n_cached = 0 if kv is None else kv[0].shape[1]
    positions = list(range(n_cached, n_cached + S))
    # head-major copies are made contiguous: numpy's batched matmul is ~5x slower on strided views
    qh = _apply_rope(b, np.ascontiguousarray(np.transpose(q, (0, 2, 1, 3))), positions,
                     cfg.rope_base)                                               # [B,H,S,dk]
    k_rot = np.transpose(_apply_rope(b, np.transpose(k, (0, 2, 1, 3)), positions, cfg.rope_base),
                         (0, 2, 1, 3))                                            # [B,S,H,dk]
    A = None
    if kv is None:
        K_all, V_all = k_rot, v                                                   # [B,T,H,dk]
        if mode == "plga":
            D = _density(qh)                                                      # [B,H,dk,dk]
            A = _layer_norm(b, D, p["layernorm1.weight"], p["layernorm1.bias"], cfg.ln_eps)
            A = _phi_res(b, A, p["_units"], cfg.ln_eps)                           # [B,H,dk,dk]
    else:
        K_all = np.concatenate([kv[0], k_rot], axis=1)                            # [B,T,H,dk]
        V_all = np.concatenate([kv[1], v], axis=1)
        if mode == "plga":
            A = kv[2]
    new_kv = [K_all, V_all, A] if mode == "plga" else [K_all, V_all]

    A_LM = A_P = None
    if mode == "sdpa":
        G = None
    elif mode == "constant":
        G = G_const
    elif gc is not None:
        A_LM, G = gc[0], gc[1]
    else:
        A_LM = _metric_tensor(b, A, p["plgatt_layer.Wlst"], p["plgatt_layer.blst"], cfg.metric_eps)
        A_P = _potential_tensor(b, A_LM, p["plgatt_layer.pwlst"])
        G = _energy_curvature(A_P, p["plgatt_layer.alst"], p["plgatt_layer.balst"])

    kh = np.ascontiguousarray(np.transpose(K_all, (0, 2, 1, 3)))                  # [B,H,T,dk]
    vh = np.ascontiguousarray(np.transpose(V_all, (0, 2, 1, 3)))                  # [B,H,T,dk]
    E = _scores(b, qh, kh, G)                                                     # [B,H,S,T]
    att = _softmax(b, _masked(b, E, mask), overwrite=mask is not None)  # E itself is kept
    O = np.matmul(att, vh)                                                        # [B,H,S,dk]
    O = np.transpose(O, (0, 2, 1, 3)).reshape(B, S, d)
    out = _linear(O, p["dense.weight"], p["dense.bias"])                          # [B,S,d]
    ded = {"A": A, "A_LM": A_LM, "A_P": A_P, "G_LM": G, "E": E}
    new_gc = [A_LM, G] if mode == "plga" else None
    return out, ded, new_kv, new_gc


# ============================================================================ public
def _conv(b, *arrays):
    return [None if a is None else b.asarray(a) for a in arrays]


def _need_square(name, M):
    if M.ndim < 2 or M.shape[-1] != M.shape[-2]:
        raise ValueError(f"{name}: expected [..., d_k, d_k], got shape {M.shape}")


def density(Qhat, backend="float64", dps=50):
    """Density operator D = Q̂ᵀQ̂ = Σ_p q̂_p q̂_pᵀ for Q̂ [..., S, d_k] -> [..., d_k, d_k].

    Symmetric positive semidefinite; uses all S rows (no causal mask, no 1/S)."""
    b = get_backend(backend, dps)
    with b.context():
        (Q,) = _conv(b, Qhat)
        if Q.ndim < 2:
            raise ValueError(f"density: Qhat must be [..., S, d_k], got shape {Q.shape}")
        return _density(Q)


def residual_metric_learner(A, units, eps=1e-6, backend="float64", dps=50):
    """Φ_res: for each unit u, A <- LN_u(A + g_{u,n}(… g_{u,1}(A))), each g a SwiGLU block
    applied to every row of A (d_k -> A_dff -> d_k), LN over the last axis.

    ``units``: list of dicts ``{"blocks": [(W1, b1, W2, b2, W3, b3), ...], "gamma": γ,
    "beta": β}`` (W1, W2 [A_dff, d_k], W3 [d_k, A_dff]).  A [..., d_k, d_k] -> same.
    Row-local: output row i depends only on input row i.
    """
    b = get_backend(backend, dps)
    with b.context():
        (A,) = _conv(b, A)
        cu = []
        for i, u in enumerate(units):
            try:
                blocks = [tuple(_conv(b, *blk)) for blk in u["blocks"]]
                g, be = _conv(b, u["gamma"], u["beta"])
            except (KeyError, TypeError) as e:
                raise ValueError(f"residual_metric_learner: unit {i} malformed ({e!r}); expected "
                                 "{'blocks': [(W1,b1,W2,b2,W3,b3), ...], 'gamma', 'beta'}") from None
            cu.append({"blocks": blocks, "gamma": g, "beta": be})
        return _phi_res(b, A, cu, eps)


def metric_tensor(A, W, b, eps=1e-9, backend="float64", dps=50):
    """A_LM = iSwiGLU(W A + b) + eps (elementwise iSwiGLU(u) = u²σ(u); W left-multiplies).

    A [..., d_k, d_k], W and b [..., d_k, d_k] (broadcast, e.g. [H, d_k, d_k]).
    Every entry is ≥ eps."""
    bk = get_backend(backend, dps)
    with bk.context():
        A, W, bb = _conv(bk, A, W, b)
        _need_square("metric_tensor(A)", A)
        return _metric_tensor(bk, A, W, bb, eps)


def potential_tensor(A_LM, P, backend="float64", dps=50):
    """A_P = A_LM^{⊙P}, entrywise real power (A_LM > 0)."""
    b = get_backend(backend, dps)
    with b.context():
        A_LM, P = _conv(b, A_LM, P)
        return _potential_tensor(b, A_LM, P)


def energy_curvature_tensor(A_P, a, b_a, backend="float64", dps=50):
    """G_LM = a · A_P + b_a (matrix product)."""
    b = get_backend(backend, dps)
    with b.context():
        A_P, a, b_a = _conv(b, A_P, a, b_a)
        return _energy_curvature(A_P, a, b_a)


def deductive_operator(A, W, b, P, a, b_a, eps=1e-9, backend="float64", dps=50):
    """Steps 6-8 of PLGA: returns dict with "A_LM", "A_P", "G_LM"."""
    bk = get_backend(backend, dps)
    with bk.context():
        A, W, bb, P, a, b_a = _conv(bk, A, W, b, P, a, b_a)
        A_LM = _metric_tensor(bk, A, W, bb, eps)
        A_P = _potential_tensor(bk, A_LM, P)
        return {"A_LM": A_LM, "A_P": A_P, "G_LM": _energy_curvature(A_P, a, b_a)}


def attention_scores(Qhat, Khat, G=None, backend="float64", dps=50):
    """E = (Q̂ G) K̂ᵀ / √d_k for Q̂ [..., S, d_k], K̂ [..., T, d_k], G [..., d_k, d_k]
    (G=None: the identity, i.e. scaled dot-product scores)."""
    b = get_backend(backend, dps)
    with b.context():
        Q, K, G = _conv(b, Qhat, Khat, G)
        if Q.shape[-1] != K.shape[-1]:
            raise ValueError(f"attention_scores: d_k mismatch, Qhat {Q.shape} vs Khat {K.shape}")
        return _scores(b, Q, K, G)


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
        return _softmax(b, b.asarray(x))


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
            return _softmax(b, x)
        m = np.broadcast_to(np.asarray(mask, dtype=np.float64), x.shape)
        if not np.all((m == 0) | (m == 1)):
            raise ValueError("masked_softmax: mask entries must be 0 or 1")
        if mode == "additive":
            return _softmax(b, _masked(b, x, m))
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
        Q, K, Vv, G = _conv(b, Qhat, Khat, V, G)
        att = _softmax(b, _masked(b, _scores(b, Q, K, G), mask))
        return np.matmul(att, Vv), att


def sdpa_attention(Qhat, Khat, V, mask=None, backend="float64", dps=50):
    """Scaled dot-product attention softmax(Q̂K̂ᵀ/√d_k + mask·(-1e9)) V (a separate code
    path: no operator multiplication at all).  Returns (output, weights)."""
    b = get_backend(backend, dps)
    with b.context():
        Q, K, Vv = _conv(b, Qhat, Khat, V)
        d_k = Q.shape[-1]
        E = np.matmul(Q, np.swapaxes(K, -1, -2)) / b.sqrt(b.const(d_k))
        att = _softmax(b, _masked(b, E, mask))
        return np.matmul(att, Vv), att


def constant_operator_attention(Qhat, Khat, V, G, mask=None, backend="float64", dps=50):
    """The v510G ablation's attention: a fixed operator G (not learned). Same as
    :func:`plga_attention` with G given; G = I gives SDPA."""
    if G is None:
        raise ValueError("constant_operator_attention: G is required")
    return plga_attention(Qhat, Khat, V, G, mask=mask, backend=backend, dps=dps)
