"""Rotary position embedding, interleaved pairs (spec A.4 step 2; torchtune 0.5.0).

θ_j = Θ^{-2j/d_k}, j = 0 … d_k/2-1.  At position p the pair (x_{2j}, x_{2j+1}) is rotated
by the angle p·θ_j:

    x'_{2j}   = x_{2j}   cos(pθ_j) - x_{2j+1} sin(pθ_j)
    x'_{2j+1} = x_{2j+1} cos(pθ_j) + x_{2j}   sin(pθ_j)

i.e. x' = R_p x with R_p = blockdiag_j rot(pθ_j), rot(φ) = [[cos φ, -sin φ], [sin φ, cos φ]].

Difference to the authors' code: torchtune builds the cos/sin table and performs the
rotation in float32 (casting the result back to the model dtype) even in a float64
model.  pyref computes RoPE in the working backend (float64, float32 or mp).
"""
from __future__ import annotations

import mpmath
import numpy as np

from .backend import Backend, get_backend


def _check_dk(d_k):
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 2 or d_k % 2:
        raise ValueError(f"rope: d_k must be a positive even int, got {d_k!r}")


def _thetas(b: Backend, d_k: int, base) -> np.ndarray:
    """θ_j = base^{-2j/d_k}, shape [d_k/2] (call inside b.context())."""
    _check_dk(d_k)
    if b.is_mp:
        base_mp = b.const(base)
        out = np.empty(d_k // 2, dtype=object)
        for j in range(d_k // 2):
            out[j] = mpmath.power(base_mp, mpmath.mpf(-2 * j) / d_k)
        return out
    # float: computed in float64 then cast (float32 backend rounds once)
    return (float(base) ** (-2.0 * np.arange(d_k // 2) / d_k)).astype(b.dtype)


def _angles(b: Backend, positions, d_k: int, base) -> np.ndarray:
    """Angles p·θ_j, shape [len(positions), d_k/2]."""
    th = _thetas(b, d_k, base)
    pos = np.asarray(positions)
    if pos.ndim != 1:
        raise ValueError(f"rope: positions must be 1-D, got shape {pos.shape}")
    return b.asarray(pos)[:, None] * th[None, :]


def _apply_rope(b: Backend, x: np.ndarray, positions, base) -> np.ndarray:
    """Rotate x [..., S, d_k] at positions [S] (internal; x already a backend array)."""
    d_k = x.shape[-1]
    _check_dk(d_k)
    if len(positions) != x.shape[-2]:
        raise ValueError(f"rope: {len(positions)} positions for a sequence axis of length {x.shape[-2]}")
    ang = _angles(b, positions, d_k, base)          # [S, d_k/2]
    c, s = b.cos(ang), b.sin(ang)                   # [S, d_k/2]
    xe, xo = x[..., 0::2], x[..., 1::2]             # [..., S, d_k/2]
    out = np.empty_like(x)
    out[..., 0::2] = xe * c - xo * s
    out[..., 1::2] = xo * c + xe * s
    return out


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
        return _apply_rope(b, x, list(np.asarray(positions).tolist()), base)


def rope_thetas(d_k, base=1e4, backend="float64", dps=50):
    """The RoPE frequencies θ_j = base^{-2j/d_k}, shape [d_k/2]."""
    b = get_backend(backend, dps)
    with b.context():
        return _thetas(b, d_k, base)


def rope_matrix(n, d_k, base=1e4, backend="float64", dps=50):
    """The rotation R_n = blockdiag_j rot(n·θ_j), shape [d_k, d_k].

    ``n`` may be any real position (int for the model); ``apply_rope(x)[p] = R_p @ x[p]``.
    """
    b = get_backend(backend, dps)
    _check_dk(d_k)
    with b.context():
        th = _thetas(b, d_k, base)
        ang = b.const(n) * th if b.is_mp else np.asarray(float(n) * th, dtype=b.dtype)
        c, s = b.cos(ang), b.sin(ang)
        R = b.zeros((d_k, d_k))
        for j in range(d_k // 2):
            R[2 * j, 2 * j] = c[j]
            R[2 * j, 2 * j + 1] = -s[j]
            R[2 * j + 1, 2 * j] = s[j]
            R[2 * j + 1, 2 * j + 1] = c[j]
        return R
