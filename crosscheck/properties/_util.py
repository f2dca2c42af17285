"""Backend conversion and justified error bounds shared by the properties.

Tolerances are derived, not tuned:

* ``mp`` runs at 50 significant digits (unit round-off ``u = 10^-49``); a computation of
  ``k`` chained roundings on terms of absolute size ``T`` has error ``≤ k·u·T``. With
  ``k ≤ 10^4`` in every property, :func:`mp_bound` allows ``1e-40·T`` (more than 10^4
  times the worst case, and 10^24 times below float64 round-off, so a silent float64
  fallback would be caught).
* ``float64`` uses the standard a-priori bound for sums of products (Higham, *Accuracy
  and Stability of Numerical Algorithms*, §3.1): ``|fl(Σ x_i y_i) − Σ x_i y_i| ≤ γ_k Σ|x_i y_i|``
  with ``γ_k = k u / (1 − k u)``, ``u = 2^-53``; comparing two evaluations doubles it.
  :func:`fp_bound` returns ``2 γ_k T`` for the ``k`` roundings along the longest chain and
  the absolute-value expression ``T`` (computed by the property, e.g. ``|A||B||C|``).
"""

from __future__ import annotations

import mpmath
import numpy as np

import pyref

U64 = 2.0 ** -53


def gamma(k: int) -> float:
    return k * U64 / (1 - k * U64)


def fp_bound(k: int, T) -> float:
    return 2 * gamma(k) * float(np.max(T)) if np.size(T) else 0.0


def mp_bound(T) -> float:
    return 1e-40 * max(1.0, float(np.max(T)) if np.size(T) else 1.0)


def bound(backend: str, k: int, T) -> float:
    return mp_bound(T) if backend == "mp" else fp_bound(k, T)


def conv(backend: str, dps: int, *arrays):
    """Arrays in the backend's type (mp: exact conversion to mpf at ``dps`` digits)."""
    b = pyref.get_backend(backend, dps)
    with b.context():
        return [b.asarray(a) for a in arrays]


def maxabs(x) -> float:
    """max |x| as a float64 (works on object arrays of mpf)."""
    a = pyref.to_float64(np.abs(np.asarray(x)))
    return float(np.max(a)) if a.size else 0.0


def ctx(backend: str, dps: int):
    return pyref.get_backend(backend, dps).context()


def mpf_is_exact(x, dps: int) -> bool:
    """True when every entry is an mpf (no float64 leaked into an mp computation)."""
    return all(isinstance(v, mpmath.mpf) for v in np.asarray(x).ravel())


def state_dict_with_biases(model, rng, scale=0.5):
    """State dict of ``model`` with every bias (and LayerNorm β) drawn from U(±scale), so that
    bias handling is exercised (pyref's initializer zeros them)."""
    sd = model.state_dict()
    for k in sd:
        if k.endswith(".bias"):
            sd[k] = rng.uniform(-scale, scale, sd[k].shape)
    return sd


def generic_plga_state_dict(cfg, seed):
    """A PLDR state dict with nonzero biases and O(1) operator parameters. pyref's initializer
    gives P ≈ 0 and b = b_a = 0, so every G_LM would be ≈ a·𝟙𝟙ᵀ and nearly input-independent."""
    rng = np.random.default_rng(seed + 1)
    sd = state_dict_with_biases(pyref.PLDRModel.random(cfg, seed=seed), rng)
    H, dk = cfg.num_heads, cfg.d_k
    for l in range(cfg.num_layers):
        m = f"decoder.dec_layers.{l}.mha1.plgatt_layer."
        sd[m + "Wlst"] = rng.uniform(-1, 1, (H, dk, dk))
        sd[m + "blst"] = rng.uniform(-0.5, 0.5, (H, dk, dk))
        sd[m + "pwlst"] = rng.uniform(0, 1, (H, dk, dk))        # P ≥ 0: A_LM ≥ 1e-9 stays moderate
        sd[m + "alst"] = rng.uniform(-1, 1, (H, dk, dk)) / dk
        sd[m + "balst"] = rng.uniform(-1, 1, (H, dk, dk))
    return sd
