"""Checkpoint files: safetensors / npz reading and writing (never pickle; atomic writes).

The key names, shapes and validation of the arrays are :mod:`pyref.state_dict`; this
module only moves named arrays (plus the config as JSON metadata) to and from files.
Constant-operator models store their operators as extra entries
``__pyref_constant_G__.{l}``.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np

from .config import PLDRConfig

CONFIG_KEY = "__pyref_config__"          # npz entry / safetensors metadata key
CONSTANT_G_PREFIX = "__pyref_constant_G__."  # extra entries saved by constant-operator models


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
