"""Shared model fixtures of the properties (state dicts with generic parameters). Shared
strategies live in :mod:`crosscheck.strategies`, shared arithmetic in :mod:`._arith`."""

from __future__ import annotations

import numpy as np

import pyref


def state_dict_with_biases(model, rng, scale=0.5):
    """State dict of ``model`` with every bias (and LayerNorm β) drawn from U(±scale), so that
    bias handling is exercised (pyref's initializer zeros them)."""
    sd = model.state_dict()
    for k in sd:
        if k.endswith(".bias"):
            sd[k] = rng.uniform(-scale, scale, sd[k].shape)
    return sd


def with_generic_gains(sd, rng):
    """Every LayerNorm γ drawn from U(0.5, 1.5) (pyref's initializer sets γ = 1, which would
    hide a LayerNorm applying γ to the wrong tensor or not at all)."""
    for k in sd:
        if "layernorm" in k and k.endswith(".weight"):
            sd[k] = rng.uniform(0.5, 1.5, sd[k].shape)
    return sd


def generic_state_dict(model, seed):
    """A state dict of ``model`` (any variant) with nonzero biases and non-unit LayerNorm
    gains: every parameter generic."""
    rng = np.random.default_rng(seed + 7)
    return with_generic_gains(state_dict_with_biases(model, rng), rng)


def generic_plga_state_dict(cfg, seed):
    """A PLDR state dict with nonzero biases, non-unit LayerNorm gains and O(1) operator
    parameters. pyref's initializer gives P ≈ 0 and b = b_a = 0, so every G_LM would be
    ≈ a·𝟙𝟙ᵀ and nearly input-independent; W, P, a, b, b_a drawn here have no zero, identity or
    commuting structure (with probability 1)."""
    rng = np.random.default_rng(seed + 1)
    sd = state_dict_with_biases(pyref.PLDRModel.random(cfg, seed=seed), rng)
    H, dk = cfg.num_heads, cfg.d_k
    for li in range(cfg.num_layers):
        m = f"decoder.dec_layers.{li}.mha1.plgatt_layer."
        sd[m + "Wlst"] = rng.uniform(-1, 1, (H, dk, dk))
        sd[m + "blst"] = rng.uniform(-0.5, 0.5, (H, dk, dk))
        sd[m + "pwlst"] = rng.uniform(0, 1, (H, dk, dk))        # P ≥ 0: A_LM ≥ 1e-9 stays moderate
        sd[m + "alst"] = rng.uniform(-1, 1, (H, dk, dk)) / dk
        sd[m + "balst"] = rng.uniform(-1, 1, (H, dk, dk))
    return with_generic_gains(sd, rng)
