"""State-dict key names/shapes (PyTorch v510 ``PLDR_Model.state_dict()``), validation,
and safetensors / npz IO (never pickle; atomic writes).

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

import os
import tempfile
from collections import OrderedDict

import numpy as np

from .config import PLDRConfig

CONFIG_KEY = "__pyref_config__"          # npz entry / safetensors metadata key
CONSTANT_G_PREFIX = "__pyref_constant_G__."  # extra entries saved by constant-operator models

VARIANTS = ("plga", "constant", "sdpa")


def state_dict_shapes(config: PLDRConfig, variant: str = "plga") -> "OrderedDict[str, tuple]":
    """Ordered mapping key -> shape, in the order torch registers the parameters."""
    if variant not in VARIANTS:
        raise ValueError(f"state_dict_shapes: variant must be one of {VARIANTS}, got {variant!r}")
    c = config
    d, V, H, dk, F, Fa = c.d_model, c.vocab_size, c.num_heads, c.d_k, c.dff, c.a_dff
    s: "OrderedDict[str, tuple]" = OrderedDict()
    s["decoder.embedding.weight"] = (V, d)
    for l in range(c.num_layers):
        m = f"decoder.dec_layers.{l}.mha1."
        for lin in ("wq", "wk", "wv"):
            s[m + lin + ".weight"] = (d, d)
            s[m + lin + ".bias"] = (d,)
        if variant == "plga":
            for t in ("Wlst", "blst", "pwlst", "alst", "balst"):
                s[m + "plgatt_layer." + t] = (H, dk, dk)
        s[m + "dense.weight"] = (d, d)
        s[m + "dense.bias"] = (d,)
        if variant == "plga":
            for u in range(c.num_res_units):
                r = m + f"reslayerAs.{u}."
                for g in range(c.num_glu_blocks):
                    q = r + f"denseAs.{g}."
                    s[q + "gluw1.weight"] = (Fa, dk)
                    s[q + "gluw1.bias"] = (Fa,)
                    s[q + "gluw2.weight"] = (Fa, dk)
                    s[q + "gluw2.bias"] = (Fa,)
                    s[q + "gluw3.weight"] = (dk, Fa)
                    s[q + "gluw3.bias"] = (dk,)
                s[r + "layernormA.weight"] = (dk,)
                s[r + "layernormA.bias"] = (dk,)
            s[m + "layernorm1.weight"] = (dk,)
            s[m + "layernorm1.bias"] = (dk,)
        f = f"decoder.dec_layers.{l}.ffn."
        s[f + "gluw1.weight"] = (F, d)
        s[f + "gluw1.bias"] = (F,)
        s[f + "gluw2.weight"] = (F, d)
        s[f + "gluw2.bias"] = (F,)
        s[f + "gluw3.weight"] = (d, F)
        s[f + "gluw3.bias"] = (d,)
        for ln in ("layernorm1", "layernorm2"):
            s[f"decoder.dec_layers.{l}.{ln}.weight"] = (d,)
            s[f"decoder.dec_layers.{l}.{ln}.bias"] = (d,)
    s["decoder.layernorm1.weight"] = (d,)
    s["decoder.layernorm1.bias"] = (d,)
    s["final_layer.weight"] = (V, d)
    s["final_layer.bias"] = (V,)
    return s


def state_dict_keys(config: PLDRConfig, variant: str = "plga") -> list:
    """The state-dict key names, in torch registration order."""
    return list(state_dict_shapes(config, variant))


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


def validate_state_dict(arrays, config: PLDRConfig, variant: str = "plga", strict: bool = True):
    """Check keys, shapes, dtypes and finiteness; return an ordered dict of read-only
    float64 copies.

    Missing or (with ``strict``) extra keys raise ``KeyError``; wrong shape, non-float
    dtype or non-finite values raise ``ValueError`` naming the key.
    """
    if not hasattr(arrays, "keys") or not hasattr(arrays, "__getitem__"):
        raise ValueError(f"state dict: expected a mapping name -> array, got {type(arrays).__name__}")
    shapes = state_dict_shapes(config, variant)
    keys = set(arrays.keys())
    missing = [k for k in shapes if k not in keys]
    extra = sorted(k for k in keys if k not in shapes)
    if missing:
        raise KeyError(f"state dict ({variant}): {len(missing)} missing key(s), e.g. {missing[:5]}")
    if extra and strict:
        raise KeyError(f"state dict ({variant}): {len(extra)} unexpected key(s), e.g. {extra[:5]}")
    out = OrderedDict()
    for k, shp in shapes.items():
        a = _to_numpy(k, arrays[k])
        if a.dtype.kind != "f":
            raise ValueError(f"state dict entry {k!r}: expected a floating dtype, got {a.dtype}")
        if tuple(a.shape) != tuple(shp):
            raise ValueError(f"state dict entry {k!r}: expected shape {tuple(shp)}, got {tuple(a.shape)}")
        if a.dtype == np.float64 and not a.flags.writeable and a.base is None:
            pass  # already one of our validated read-only copies: no second copy
        else:
            a = np.array(a, dtype=np.float64, copy=True)  # exact widening of float16/32
        bad = ~np.isfinite(a)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"state dict entry {k!r}: {int(bad.sum())} non-finite value(s), first at index {idx} = {a[idx]}")
        a.setflags(write=False)
        out[k] = a
    return out


# ------------------------------------------------------------------------------- IO
def _atomic_write(path, writer, suffix):
    """Write via ``writer(tmp_path)`` to a temp file in the same directory, then
    ``os.replace`` it onto ``path`` (readers never see a partial file)."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".pyref-", suffix=suffix, dir=d)
    os.close(fd)
    try:
        writer(tmp)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _fmt(path):
    p = os.fspath(path)
    if p.endswith(".safetensors"):
        return "safetensors"
    if p.endswith(".npz"):
        return "npz"
    raise ValueError(f"checkpoint path {p!r}: expected a '.safetensors' or '.npz' suffix")


def save_arrays(path, arrays: dict, config: PLDRConfig | None = None, dtype=np.float64) -> None:
    """Save name -> array (as ``dtype``) to ``.safetensors`` or ``.npz`` atomically,
    storing the config as JSON (safetensors metadata / an npz unicode entry)."""
    fmt = _fmt(path)
    arrs = {k: np.ascontiguousarray(np.asarray(v, dtype=dtype)) for k, v in arrays.items()}
    cfg = config.to_json() if config is not None else None
    if fmt == "safetensors":
        from safetensors.numpy import save_file

        meta = {"format": "pt"}
        if cfg is not None:
            meta[CONFIG_KEY] = cfg
        _atomic_write(path, lambda tmp: save_file(arrs, tmp, metadata=meta), ".safetensors")
    else:
        if CONFIG_KEY in arrs:
            raise ValueError(f"save: {CONFIG_KEY!r} is a reserved name")
        extra = {CONFIG_KEY: np.array(cfg)} if cfg is not None else {}

        def w(tmp):
            with open(tmp, "wb") as f:
                np.savez(f, **arrs, **extra)

        _atomic_write(path, w, ".npz")


def load_arrays(path):
    """Load ``(arrays, config_or_None)`` from ``.safetensors`` or ``.npz`` (no pickle)."""
    fmt = _fmt(path)
    if not os.path.exists(path):
        raise ValueError(f"checkpoint {os.fspath(path)!r} does not exist")
    cfg = None
    if fmt == "safetensors":
        from safetensors import safe_open

        arrays = {}
        with safe_open(os.fspath(path), framework="numpy") as f:
            meta = f.metadata() or {}
            for k in f.keys():
                arrays[k] = f.get_tensor(k)
        if CONFIG_KEY in meta:
            cfg = PLDRConfig.from_json(meta[CONFIG_KEY])
    else:
        arrays = {}
        with np.load(os.fspath(path), allow_pickle=False) as z:
            for k in z.files:
                if k == CONFIG_KEY:
                    cfg = PLDRConfig.from_json(str(z[k][()]))
                else:
                    arrays[k] = z[k]
    return arrays, cfg
