"""The model's parameters as small typed records, built from a state dict.

The state dict (v510 key names, :mod:`pyref.state_dict`) stays the checkpoint format;
the forward pass reads these records instead (``p.wq``, ``unit.blocks[g].W1``, …).
A record holds arrays of one backend (float64/float32 numpy or object arrays of mpf/arb;
for arb, matrices are exact float64 :class:`~pyref.arb.ExactWeight` arrays); the builders take
a mapping key -> array already converted to that backend (:func:`backend_state_dict`).

    ModelParams     embedding, ln_emb, layers, head_W, head_b
    LayerParams     attention, ln1, ffn, ln2                      (decoder.dec_layers.{l})
    AttentionParams wq, bq, wk, bk, wv, bv, wo, bo, operator      (mha1; wo = dense)
    LearnerParams   ln_A, units, weights                          (the PLGA metric learner)
    ResUnitParams   blocks, gamma, beta                           (mha1.reslayerAs.{u})
    OperatorParams  W, b, P, a, b_a                               (mha1.plgatt_layer)
    GLUParams       W1, b1, W2, b2, W3, b3                        (SwiGLU gluw1/2/3)
    LayerNormParams gamma, beta
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from . import arb_matmul
from .arb import ExactWeight
from .state_dict import (
    ELEMENTWISE_LEAVES,
    EMBEDDING,
    GLU_LEAVES,
    HEAD,
    LN_EMB,
    OPERATOR_LEAVES,
    glu_block_prefix,
    layer_prefix,
    mha_prefix,
    res_unit_prefix,
)

Array = Any  # a backend array


@dataclass(frozen=True)
class LayerNormParams:
    gamma: Array
    beta: Array


@dataclass(frozen=True)
class GLUParams:
    """SwiGLU block (silu(x W1ᵀ + b1) ⊙ (x W2ᵀ + b2)) W3ᵀ + b3 (gluw1 gate, gluw2 value)."""

    W1: Array
    b1: Array
    W2: Array
    b2: Array
    W3: Array
    b3: Array


@dataclass(frozen=True)
class ResUnitParams:
    """One residual unit of Φ_res: SwiGLU ``blocks`` then LayerNorm (``gamma``, ``beta``)."""

    blocks: tuple
    gamma: Array
    beta: Array


@dataclass(frozen=True)
class OperatorParams:
    """The per-head operator weights [H, d_k, d_k]: A_LM = iSwiGLU(W A + b) + ε,
    A_P = A_LM^{⊙P}, G_LM = a·A_P + b_a (Wlst, blst, pwlst, alst, balst)."""

    W: Array
    b: Array
    P: Array
    a: Array
    b_a: Array


@dataclass(frozen=True)
class LearnerParams:
    """The PLGA metric learner: LayerNorm on the density (``ln_A``, mha1.layernorm1),
    the residual units of Φ_res, and the operator weights."""

    ln_A: LayerNormParams
    units: tuple
    weights: OperatorParams


@dataclass(frozen=True)
class AttentionParams:
    """Projections of one attention sublayer and its operator source (one of
    :class:`pyref.attention.PLGAOperator`, ``ConstantOperator``, ``IdentityOperator``)."""

    wq: Array
    bq: Array
    wk: Array
    bk: Array
    wv: Array
    bv: Array
    wo: Array
    bo: Array
    operator: Any


@dataclass(frozen=True)
class LayerParams:
    attention: AttentionParams
    ln1: LayerNormParams
    ffn: GLUParams
    ln2: LayerNormParams


@dataclass(frozen=True)
class ModelParams:
    embedding: Array
    ln_emb: LayerNormParams
    layers: tuple
    head_W: Array
    head_b: Array


# ------------------------------------------------------------------------------ builders
def backend_state_dict(b, params) -> dict:
    """The state dict ``params`` (key -> float64 array) converted to backend ``b`` (call inside
    ``b.context()``).  arb: every parameter with ≥ 2 axes except the elementwise operator
    leaves (b, P, b_a) stays an exact float64 :class:`~pyref.arb.ExactWeight` (no copy) whose
    product form is converted here, once, as the products of a short sequence use it
    (:func:`pyref.arb.matmul`): the Φ_res weights as the ``arb_mat`` of Wᵀ (x·Wᵀ over the
    B·H·d_k rows of A); the other linear weights as the integer digits of Wᵀ
    (:mod:`pyref.arb_matmul`: a few token rows times Wᵀ), or, where that path is not
    ``arb_matmul.worthwhile`` at this precision, as the ``arb_mat`` of W (fewer than
    ``THIN_ROWS`` token rows are computed as W·xᵀ); operator W and a as they are; the
    embedding table is only indexed; another form is converted on first use and cached.
    Everything else becomes object arrays of arb."""
    if not b.is_arb:
        return {k: b.asarray(v) for k, v in params.items()}
    sd = {}
    for k, v in params.items():
        if np.ndim(v) < 2 or k.rsplit(".", 1)[-1] in ELEMENTWISE_LEAVES:
            sd[k] = b.asarray(v)
            continue
        sd[k] = w = ExactWeight(v)
        if ".reslayerAs." in k:
            w.T.slice_mats()
        elif k != EMBEDDING and w.ndim == 2 and arb_matmul.worthwhile(1, *w.T.shape):
            w.T.digits()
        elif k != EMBEDDING:
            w.slice_mats()
    return sd


def layer_norm_params(sd, prefix) -> LayerNormParams:
    return LayerNormParams(sd[prefix + "weight"], sd[prefix + "bias"])


def glu_params(sd, prefix) -> GLUParams:
    return GLUParams(*(sd[prefix + leaf] for leaf in GLU_LEAVES))


def learner_params(sd, prefix, config) -> LearnerParams:
    """The metric learner below ``prefix`` (e.g. ``"decoder.dec_layers.0.mha1."``)."""
    units = []
    for u in range(config.num_res_units):
        r = res_unit_prefix(prefix, u)
        blocks = tuple(glu_params(sd, glu_block_prefix(r, g)) for g in range(config.num_glu_blocks))
        units.append(ResUnitParams(blocks, sd[r + "layernormA.weight"], sd[r + "layernormA.bias"]))
    weights = OperatorParams(*(sd[prefix + "plgatt_layer." + t] for t in OPERATOR_LEAVES))
    return LearnerParams(layer_norm_params(sd, prefix + "layernorm1."), tuple(units), weights)


def attention_params(sd, prefix, operator) -> AttentionParams:
    """The projections below ``prefix`` (``wq.weight`` … ``dense.bias``) with ``operator``."""
    return AttentionParams(sd[prefix + "wq.weight"], sd[prefix + "wq.bias"],
                           sd[prefix + "wk.weight"], sd[prefix + "wk.bias"],
                           sd[prefix + "wv.weight"], sd[prefix + "wv.bias"],
                           sd[prefix + "dense.weight"], sd[prefix + "dense.bias"], operator)


def model_params(sd, config, operators) -> ModelParams:
    """The whole model from a full state dict, with ``operators[l]`` for layer l."""
    layers = []
    for li in range(config.num_layers):
        pre = layer_prefix(li)
        layers.append(LayerParams(attention_params(sd, mha_prefix(li), operators[li]),
                                  layer_norm_params(sd, pre + "layernorm1."),
                                  glu_params(sd, pre + "ffn."),
                                  layer_norm_params(sd, pre + "layernorm2.")))
    return ModelParams(sd[EMBEDDING], layer_norm_params(sd, LN_EMB), tuple(layers),
                       sd[HEAD + "weight"], sd[HEAD + "bias"])
