"""The checkpoint format: state-dict key names and shapes (PyTorch v510
``PLDR_Model.state_dict()``), validation, and parameter counts.  Pure: no file IO
(:mod:`pyref.checkpoint` reads and writes files).

Linear weights are ``[out, in]``; only parameters appear (RoPE tables are not
persistent).  Per layer there are 25 tensors outside Φ_res (mha1: 4 Linear × 2, 5
operator tensors, LayerNorm on A × 2; ffn 3 Linear × 2; layernorm1/2 × 2) and
``num_glu_blocks·6 + 2`` per residual unit, plus 5 top-level tensors:
``5 + L·(25 + N_res·(6·n_blocks + 2))`` in total (109,689,362 parameters for the
paper configuration).

The constant-operator ablation (v510G) and the SDPA model have the same keys minus
``mha1.reslayerAs.*``, ``mha1.plgatt_layer.*`` and ``mha1.layernorm1.*``.
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .config import PLDRConfig

VARIANTS = ("plga", "constant", "sdpa")

# ---------------------------------------------------------------------------- key names
EMBEDDING = "decoder.embedding.weight"
LN_EMB = "decoder.layernorm1."
HEAD = "final_layer."
GLU_LEAVES = ("gluw1.weight", "gluw1.bias", "gluw2.weight", "gluw2.bias", "gluw3.weight",
              "gluw3.bias")
PROJECTIONS = ("wq", "wk", "wv")
OPERATOR_LEAVES = ("Wlst", "blst", "pwlst", "alst", "balst")   # W, b, P, a, b_a
#: the operator leaves used elementwise (b, P, b_a); every other parameter with ≥ 2 axes is a
#: matrix of products or the embedding table (what the arb backend keeps as exact floats)
ELEMENTWISE_LEAVES = ("blst", "pwlst", "balst")


def layer_prefix(li: int) -> str:
    return f"decoder.dec_layers.{li}."


def mha_prefix(li: int) -> str:
    return layer_prefix(li) + "mha1."


def res_unit_prefix(mha: str, u: int) -> str:
    return f"{mha}reslayerAs.{u}."


def glu_block_prefix(unit: str, g: int) -> str:
    return f"{unit}denseAs.{g}."


# ---------------------------------------------------------------------------- shapes
def _add_glu(s, prefix, d_in, hidden, d_out):
    for leaf, shp in zip(GLU_LEAVES, ((hidden, d_in), (hidden,), (hidden, d_in), (hidden,),
                                      (d_out, hidden), (d_out,))):
        s[prefix + leaf] = shp


def _add_layer_norm(s, prefix, n):
    s[prefix + "weight"] = (n,)
    s[prefix + "bias"] = (n,)


def _add_linear(s, prefix, n_in, n_out):
    s[prefix + "weight"] = (n_out, n_in)
    s[prefix + "bias"] = (n_out,)


def _add_mha(s, c: PLDRConfig, li, learned):
    m, d, H, dk = mha_prefix(li), c.d_model, c.num_heads, c.d_k
    for lin in PROJECTIONS:
        _add_linear(s, m + lin + ".", d, d)
    if learned:
        for t in OPERATOR_LEAVES:
            s[m + "plgatt_layer." + t] = (H, dk, dk)
    _add_linear(s, m + "dense.", d, d)
    if learned:
        for u in range(c.num_res_units):
            r = res_unit_prefix(m, u)
            for g in range(c.num_glu_blocks):
                _add_glu(s, glu_block_prefix(r, g), dk, c.a_dff, dk)
            _add_layer_norm(s, r + "layernormA.", dk)
        _add_layer_norm(s, m + "layernorm1.", dk)


def state_dict_shapes(config: PLDRConfig, variant: str = "plga") -> "OrderedDict[str, tuple]":
    """Ordered mapping key -> shape, in the order torch registers the parameters."""
    if variant not in VARIANTS:
        raise ValueError(f"state_dict_shapes: variant must be one of {VARIANTS}, got {variant!r}")
    c = config
    s: "OrderedDict[str, tuple]" = OrderedDict()
    s[EMBEDDING] = (c.vocab_size, c.d_model)
    for li in range(c.num_layers):
        _add_mha(s, c, li, learned=variant == "plga")
        _add_glu(s, layer_prefix(li) + "ffn.", c.d_model, c.dff, c.d_model)
        for ln in ("layernorm1", "layernorm2"):
            _add_layer_norm(s, f"{layer_prefix(li)}{ln}.", c.d_model)
    _add_layer_norm(s, LN_EMB, c.d_model)
    _add_linear(s, HEAD, c.d_model, c.vocab_size)
    return s


def state_dict_keys(config: PLDRConfig, variant: str = "plga") -> list:
    """The state-dict key names, in torch registration order."""
    return list(state_dict_shapes(config, variant))


def num_keys(config: PLDRConfig, variant: str = "plga") -> int:
    """The number of state-dict entries in closed form (no shapes built: a config with 10⁹
    layers is refused by comparing this with the file before anything is allocated)."""
    if variant not in VARIANTS:
        raise ValueError(f"num_keys: variant must be one of {VARIANTS}, got {variant!r}")
    per_layer = 18   # q, k, v, dense (2 each), FFN SwiGLU (6), layernorm1/2 (2 each)
    if variant == "plga":
        per_layer += 5 + 2 + config.num_res_units * (6 * config.num_glu_blocks + 2)
    return 5 + config.num_layers * per_layer


def num_parameters(config: PLDRConfig, variant: str = "plga") -> int:
    """Total parameter count of the state dict (109,689,362 for ``PLDRConfig.paper()``)."""
    return int(sum(int(np.prod(s)) for s in state_dict_shapes(config, variant).values()))


# ---------------------------------------------------------------------------- validation
class StateDictError(KeyError, ValueError):
    """Missing or unexpected state-dict keys, or a config the keys cannot belong to. A
    ``ValueError`` like every other load error (and a ``KeyError``, as before); the message
    prints as written (a plain ``KeyError`` would quote it)."""

    def __str__(self):
        return str(self.args[0]) if self.args else ""


def _to_numpy(name, v):
    """Accept numpy arrays, array-likes and (duck-typed) torch tensors."""
    if hasattr(v, "detach") and hasattr(v, "cpu"):  # torch.Tensor, without importing torch
        t = v.detach().cpu()
        if "bfloat16" in str(getattr(t, "dtype", "")):
            t = t.float()  # bfloat16 -> float32 is exact
        v = t.numpy()
    try:
        return np.asarray(v)
    except Exception as e:  # pragma: no cover - exotic inputs
        raise ValueError(f"state dict entry {name!r}: cannot convert to an array ({e})") from None


def _validated_entry(k, v, shp):
    a = _to_numpy(k, v)
    if a.dtype.kind != "f":
        raise ValueError(f"state dict entry {k!r}: expected a floating dtype, got {a.dtype}")
    if tuple(a.shape) != tuple(shp):
        raise ValueError(f"state dict entry {k!r}: expected shape {tuple(shp)}, got "
                         f"{tuple(a.shape)}")
    if a.dtype == np.float64 and not a.flags.writeable and a.base is None:
        pass  # already one of our validated read-only copies: no second copy
    else:
        a = np.array(a, dtype=np.float64, copy=True)  # exact widening of float16/32
    bad = ~np.isfinite(a)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"state dict entry {k!r}: {int(bad.sum())} non-finite value(s), first at "
                         f"index {idx} = {a[idx]}")
    a.setflags(write=False)
    return a


def validate_state_dict(arrays, config: PLDRConfig, variant: str = "plga", strict: bool = True):
    """Check keys, shapes, dtypes and finiteness; return an ordered dict of read-only
    float64 copies.

    Missing or (with ``strict``) extra keys raise :class:`StateDictError` (a ``KeyError`` and a
    ``ValueError``); wrong shape, non-float
    dtype or non-finite values raise ``ValueError`` naming the key.
    """
    if not hasattr(arrays, "keys") or not hasattr(arrays, "__getitem__"):
        raise ValueError("state dict: expected a mapping name -> array, got "
                         f"{type(arrays).__name__}")
    keys = set(arrays.keys())
    n = num_keys(config, variant)
    if n > 2 * len(keys) + 1000:   # not a few missing keys but a config the file cannot be:
        # refused before its shapes are built (a 10⁹-layer config would exhaust memory there)
        raise StateDictError(f"state dict ({variant}): the config (num_layers={config.num_layers}, "
                       f"num_res_units={config.num_res_units}, num_glu_blocks="
                       f"{config.num_glu_blocks}) has {n} keys, the state dict {len(keys)}")
    shapes = state_dict_shapes(config, variant)
    missing = [k for k in shapes if k not in keys]
    extra = sorted(k for k in keys if k not in shapes)
    if missing:
        raise StateDictError(f"state dict ({variant}): {len(missing)} missing key(s), e.g. "
                             f"{missing[:5]}")
    if extra and strict:
        raise StateDictError(f"state dict ({variant}): {len(extra)} unexpected key(s), e.g. "
                             f"{extra[:5]}")
    header = getattr(arrays, "header", None)   # a checkpoint file: check before reading
    if header is not None:
        for k, shp in shapes.items():
            got, dtype = header(k)
            if tuple(got) != tuple(shp) or not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
                raise ValueError(f"state dict entry {k!r}: expected shape {tuple(shp)} "
                                 f"(floating), the file declares {tuple(got)} ({dtype})")
    return OrderedDict((k, _validated_entry(k, arrays[k], shp)) for k, shp in shapes.items())
