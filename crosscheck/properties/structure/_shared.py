"""Helpers shared by the property modules of :mod:`crosscheck.properties.structure` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

import pyref

from .._arith import bound


# =============================================================================== helpers
def _ub(backend, k, T, amp=1e12) -> float:
    """:func:`.._arith.bound` plus, in float64, an allowance for gradual underflow (which the
    γ-model excludes; hypothesis draws subnormal entries): every rounding in the subnormal range
    adds ≤ 2⁻¹⁰⁷⁵ absolute, at most k² roundings feed one compared value, and each such error is
    multiplied downstream by at most ``amp`` (default 1e12 ≥ (10³)⁴, the fourth power of the
    largest input magnitude of these strategies, which covers every downstream product used here).
    The allowance is ≤ 1e-300·k², so it matters only when the true scale T is itself near the
    underflow threshold."""
    b = bound(backend, k, T)
    return b if backend == "mp" else b + k * k * amp * 2.0 ** -1074


def _mp(x, dps=80):
    """Exact conversion to an object array of mpf (float64 exactly; mpf entries kept)."""
    return pyref.to_mp(np.asarray(x), dps)


def _phi_units(rng, d, h, n_units, n_blocks, scale=1.0):
    """Random Φ_res units in pyref's format (W1, W2 [h, d], W3 [d, h], biases, LN γ, β)."""
    units = []
    for _ in range(n_units):
        blocks = [(rng.uniform(-1, 1, (h, d)) * scale, rng.uniform(-1, 1, h) * scale,
                   rng.uniform(-1, 1, (h, d)) * scale, rng.uniform(-1, 1, h) * scale,
                   rng.uniform(-1, 1, (d, h)) * scale,
                   rng.uniform(-1, 1, d) * scale) for _ in range(n_blocks)]
        units.append({"blocks": blocks, "gamma": rng.uniform(0.5, 1.5, d),
                      "beta": rng.uniform(-1, 1, d)})
    return units


def _phi_res_mat(A, gA, bA, units, eps, backend, dps):
    """Lean ``phiResMat``: the initial LayerNorm LN_A (γ_A, β_A), then pyref's Φ_res units
    (pyref applies LN_A in its attention layer, ``mha1.layernorm1``, before ``_phi_res``)."""
    A0 = pyref.layers.layer_norm(A, gA, bA, eps=eps, backend=backend, dps=dps)
    return pyref.plga.residual_metric_learner(A0, units, eps=eps, backend=backend, dps=dps)


# ==================================================== 5. power law A_P = A_LM^{⊙P} (Prop 3.7)
MODEST = st.sampled_from([1.0, 0.5, 2.0, 1e-3, 10.0])
