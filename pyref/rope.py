"""Rotary position embedding, interleaved pairs (spec A.4 step 2; torchtune 0.5.0).

θ_j = Θ^{-2j/d_k}, j = 0 … d_k/2-1.  At position p the pair (x_{2j}, x_{2j+1}) is rotated
by the angle p·θ_j:

    x'_{2j}   = x_{2j}   cos(pθ_j) - x_{2j+1} sin(pθ_j)
    x'_{2j+1} = x_{2j+1} cos(pθ_j) + x_{2j}   sin(pθ_j)

i.e. x' = R_p x with R_p = blockdiag_j rot(pθ_j), rot(φ) = [[cos φ, -sin φ], [sin φ, cos φ]].

Difference to the authors' code: torchtune builds the cos/sin table and performs the
rotation in float32 (casting the result back to the model dtype) even in a float64
model.  pyref computes RoPE in the working backend (float64, float32, mp or arb).

Public array API; the rotation itself is :func:`pyref.ops.rotate`.
"""
from __future__ import annotations

import numpy as np

from . import ops
from .backend import get_backend


def apply_rope(x, positions=None, base=1e4, backend="float64", dps=50):
    """Apply interleaved RoPE to ``x`` of shape ``[..., S, d_k]``.

    ``positions``: 1-D sequence of S positions (default ``0 … S-1``; a KV-cached call
    uses ``n_cached + arange(s)``).  Returns an array of the same shape.
    """
    b = get_backend(backend, dps)
    with b.context():
        x = b.asarray(x)
        if x.ndim < 2:
            raise ValueError(f"apply_rope: x must have shape [..., S, d_k], got {x.shape}")
        if positions is None:
            positions = np.arange(x.shape[-2])
        return ops.rotate(b, x, list(np.asarray(positions).tolist()), base)


def rope_thetas(d_k, base=1e4, backend="float64", dps=50):
    """The RoPE frequencies θ_j = base^{-2j/d_k}, shape [d_k/2]."""
    b = get_backend(backend, dps)
    with b.context():
        return ops.thetas(b, d_k, base)


def rope_matrix(n, d_k, base=1e4, backend="float64", dps=50):
    """The rotation R_n = blockdiag_j rot(n·θ_j), shape [d_k, d_k].

    ``n`` may be any real position (int for the model); ``apply_rope(x)[p] = R_p @ x[p]``.
    """
    b = get_backend(backend, dps)
    ops.check_head_dim(d_k)
    with b.context():
        th = ops.thetas(b, d_k, base)
        ang = b.const(n) * th if b.is_object else np.asarray(float(n) * th, dtype=b.dtype)
        c, s = b.cos(ang), b.sin(ang)
        R = b.zeros((d_k, d_k))
        for j in range(d_k // 2):
            R[2 * j, 2 * j] = c[j]
            R[2 * j, 2 * j + 1] = -s[j]
            R[2 * j + 1, 2 * j] = s[j]
            R[2 * j + 1, 2 * j + 1] = c[j]
        return R
