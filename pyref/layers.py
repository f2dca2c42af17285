"""Dense building blocks: Linear, LayerNorm, SwiGLU (GLUVariant), iSwiGLU (spec A.2, A.4).

Internal functions (prefixed ``_``) take a :class:`~pyref.backend.Backend` and arrays
already in that backend; the public functions take plain arrays plus ``backend=``/``dps=``
keywords, convert, and compute inside the backend's precision context.
"""
from __future__ import annotations

import numpy as np

from .backend import Backend, get_backend


# ---------------------------------------------------------------------------- internal
def _linear(x, W, bias):
    """torch Linear on the last axis: x [..., in] @ W[out, in]ᵀ + bias[out] -> [..., out]."""
    # one 2-D GEMM over all leading axes (numpy loops over stacked matrices otherwise,
    # ~10x slower for the Φ_res inputs [B, H, d_k, d_k])
    y = np.matmul(x.reshape(-1, x.shape[-1]), W.T).reshape(*x.shape[:-1], W.shape[0])
    if bias is not None:
        y += bias  # y is a fresh array
    return y


def _layer_norm(b: Backend, x, gamma, beta, eps):
    """Row LayerNorm over the last axis (biased variance, eps inside the root):
    γ ⊙ (r - mean r)/sqrt(var r + eps) + β."""
    n = x.shape[-1]
    mu = np.sum(x, axis=-1, keepdims=True) / n                 # [..., 1]
    xc = x - mu                                                 # [..., n]
    var = np.sum(xc * xc, axis=-1, keepdims=True) / n           # [..., 1]
    y = xc / b.sqrt(var + b.const(eps))
    if gamma is not None:
        y = y * gamma
    if beta is not None:
        y = y + beta
    return y


def _swiglu(b: Backend, x, W1, b1, W2, b2, W3, b3):
    """GLUVariant: (silu(x W1ᵀ + b1) ⊙ (x W2ᵀ + b2)) W3ᵀ + b3; gate = W1, value = W2.
    x [..., d_in]; W1, W2 [hidden, d_in]; W3 [d_out, hidden] -> [..., d_out]."""
    gate = b.silu(_linear(x, W1, b1))   # [..., hidden]
    val = _linear(x, W2, b2)            # [..., hidden]
    return _linear(gate * val, W3, b3)  # [..., d_out]


def _iswiglu(b: Backend, u):
    """iSwiGLU(u) = u·silu(u) = u²σ(u), elementwise (≥ 0, > 0 for u ≠ 0)."""
    return u * b.silu(u)


# ---------------------------------------------------------------------------- public
def _conv(b, *arrays):
    return [None if a is None else b.asarray(a) for a in arrays]


def linear(x, W, bias=None, backend="float64", dps=50):
    """y = x Wᵀ + bias on the last axis (torch ``nn.Linear`` convention, W is [out, in])."""
    b = get_backend(backend, dps)
    with b.context():
        x, W, bias = _conv(b, x, W, bias)
        if W.ndim != 2 or x.shape[-1] != W.shape[1]:
            raise ValueError(f"linear: x last axis {x.shape[-1:]} does not match W [out, in] = {W.shape}")
        if bias is not None and bias.shape != (W.shape[0],):
            raise ValueError(f"linear: bias shape {bias.shape}, expected ({W.shape[0]},)")
        return _linear(x, W, bias)


def layer_norm(x, gamma=None, beta=None, eps=1e-6, backend="float64", dps=50):
    """Row LayerNorm over the last axis: γ ⊙ (r - μ)/√(var + eps) + β (biased var).

    ``gamma``/``beta`` default to 1/0 (no affine).  ``eps`` is a float (mp reads it as
    the decimal constant) or an mpf.
    """
    b = get_backend(backend, dps)
    with b.context():
        x, gamma, beta = _conv(b, x, gamma, beta)
        n = x.shape[-1]
        for nm, v in (("gamma", gamma), ("beta", beta)):
            if v is not None and v.shape != (n,):
                raise ValueError(f"layer_norm: {nm} shape {v.shape}, expected ({n},)")
        if not eps > 0:
            if eps < 0:
                raise ValueError(f"layer_norm: eps must be >= 0, got {eps}")
            xc = x - np.sum(x, axis=-1, keepdims=True) / n
            flat = np.all(xc == 0, axis=-1)
            if np.any(flat):
                where = tuple(int(i) for i in np.argwhere(flat)[0])
                raise ValueError(f"layer_norm: eps = 0 and row {where} has zero variance "
                                 "(the normalization 0/0 is undefined); use eps > 0")
        return _layer_norm(b, x, gamma, beta, eps)


def swiglu(x, W1, b1, W2, b2, W3, b3, backend="float64", dps=50):
    """SwiGLU block (silu(xW1ᵀ+b1) ⊙ (xW2ᵀ+b2))W3ᵀ + b3, applied to each row of x."""
    b = get_backend(backend, dps)
    with b.context():
        x, W1, b1, W2, b2, W3, b3 = _conv(b, x, W1, b1, W2, b2, W3, b3)
        if W1.shape != W2.shape or W3.shape[1] != W1.shape[0] or x.shape[-1] != W1.shape[1]:
            raise ValueError(f"swiglu: inconsistent shapes x{x.shape} W1{W1.shape} W2{W2.shape} W3{W3.shape}")
        return _swiglu(b, x, W1, b1, W2, b2, W3, b3)


def iswiglu(u, backend="float64", dps=50):
    """iSwiGLU(u) = u·silu(u) = u²·σ(u), elementwise."""
    b = get_backend(backend, dps)
    with b.context():
        return _iswiglu(b, b.asarray(u))


def sigmoid(u, backend="float64", dps=50):
    """σ(u) = 1/(1+e^{-u}), elementwise."""
    b = get_backend(backend, dps)
    with b.context():
        return b.sigmoid(b.asarray(u))


def silu(u, backend="float64", dps=50):
    """silu(u) = u·σ(u), elementwise."""
    b = get_backend(backend, dps)
    with b.context():
        return b.silu(b.asarray(u))
