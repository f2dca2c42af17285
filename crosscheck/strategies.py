"""Hypothesis strategies built from the PLGA domain.

Inputs are drawn as float64 arrays (shrinking-friendly: small dimensions, entries in
``[-1, 1]`` times a magnitude drawn from a few decades, so shrinking heads to small,
simple matrices); properties convert them exactly to the backend under test.

Domain ranges follow the harness spec: even ``d_k`` in 2..16, sequence length 1..16,
1..3 heads; magnitudes from 1e-3 to 1e3 (extreme but finite: PLGA's own tensors are
LayerNorm-ed); rank-deficient inputs (repeated or zero rows) and near-singular ones
(a row perturbed by 1e-9) on purpose.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

UNIT = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False, width=64)
MAGNITUDE = st.sampled_from([1.0, 0.5, 2.0, 1e-3, 10.0, 1e3])


@st.composite
def matrix(draw, rows, cols, magnitude=MAGNITUDE, structure=True):
    """A ``rows x cols`` float64 matrix; with ``structure``, sometimes rank-deficient."""
    scale = draw(magnitude)
    vals = draw(st.lists(UNIT, min_size=rows * cols, max_size=rows * cols))
    M = np.array(vals, dtype=np.float64).reshape(rows, cols) * scale
    if structure and rows >= 2:
        kind = draw(st.sampled_from(["plain", "plain", "repeat-row", "zero-row", "near-singular"]))
        if kind == "repeat-row":
            M[-1] = M[0]
        elif kind == "zero-row":
            M[-1] = 0.0
        elif kind == "near-singular":
            M[-1] = M[0] * (1 + 1e-9)
    return M


def even_dk(lo=2, hi=16):
    return st.integers(lo // 2, hi // 2).map(lambda m: 2 * m)


def seq_len(lo=1, hi=16):
    return st.integers(lo, hi)


@st.composite
def square(draw, lo=1, hi=8, **kw):
    n = draw(st.integers(lo, hi))
    return draw(matrix(n, n, **kw))


@st.composite
def positive_square(draw, lo=1, hi=8):
    """An entrywise-positive matrix with entries in [eps, ~1]: eps drawn from 1e-9..0.5."""
    n = draw(st.integers(lo, hi))
    eps = draw(st.sampled_from([1e-9, 1e-3, 0.1, 0.5]))
    vals = draw(st.lists(st.floats(0.0, 1.0, allow_nan=False, width=64), min_size=n * n,
                         max_size=n * n))
    return np.array(vals).reshape(n, n) + eps, eps


@st.composite
def qkv(draw, max_s=8, max_dk=8):
    """(Q̂ [S, d_k], K̂ [T, d_k], V [T, d_v], mask [S, T] with at least one allowed key per row)."""
    dk = draw(even_dk(2, max_dk))
    S = draw(seq_len(1, max_s))
    T = draw(seq_len(1, max_s))
    dv = draw(st.integers(1, 4))
    Q = draw(matrix(S, dk, structure=False))
    K = draw(matrix(T, dk))
    V = draw(matrix(T, dv, structure=False))
    return Q, K, V, random_mask(draw, S, T)


def random_mask(draw, S, T):
    """A 0/1 attention mask [S, T] (1 = masked): none, causal (queries aligned to the last keys)
    or random bits; one drawn key per row is kept allowed (a fully masked row is where the
    authors' additive mask and the ideal masked softmax of the Lean statements differ).
    Call from inside a ``@st.composite`` with its ``draw``."""
    kind = draw(st.sampled_from(["none", "causal", "random"]))
    if kind == "none":
        m = np.zeros((S, T))
    elif kind == "causal":
        m = (np.arange(T)[None, :] > np.arange(S)[:, None] + max(T - S, 0)).astype(float)
    else:
        bits = draw(st.lists(st.booleans(), min_size=S * T, max_size=S * T))
        m = np.array(bits, dtype=float).reshape(S, T)
    keep = draw(st.lists(st.integers(0, T - 1), min_size=S, max_size=S))
    m[np.arange(S), keep] = 0.0
    return m
