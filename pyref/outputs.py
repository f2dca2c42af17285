"""The result records of :class:`pyref.model.PLDRModel`: :class:`ForwardOutput` (one forward
pass) and :class:`GenerateOutput` (greedy decoding)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .arb import mid_rad
from .backend import Backend


@dataclass
class ForwardOutput:
    """Result of :meth:`PLDRModel.forward`.

    ``logits`` [B, S, V]; ``deductive``: list over layers of dicts with ``"A"``,
    ``"A_LM"``, ``"A_P"``, ``"G_LM"`` ([B, H, d_k, d_k], or None where not computed: A*
    in SDPA/constant models, ``A_P`` when a G-cache supplied the operator) and ``"E"``
    ([B, H, S, T], the scaled scores before the mask); ``kvcache``: list over layers of
    [K̂ [B,T,H,d_k] (rotated), V [B,T,H,d_k], A [B,H,d_k,d_k]] (no A for SDPA/constant);
    ``gcache``: list over layers of [A_LM, G_LM] (None for SDPA/constant models);
    ``hidden``: last decoder output [B, S, d].  Arrays are backend arrays (object arrays
    of mpf for ``"mp"``, of arb balls enclosing the exact values for ``"arb"``: midpoints by
    ``to_float64``, radii by :attr:`logits_radius` or :func:`pyref.arb.mid_rad`).
    """

    logits: np.ndarray
    deductive: list
    kvcache: list
    gcache: list | None
    hidden: np.ndarray
    backend: Backend = field(default_factory=Backend)

    @property
    def logits_radius(self):
        """arb: float64 upper bounds [B, S, V] on |exact logit − ``to_float64(logits)``|
        (:func:`pyref.arb.mid_rad`, computed on each access); None for the other backends."""
        return mid_rad(self.logits)[1] if self.backend.is_arb else None


@dataclass
class GenerateOutput:
    """Result of :meth:`PLDRModel.generate`: ``tokens`` [B, S0 + n] (prompt + generated),
    ``new_tokens`` [B, n], ``step_logits`` (list of n arrays [B, V]: the logits each new
    token was chosen from), ``step_G`` (list over steps of per-layer G_LM, only if
    ``return_operators``)."""

    tokens: np.ndarray
    new_tokens: np.ndarray
    step_logits: list
    step_G: list | None = None
