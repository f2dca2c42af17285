"""The formulas of the spec, once each, on arrays already in a backend (spec A.2, A.4).

Every function here takes a :class:`~pyref.backend.Backend` ``b`` first (when it needs
one) and arrays already converted to it, and must be called inside ``b.context()``.  Every
matrix product goes through ``b.matmul`` (numpy's for float64/float32/mp, ``arb_mat`` for arb).  The
public modules :mod:`pyref.layers`, :mod:`pyref.rope` and :mod:`pyref.plga` wrap these
with conversion and validation; :mod:`pyref.attention` and :mod:`pyref.model` compose
them into the model.

Shapes: B batch, S query length, T key length, H heads, d_k head dim; per-head tensors
are [B, H, ·, ·]; operator weights W, b, P, a, b_a are [H, d_k, d_k].
"""
from __future__ import annotations

import mpmath
import numpy as np

from .backend import Backend

MASK_VALUE = -1e9  # the authors' finite additive mask constant


# ============================================================================ dense layers
def linear(b: Backend, x, W, bias):
    """torch Linear on the last axis: x [..., in] @ W[out, in]ᵀ + bias[out] -> [..., out]."""
    # one 2-D GEMM over all leading axes (numpy loops over stacked matrices otherwise,
    # ~10x slower for the Φ_res inputs [B, H, d_k, d_k])
    y = b.matmul(x.reshape(-1, x.shape[-1]), W.T).reshape(*x.shape[:-1], W.shape[0])
    if bias is not None:
        y += bias  # y is a fresh array
    return y


def _ln_row_scale(x):
    """Per-row exponents ``k`` [..., 1] such that max|r·2^-k| ≤ 2^(e/2 − 16) (e the dtype's
    maximum exponent), ``k = 0`` for rows already that small; None when every row is.

    LayerNorm is invariant under r -> r·2^-k up to ε -> ε·2^-2k, and scaling by a power of two
    is exact, so normalizing the scaled row with the scaled ε is the same LayerNorm, computed
    without ``Σ(r − μ)²`` overflowing (a row of size 1e300 is a legal input: LN ignores its
    scale)."""
    limit = 2.0 ** (np.finfo(x.dtype).maxexp // 2 - 16)
    m = np.max(np.abs(x), axis=-1, keepdims=True)                  # [..., 1]
    if not np.any(m > limit):
        return None
    return np.where(m > limit, np.frexp(m)[1], 0)


def layer_norm(b: Backend, x, gamma, beta, eps):
    """Row LayerNorm over the last axis (biased variance, eps inside the root):
    γ ⊙ (r - mean r)/sqrt(var r + eps) + β.  Float rows too large to square are first scaled
    by a power of two (:func:`_ln_row_scale`; exact, and a no-op for every other row)."""
    n = x.shape[-1]
    k = None if b.is_object else _ln_row_scale(x)
    e = b.const(eps)
    if k is not None:
        x, e = np.ldexp(x, -k), np.ldexp(e, -2 * k).astype(x.dtype)   # e: [..., 1]
    mu = np.sum(x, axis=-1, keepdims=True) / n                 # [..., 1]
    xc = x - mu                                                 # [..., n]
    var = np.sum(xc * xc, axis=-1, keepdims=True) / n           # [..., 1]
    y = xc / b.sqrt(var + e)
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def swiglu(b: Backend, x, W1, b1, W2, b2, W3, b3):
    """GLUVariant: (silu(x W1ᵀ + b1) ⊙ (x W2ᵀ + b2)) W3ᵀ + b3; gate = W1, value = W2.
    x [..., d_in]; W1, W2 [hidden, d_in]; W3 [d_out, hidden] -> [..., d_out]."""
    gate = b.silu(linear(b, x, W1, b1))   # [..., hidden]
    val = linear(b, x, W2, b2)            # [..., hidden]
    return linear(b, gate * val, W3, b3)  # [..., d_out]


def iswiglu(b: Backend, u):
    """iSwiGLU(u) = u·silu(u) = u²σ(u), elementwise (≥ 0, > 0 for u ≠ 0)."""
    return u * b.silu(u)


# ============================================================================ RoPE
def check_head_dim(d_k):
    """RoPE rotates pairs: d_k must be a positive even int."""
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 2 or d_k % 2:
        raise ValueError(f"rope: d_k must be a positive even int, got {d_k!r}")


def thetas(b: Backend, d_k: int, base) -> np.ndarray:
    """θ_j = base^{-2j/d_k}, shape [d_k/2]."""
    check_head_dim(d_k)
    if b.is_arb:   # exp(log(base)·(−2j)/d_k): the rational exponent is exact
        lb = b.const(base).log()
        return b.exp(np.array([lb * (-2 * j) / d_k for j in range(d_k // 2)], dtype=object))
    if b.is_mp:
        base_mp = b.const(base)
        out = np.empty(d_k // 2, dtype=object)
        for j in range(d_k // 2):
            out[j] = mpmath.power(base_mp, mpmath.mpf(-2 * j) / d_k)
        return out
    # float: computed in float64 then cast (float32 backend rounds once)
    return (float(base) ** (-2.0 * np.arange(d_k // 2) / d_k)).astype(b.dtype)


def angles(b: Backend, positions, d_k: int, base) -> np.ndarray:
    """Angles p·θ_j, shape [len(positions), d_k/2]."""
    th = thetas(b, d_k, base)
    pos = np.asarray(positions)
    if pos.ndim != 1:
        raise ValueError(f"rope: positions must be 1-D, got shape {pos.shape}")
    return b.asarray(pos)[:, None] * th[None, :]


def rotate(b: Backend, x: np.ndarray, positions, base) -> np.ndarray:
    """Interleaved RoPE: rotate each pair (x_{2j}, x_{2j+1}) of x [..., S, d_k] at
    position p by the angle p·θ_j (positions [S])."""
    d_k = x.shape[-1]
    check_head_dim(d_k)
    if len(positions) != x.shape[-2]:
        raise ValueError(f"rope: {len(positions)} positions for a sequence axis of length "
                         f"{x.shape[-2]}")
    ang = angles(b, positions, d_k, base)           # [S, d_k/2]
    c, s = b.cos(ang), b.sin(ang)                   # [S, d_k/2]
    xe, xo = x[..., 0::2], x[..., 1::2]             # [..., S, d_k/2]
    out = np.empty_like(x)
    out[..., 0::2] = xe * c - xo * s
    out[..., 1::2] = xo * c + xe * s
    return out


# ============================================================================ PLGA
def density(b: Backend, qh):
    """D = Q̂ᵀQ̂ over all S rows (non-causal, no 1/S): qh [..., S, d_k] -> [..., d_k, d_k]."""
    return b.matmul(np.swapaxes(qh, -1, -2), qh)


def residual_metric_learner(b: Backend, A, units, eps):
    """Φ_res: for each unit, A <- LN_u(A + g_n(…g_1(A))), each g a SwiGLU block on the rows.

    ``units``: sequence of :class:`~pyref.params.ResUnitParams`.  A [..., d_k, d_k] -> same."""
    for u in units:
        Ain = A
        for g in u.blocks:
            A = swiglu(b, A, g.W1, g.b1, g.W2, g.b2, g.W3, g.b3)
        A = layer_norm(b, A + Ain, u.gamma, u.beta, eps)
    return A


def metric_tensor(b: Backend, A, W, bias, eps):
    """A_LM = iSwiGLU(W A + b) + eps; W left-multiplies (mixes rows). [.., H, d_k, d_k]."""
    return iswiglu(b, b.matmul(W, A) + bias) + b.const(eps)


def potential_tensor(b: Backend, A_LM, P):
    """A_P = A_LM^{⊙P} (elementwise real power)."""
    return b.power(A_LM, P)


def energy_curvature(b: Backend, A_P, a, b_a):
    """G_LM = a · A_P + b_a (matrix product, a left-multiplies)."""
    return b.matmul(a, A_P) + b_a


def operator(b: Backend, A, W, bias, P, a, b_a, eps):
    """The deductive operator (spec A.4 steps 6-8) -> (A_LM, A_P, G_LM):

        A_LM = iSwiGLU(W A + b) + ε,   A_P = A_LM^{⊙P},   G_LM = a·A_P + b_a
    """
    A_LM = metric_tensor(b, A, W, bias, eps)
    A_P = potential_tensor(b, A_LM, P)
    return A_LM, A_P, energy_curvature(b, A_P, a, b_a)


# ============================================================================ attention
def scores(b: Backend, qh, kh, G):
    """E = (Q̂ G) K̂ᵀ / √d_k (G None means the identity: SDPA).
    [B,H,S,d_k] x [B,H,T,d_k] -> [B,H,S,T]."""
    d_k = qh.shape[-1]
    lhs = qh if G is None else b.matmul(qh, G)
    return b.matmul(lhs, np.swapaxes(kh, -1, -2)) / b.sqrt(b.const(d_k))


def masked(b: Backend, E, mask):
    """E + mask·(-1e9) (mask 1 = masked), or E if mask is None."""
    if mask is None:
        return E
    return E + b.asarray(mask) * b.const(MASK_VALUE)


def softmax(b: Backend, x, overwrite=False):
    """Softmax over the last axis, with max subtraction (shift invariant; arb shifts by an
    exact point near the row maximum, which adds no radius -- comparisons of overlapping balls
    only decide which such point).  ``overwrite=True`` lets float backends reuse ``x``'s
    memory (a temporary)."""
    m = np.max(x, axis=-1, keepdims=True)
    if b.is_object:
        e = b.exp(x - b.point(m))
        return e / np.sum(e, axis=-1, keepdims=True)
    e = np.subtract(x, m, out=x if overwrite else None)   # then in place ([B,H,S,T] is large)
    np.exp(e, out=e)
    e /= np.sum(e, axis=-1, keepdims=True)
    return e



# ============================================================================ HF-port semantics
# (pyref.semantics: the behaviours of the transformers port that differ from v510)
def rope_tables_f32(positions, d_k: int, base):
    """The port's float32 RoPE tables (torchtune ``rope_init``/``build_rope_cache`` and HF's
    default ``inv_freq``): θ_j = 1/base^(fl32(2j)/d_k), angles fl32(p·θ_j), cos and sin in
    float32.  ``positions`` int [P, S] -> (cos, sin) float32 [P, S, d_k/2]."""
    check_head_dim(d_k)
    expo = np.arange(0, d_k, 2, dtype=np.float32) / np.float32(d_k)          # [d_k/2]
    theta = np.float32(1.0) / np.power(np.float32(base), expo)
    ang = np.asarray(positions).astype(np.float32)[..., None] * theta        # [P,S,d_k/2]
    return np.cos(ang), np.sin(ang)


def rope_tables(b: Backend, positions, d_k: int, base):
    """(cos, sin) [P, S, d_k/2] in backend ``b`` for int positions [P, S] (θ as :func:`thetas`)."""
    pos = np.asarray(positions)
    ang = angles(b, pos.reshape(-1), d_k, base).reshape(*pos.shape, d_k // 2)
    return b.cos(ang), b.sin(ang)


def rotate_tables(x, cos, sin, half: bool):
    """Rotate x [..., S, d_k] by tables cos/sin broadcastable to [..., S, d_k/2]: the pairs
    (2j, 2j+1) (``half=False``, interleaved) or (j, j+d_k/2) (``half=True``, ``rotate_half``):
    x'_a = x_a cos - x_b sin, x'_b = x_b cos + x_a sin."""
    n = x.shape[-1] // 2
    xa, xb = (x[..., :n], x[..., n:]) if half else (x[..., 0::2], x[..., 1::2])
    out = np.empty_like(x)
    if half:
        out[..., :n] = xa * cos - xb * sin
        out[..., n:] = xb * cos + xa * sin
    else:
        out[..., 0::2] = xa * cos - xb * sin
        out[..., 1::2] = xb * cos + xa * sin
    return out


def mask_fill_value(b: Backend, fill: str):
    """The additive constant of a masked score: -1e9 (``"minus_1e9"``) or the most negative
    finite float32 (``"finfo_min"``: the port's eager fill for a float32 model, in every
    backend; bf16's -3.39e38 acts the same)."""
    if fill == "minus_1e9":
        return b.const(MASK_VALUE)
    return b.const(float(np.finfo(np.float32).min))


def softmax_exclude(b: Backend, x, masked):
    """Softmax over the last axis in which masked entries (``masked`` bool, broadcastable, True =
    masked) get weight exactly 0 and a row with every entry masked gets all-zero weights (torch
    SDPA with a boolean mask, torch >= 2.5)."""
    if masked is None:
        return softmax(b, x)
    keep = ~np.broadcast_to(masked, x.shape)
    any_keep = keep.any(axis=-1, keepdims=True)                              # [..., 1]
    m = np.max(np.where(keep, x, b.const(float("-inf"))), axis=-1, keepdims=True)
    m = np.where(any_keep, m, b.const(0))
    e = b.exp(np.where(keep, x - m, b.const(0)))
    e = np.where(keep, e, b.const(0))
    s = np.sum(e, axis=-1, keepdims=True)
    return e / np.where(any_keep, s, b.const(1))
