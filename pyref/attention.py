"""The multi-head attention sublayer (``plgMultiHeadAttention.forward``, spec A.4) and the
three operator sources that make the model variants:

* :class:`PLGAOperator` (PLDR-LLM v510): A = Φ_res(LN_A(Q̂ᵀQ̂)) on the prefill call (kept
  in the KV-cache), then (A_LM, A_P, G_LM) = ``operator(A)`` -- or [A_LM, G_LM] from a
  G-cache;
* :class:`ConstantOperator` (the v510G ablation): a fixed G [H, d_k, d_k] per layer;
* :class:`IdentityOperator` (SDPA): G = I, computed on a separate code path with no
  operator product (scores Q̂K̂ᵀ/√d_k).

An operator source is part of a layer's :class:`~pyref.params.AttentionParams`
(``p.operator``); the model class chooses it (``PLDRModel._operator_source`` in :mod:`pyref.model`).

:func:`multi_head_attention` is the v510 sublayer; :func:`multi_head_attention_port` the same
sublayer under a non-v510 :class:`~pyref.semantics.Semantics` (the Hugging Face port's RoPE,
mask, softmax, score scale and reported E).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from . import arb_centered
from .arb import round_float32
from .backend import Backend, to_float64
from .ops import (
    density,
    layer_norm,
    linear,
    mask_fill_value,
    masked,
    operator,
    residual_metric_learner,
    rope_tables,
    rope_tables_f32,
    rotate,
    rotate_tables,
    scores,
    softmax,
    softmax_exclude,
)


# ============================================================================ operator sources
@dataclass(frozen=True)
class PLGAOperator:
    """The learned operator of PLDR-LLM (``learner``: :class:`~pyref.params.LearnerParams`)."""

    learner: Any
    learned: ClassVar[bool] = True   # A goes into the KV-cache, [A_LM, G_LM] into the G-cache

    def prefill_A(self, b: Backend, cfg, qh):
        """A = Φ_res(LN_A(D)), D = Q̂ᵀQ̂ of the rotated queries: qh [B,H,S,d_k] -> [B,H,d_k,d_k].
        arb: Φ_res by the centred form of :mod:`pyref.arb_centered` (the same enclosure
        property, ~25 fewer digits lost per layer on the paper's shapes)."""
        ln = self.learner.ln_A
        A = layer_norm(b, density(b, qh), ln.gamma, ln.beta, cfg.ln_eps)
        phi = arb_centered.residual_units if b.is_arb else residual_metric_learner
        return phi(b, A, self.learner.units, cfg.ln_eps)

    def deduce(self, b: Backend, cfg, qh, cached_A, gc):
        """(deductive dict, G for the scores): A from the cache or the prefill, the operator
        from the G-cache ``gc`` = [A_LM, G_LM] or from A."""
        A = self.prefill_A(b, cfg, qh) if cached_A is None else cached_A
        if gc is not None:
            A_LM, A_P, G = gc[0], None, gc[1]
        else:
            w = self.learner.weights
            A_LM, A_P, G = operator(b, A, w.W, w.b, w.P, w.a, w.b_a, cfg.metric_eps)
        return {"A": A, "A_LM": A_LM, "A_P": A_P, "G_LM": G}, G


@dataclass(frozen=True)
class ConstantOperator:
    """A fixed operator ``G`` (backend array [.., H, d_k, d_k]), not learned."""

    G: Any
    learned: ClassVar[bool] = False

    def deduce(self, b: Backend, cfg, qh, cached_A, gc):
        return {"A": None, "A_LM": None, "A_P": None, "G_LM": self.G}, self.G


@dataclass(frozen=True)
class IdentityOperator:
    """SDPA: the operator is I; the scores skip the product (G = None), the reported
    G_LM is the identity [d_k, d_k]."""

    learned: ClassVar[bool] = False

    def deduce(self, b: Backend, cfg, qh, cached_A, gc):
        return {"A": None, "A_LM": None, "A_P": None, "G_LM": b.eye(qh.shape[-1])}, None


# ============================================================================ the sublayer
def _heads(x):
    """[B, T, H, d_k] -> contiguous [B, H, T, d_k] (numpy's batched matmul is ~5x slower on
    strided views)."""
    return np.ascontiguousarray(np.transpose(x, (0, 2, 1, 3)))


def multi_head_attention(b: Backend, cfg, p, x, mask, kv=None, gc=None):
    """One multi-head attention sublayer on x [B, S, d] (``p``: :class:`~pyref.params.
    AttentionParams`, its ``operator`` supplies G).  ``mask`` [B|1, 1, S, T] or None;
    ``kv``: None or the cache [K̂ [B,T0,H,d_k], V [B,T0,H,d_k], (A)]; ``gc``: None or
    [A_LM, G_LM].

    Returns (out [B, S, d], deductive dict A/A_LM/A_P/G_LM/E, new kv cache, new g cache).
    """
    B, S, d = x.shape
    H = cfg.num_heads
    dk = d // H
    q = linear(b, x, p.wq, p.bq).reshape(B, S, H, dk)                                # [B,S,H,dk]
    k = linear(b, x, p.wk, p.bk).reshape(B, S, H, dk)
    v = linear(b, x, p.wv, p.bv).reshape(B, S, H, dk)
    n_cached = 0 if kv is None else kv[0].shape[1]
    positions = list(range(n_cached, n_cached + S))
    qh = rotate(b, _heads(q), positions, cfg.rope_base)                            # [B,H,S,dk]
    k_rot = np.transpose(rotate(b, np.transpose(k, (0, 2, 1, 3)), positions, cfg.rope_base),
                         (0, 2, 1, 3))                                             # [B,S,H,dk]
    if kv is None:
        K_all, V_all, cached_A = k_rot, v, None                                    # [B,T,H,dk]
    else:
        K_all = np.concatenate([kv[0], k_rot], axis=1)                             # [B,T,H,dk]
        V_all = np.concatenate([kv[1], v], axis=1)
        cached_A = kv[2] if p.operator.learned else None
    ded, G = p.operator.deduce(b, cfg, qh, cached_A, gc)

    E = scores(b, qh, _heads(K_all), G)                                            # [B,H,S,T]
    att = softmax(b, masked(b, E, mask), overwrite=mask is not None)  # E itself is kept
    heads_out = b.matmul(att, _heads(V_all))                                       # [B,H,S,dk]
    out = linear(b, np.transpose(heads_out, (0, 2, 1, 3)).reshape(B, S, d), p.wo, p.bo)  # [B,S,d]
    ded["E"] = E
    if p.operator.learned:
        return out, ded, [K_all, V_all, ded["A"]], [ded["A_LM"], G]
    return out, ded, [K_all, V_all], None


# ============================================================================ port semantics
def _to_float32(b: Backend, x, what="a tensor"):
    """A backend array rounded to float32 (mp: through float64, which every float32 holds;
    arb: likewise, when every point of each ball rounds to the same float32, else ValueError)."""
    if b.is_arb:
        return round_float32(x, what)
    return (to_float64(x) if b.is_mp else np.asarray(x)).astype(np.float32)


def port_rope(b: Backend, cfg, sem, x, positions):
    """RoPE under ``sem`` (``rope``, ``rope_float32``): x [B, H, S, d_k], int positions [P, S]
    (P = 1 or B) -> rotated x in backend ``b``."""
    half = sem.rope == "half"
    if not sem.rope_float32:
        c, s = rope_tables(b, positions, x.shape[-1], cfg.rope_base)              # [P,S,dk/2]
        return rotate_tables(x, c[:, None], s[:, None], half)
    c, s = rope_tables_f32(positions, x.shape[-1], cfg.rope_base)                 # float32
    if half:   # HF rotary embedding: float32 tables cast to the model dtype, rotation there
        return rotate_tables(x, b.asarray(c)[:, None], b.asarray(s)[:, None], True)
    # torchtune: x.float(), rotation in float32, type_as(x)
    return b.asarray(rotate_tables(_to_float32(b, x, "the RoPE input (float32 rotation)"),
                                   c[:, None], s[:, None], False))


def port_softmax(b: Backend, sem, E, masked_keys):
    """Attention weights from scores E [B, H, S, T] under ``sem`` (``mask_fill``,
    ``softmax_float32``); ``masked_keys`` bool [B|1, 1, S, T] (True = masked) or None."""
    if sem.mask_fill == "exclude":
        return softmax_exclude(b, E, masked_keys)
    x = E
    if masked_keys is not None:
        fill = mask_fill_value(b, sem.mask_fill)
        x = E + np.where(masked_keys, fill, b.const(0))
    if not sem.softmax_float32 or b.name == "float32":
        return softmax(b, x, overwrite=masked_keys is not None)
    with np.errstate(over="ignore"):
        x32 = _to_float32(b, x, "the scores (float32 softmax)")   # finfo(float64).min -> -inf
    if np.any(np.isneginf(np.max(x32, axis=-1))):
        raise ValueError(f"forward ({b.name}): a query row has every key masked; the port's "
                         "float32 softmax of finfo(float64).min scores (-inf in float32) is NaN "
                         "there (use the float32 backend or attn_implementation='sdpa')")
    return b.asarray(softmax(Backend("float32"), x32, overwrite=True))


def multi_head_attention_port(b: Backend, cfg, p, x, masked_keys, positions, sem, kv=None,
                              gc=None):
    """:func:`multi_head_attention` under the semantics ``sem`` (:mod:`pyref.semantics`):
    RoPE at int ``positions`` [B|1, S] by ``port_rope``, scores scaled per ``sem.score_scale``,
    weights by ``port_softmax`` with the boolean ``masked_keys`` [B|1, 1, S, T] (or None), and
    ``E`` reported per ``sem.E``.  Same caches and returns as :func:`multi_head_attention`."""
    B, S, d = x.shape
    H = cfg.num_heads
    dk = d // H
    qh = port_rope(b, cfg, sem, _heads(linear(b, x, p.wq, p.bq).reshape(B, S, H, dk)), positions)
    kh = port_rope(b, cfg, sem, _heads(linear(b, x, p.wk, p.bk).reshape(B, S, H, dk)), positions)
    v = linear(b, x, p.wv, p.bv).reshape(B, S, H, dk)                                 # [B,S,H,dk]
    k_rot = np.transpose(kh, (0, 2, 1, 3))                                         # [B,S,H,dk]
    if kv is None:
        K_all, V_all, cached_A = k_rot, v, None                                    # [B,T,H,dk]
    else:
        K_all = np.concatenate([kv[0], k_rot], axis=1)
        V_all = np.concatenate([kv[1], v], axis=1)
        cached_A = kv[2] if p.operator.learned else None
    ded, G = p.operator.deduce(b, cfg, qh, cached_A, gc)
    lhs = qh if G is None else b.matmul(qh, G)                                     # [B,H,S,dk]
    raw = b.matmul(lhs, np.swapaxes(_heads(K_all), -1, -2))                        # [B,H,S,T]
    if sem.score_scale == "reciprocal":
        E = raw * (b.const(1) / b.sqrt(b.const(dk)))
    else:
        E = raw / b.sqrt(b.const(dk))
    att = port_softmax(b, sem, E, masked_keys)                                     # [B,H,S,T]
    heads_out = b.matmul(att, _heads(V_all))                                       # [B,H,S,dk]
    out = linear(b, np.transpose(heads_out, (0, 2, 1, 3)).reshape(B, S, d), p.wo, p.bo)
    ded["E"] = att if sem.E == "post_softmax" else E
    if p.operator.learned:
        return out, ded, [K_all, V_all, ded["A"]], [ded["A_LM"], G]
    return out, ded, [K_all, V_all], None
