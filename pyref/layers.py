"""Dense building blocks, public array API: Linear, LayerNorm, SwiGLU (GLUVariant),
iSwiGLU, sigmoid, silu (spec A.2, A.4).

Each function takes plain arrays plus ``backend=``/``dps=`` keywords, converts
(:func:`pyref.inputs.conv`), validates, and evaluates the formula of :mod:`pyref.ops`
inside the backend's precision context.
"""
from __future__ import annotations

import numpy as np

from . import ops
from .backend import get_backend
from .inputs import conv


def linear(x, W, bias=None, backend="float64", dps=50):
    """y = x Wᵀ + bias on the last axis (torch ``nn.Linear`` convention, W is [out, in])."""
    b = get_backend(backend, dps)
    with b.context():
        x, W, bias = conv(b, x, W, bias)
        if W.ndim != 2 or x.shape[-1] != W.shape[1]:
            raise ValueError(f"linear: x last axis {x.shape[-1:]} does not match W [out, in] = "
                             f"{W.shape}")
        if bias is not None and bias.shape != (W.shape[0],):
            raise ValueError(f"linear: bias shape {bias.shape}, expected ({W.shape[0]},)")
        return ops.linear(b, x, W, bias)


def layer_norm(x, gamma=None, beta=None, eps=1e-6, backend="float64", dps=50):
    """Row LayerNorm over the last axis: γ ⊙ (r - μ)/√(var + eps) + β (biased var).

    ``gamma``/``beta`` default to 1/0 (no affine).  ``eps`` is a float (mp reads it as
    the decimal constant) or an mpf.
    """
    b = get_backend(backend, dps)
    with b.context():
        x, gamma, beta = conv(b, x, gamma, beta)
        n = x.shape[-1]
        for nm, v in (("gamma", gamma), ("beta", beta)):
            if v is not None and v.shape != (n,):
                raise ValueError(f"layer_norm: {nm} shape {v.shape}, expected ({n},)")
        if not eps > 0:
            if eps < 0:
                raise ValueError(f"layer_norm: eps must be >= 0, got {eps}")
            # zero variance ⇔ a constant row (tested exactly: the rounded mean of a constant
            # row need not equal its entries, so x − mean can be rounding noise)
            flat = np.all(x == x[..., :1], axis=-1)
            if np.any(flat):
                where = tuple(int(i) for i in np.argwhere(flat)[0])
                raise ValueError(f"layer_norm: eps = 0 and row {where} has zero variance "
                                 "(the normalization 0/0 is undefined); use eps > 0")
        return ops.layer_norm(b, x, gamma, beta, eps)


def swiglu(x, W1, b1, W2, b2, W3, b3, backend="float64", dps=50):
    """SwiGLU block (silu(xW1ᵀ+b1) ⊙ (xW2ᵀ+b2))W3ᵀ + b3, applied to each row of x."""
    b = get_backend(backend, dps)
    with b.context():
        x, W1, b1, W2, b2, W3, b3 = conv(b, x, W1, b1, W2, b2, W3, b3)
        if W1.shape != W2.shape or W3.shape[1] != W1.shape[0] or x.shape[-1] != W1.shape[1]:
            raise ValueError(f"swiglu: inconsistent shapes x{x.shape} W1{W1.shape} W2{W2.shape} "
                             f"W3{W3.shape}")
        return ops.swiglu(b, x, W1, b1, W2, b2, W3, b3)


def iswiglu(u, backend="float64", dps=50):
    """iSwiGLU(u) = u·silu(u) = u²·σ(u), elementwise."""
    b = get_backend(backend, dps)
    with b.context():
        return ops.iswiglu(b, b.asarray(u))


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
