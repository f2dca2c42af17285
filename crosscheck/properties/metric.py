"""Properties for ``Formal/Metric.lean``: iSwiGLU positivity and ``A_LM ≥ ε``, checked on
``pyref``'s own metric tensor (``pyref.plga.metric_tensor``) and activation
(``pyref.layers.iswiglu``)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from ..registry import Outcome, prop
from ..strategies import UNIT, even_dk, matrix
from ._arith import ctx


@st.composite
def metric_inputs(draw):
    dk = draw(even_dk(2, 8))
    H = draw(st.integers(1, 3))
    A = np.stack([draw(matrix(dk, dk)) for _ in range(H)])
    W = np.stack([draw(matrix(dk, dk, structure=False)) for _ in range(H)])
    b = np.stack([draw(matrix(dk, dk, structure=False)) for _ in range(H)])
    eps = draw(st.sampled_from([1e-9, 1e-6, 0.0, 1e-3]))
    return A, W, b, eps


@prop(theorems=["PLGA.metricTensor_entry_ge", "PLGA.metricTensor_entry_pos", "PLGA.iswiglu_nonneg"],
      paper="Prop 3.7 (A_LM ≥ ε entrywise)", strategy=metric_inputs,
      backends=("mp", "float64", "float32"))
def metric_tensor_at_least_eps(ex, backend, dps):
    """Every entry of pyref's A_LM = iSwiGLU(W A + b) + ε is ≥ ε, and > 0 when ε > 0.

    Exact in floating point too (bound 0): iSwiGLU(u) = u·u·σ(u) is a product of
    nonnegative numbers, and rounding preserves sign, so fl(iSwiGLU) ≥ 0 and
    fl(x + ε) ≥ ε for x ≥ 0 by monotone rounding."""
    A, W, b, eps = ex
    A_LM = pyref.plga.metric_tensor(A, W, b, eps=eps, backend=backend, dps=dps)
    with ctx(backend, dps):
        e = pyref.get_backend(backend, dps).const(eps)
        gap = np.asarray(pyref.to_float64(np.minimum(A_LM - e, 0)))
        below = float(-np.min(gap)) if gap.size else 0.0
        pos_fail = 0.0 if eps == 0 else float(not all(x > 0 for x in np.asarray(A_LM).ravel()))
    return Outcome(below + pos_fail, 0.0)


@prop(theorems=["PLGA.iswiglu_pos", "PLGA.iswiglu_nonneg"],
      paper="Def 3.1 (iSwiGLU ≥ 0, > 0 off zero)",
      strategy=lambda: st.lists(UNIT.map(lambda x: x * 30), min_size=1, max_size=32),
      backends=("mp", "float64"))
def iswiglu_positive_off_zero(ex, backend, dps):
    """iSwiGLU(u) = u²σ(u) ≥ 0 everywhere and > 0 for u ≠ 0 (the hypothesis u ≠ 0 is met
    by the nonzero entries; mp at 50 digits has no underflow at |u| ≤ 30)."""
    u = np.array(ex)
    y = pyref.layers.iswiglu(u, backend=backend, dps=dps)
    y = np.asarray(y).ravel()
    neg = sum(1 for v in y if v < 0)
    nonzero = u != 0
    if backend == "float64":
        # float64 underflows u²σ(u) to 0 for tiny |u| (|u|² < 2^-1074) or very negative u
        # (σ(u) < 2^-1074 / u² near u ≈ -745): only positivity where it is representable counts
        nonzero = nonzero & (np.abs(u) > 1e-150) & (u > -700)
    zero_where_pos = sum(1 for v, nz in zip(y, nonzero) if nz and not v > 0)
    return Outcome(float(neg + zero_where_pos), 0.0, met=bool(nonzero.any()))
