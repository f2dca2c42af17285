"""pyref.variants -- reference implementations of four neighbouring mechanisms, restated
from ``VARIANTS.md`` (issue 10), on the same backends as the rest of :mod:`pyref`
(``"float64"``/``"float32"`` numpy, ``"mp"`` mpmath at ``dps`` digits, via
:mod:`pyref.backend`).

Modules (one per mechanism; public functions take plain arrays and ``backend=``/``dps=``
keywords, validate shapes, ranges and finiteness, and raise ``ValueError`` naming the
function, the argument and what was expected):

* :mod:`pyref.variants.kla` -- Kaczmarz Linear Attention: ``kaczmarz_beta``, ``delta_write``,
  ``kla_step``, ``kla_readout``, the token loop ``kla_recurrent`` and the chunkwise form
  ``kla_chunk`` / ``kla_chunkwise`` (unit-lower-triangular solve).
* :mod:`pyref.variants.deltanet` -- Gated DeltaNet (scalar gate) and KDA (diagonal gate):
  ``deltanet_step``, the per-token affine map ``step_map`` (P, R), ``compose_maps``,
  ``apply_map``, ``chunk_map``, ``deltanet_recurrent`` and ``deltanet_chunked`` (any
  contiguous partition).
* :mod:`pyref.variants.mhc` -- mHC: Sinkhorn steps ``sinkhorn_row_step`` /
  ``sinkhorn_col_step``, ``sinkhorn_iterate`` / ``sinkhorn`` (n rounds, row- or
  column-first), ``doubly_stochastic_defect``, and the layer transfer ``mhc_transfer``
  ``X ↦ BX + C F(AX)``.
* :mod:`pyref.variants.attnres` -- Attention Residuals: ``rms_norm``, ``depth_scores``,
  ``depth_attention``, the two-phase form ``depth_attention_partial`` /
  ``merge_partials`` / ``two_phase_depth_attention`` (log-sum-exp statistics, exact merge),
  Delta AttnRes ``delta_attnres_input`` / ``gated_attnres_input`` and
  ``block_differences``.
"""
from . import attnres, deltanet, kla, mhc

__all__ = ["attnres", "deltanet", "kla", "mhc"]
