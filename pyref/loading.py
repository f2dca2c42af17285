"""One door for every way PLDR-LLM weights are distributed: :func:`open_checkpoint`.

======================================  =======================  =================================
path                                    what it is               read by
======================================  =======================  =================================
``*.safetensors``, ``*.npz``            pyref / any v510 state   :mod:`pyref.checkpoint`
                                        dict (f64/f32/f16/bf16)
``*.pth``, ``*.pt``, ``*.bin``          ``torch.save`` (zip or   :mod:`pyref.torchfile` (no torch,
                                        legacy), the authors'    no code execution)
                                        wrapper dict
a folder with ``config.json``           the Hugging Face port    :mod:`pyref.hf`
======================================  =======================  =================================

The configuration comes from :func:`pyref.hparams.resolve_config`: every size from the
tensor shapes, the rest from ``config`` (a :class:`~pyref.PLDRConfig`, a dict, ``"paper"``, a
JSON file or the authors' hyperparameter ``.py`` file) or from the config stored with the
weights (pyref files, the folder's ``config.json``); a disagreement is an error naming both
values. :meth:`pyref.PLDRModel.load` builds the model from the result.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field

from . import hf, torchfile
from .checkpoint import CONSTANT_G_PREFIX, CheckpointError, load_arrays
from .config import PLDRConfig
from .hparams import resolve_config
from .semantics import V510, Semantics

TORCH_SUFFIXES = (".pth", ".pt", ".bin")
ARRAY_SUFFIXES = (".safetensors", ".npz")


@dataclass
class OpenedCheckpoint:
    """What :func:`open_checkpoint` found.

    ``arrays``: the state dict under the v510 key names (read lazily; headers checked before
    data); ``config``; ``variant``: ``"plga"`` (learned operator) or ``"constant"`` (a file
    that stores its constant operators: ``G`` is then the list of per-layer [H, d_k, d_k]
    arrays); ``semantics``: the forward semantics of the format (the HF port's for a
    folder); ``info``: JSON-ready facts for reports (format, stored dtypes, stripped
    prefixes, wrapper keys, config source and notes)."""

    path: str
    arrays: Mapping
    config: PLDRConfig
    variant: str
    G: list | None = None
    semantics: Semantics = V510
    info: dict = field(default_factory=dict)


def checkpoint_format(path) -> str:
    """``"hf-folder"``, ``"torch"``, ``"safetensors"`` or ``"npz"`` by the path alone; a
    :class:`~pyref.checkpoint.CheckpointError` for anything else."""
    p = os.fspath(path)
    if os.path.isdir(p):
        if not os.path.isfile(os.path.join(p, "config.json")):
            raise CheckpointError(f"checkpoint {p!r} is a directory without config.json (a "
                                  "Hugging Face model folder has one)")
        return "hf-folder"
    low = p.lower()
    if low.endswith(TORCH_SUFFIXES):
        return "torch"
    for s in ARRAY_SUFFIXES:
        if low.endswith(s):
            return s[1:]
    raise CheckpointError(f"checkpoint {p!r}: unknown format; expected a .safetensors, .npz, "
                          ".pth/.pt/.bin (torch.save) file or a Hugging Face model folder")


def _dtype_summary(stored: dict) -> dict:
    """Stored dtype -> number of entries (e.g. {"BF16": 301})."""
    out: dict = {}
    for v in stored.values():
        out[str(v)] = out.get(str(v), 0) + 1
    return dict(sorted(out.items()))


def _constant_G(arrays) -> tuple[Mapping, list | None]:
    """Split pyref's stored constant operators (``__pyref_constant_G__.<l>``) off the state
    dict: (state dict, list of G by layer, or None)."""
    gkeys = sorted((k for k in arrays if k.startswith(CONSTANT_G_PREFIX)),
                   key=lambda k: k[len(CONSTANT_G_PREFIX):].zfill(20))
    if not gkeys:
        return arrays, None
    rest = [k for k in arrays if not k.startswith(CONSTANT_G_PREFIX)]
    sel = arrays.select(rest) if hasattr(arrays, "select") else {k: arrays[k] for k in rest}
    return sel, [arrays[k] for k in gkeys]


def _open_file(p: str, fmt: str, config) -> OpenedCheckpoint:
    if fmt == "torch":
        arrays, tinfo = torchfile.read_state_dict(p)
        embedded = None
        info = {"format": tinfo.get("format", "torch"), **{k: v for k, v in tinfo.items()
                                                          if k != "format"}}
    else:
        arrays, embedded = load_arrays(p)
        info = {"format": fmt}
    info["stored_dtypes"] = _dtype_summary(getattr(arrays, "stored_dtypes", {}) or {})
    cfg, source, notes = resolve_config(arrays, config, embedded)   # G entries give H
    arrays, G = _constant_G(arrays)
    info.update(config_source=source, notes=list(notes))
    variant = "constant" if G is not None else "plga"
    return OpenedCheckpoint(p, arrays, cfg, variant, G, V510, info)


def open_checkpoint(path, config=None) -> OpenedCheckpoint:
    """Open any supported checkpoint (table in the module doc) and resolve its config.

    Raises :class:`~pyref.checkpoint.CheckpointError` for unreadable files (naming file and
    key), :class:`~pyref.torchfile.UnsafePickleError` for a pickle that would run code, and
    ``ValueError`` for a config that does not fit the shapes."""
    p = os.fspath(path)
    if not os.path.exists(p):
        raise CheckpointError(f"checkpoint {p!r} does not exist")
    fmt = checkpoint_format(p)
    if fmt != "hf-folder":
        return _open_file(p, fmt, config)
    arrays, hf_cfg, semantics, G, info = hf.read_hf_folder(p)
    info = dict(info)
    info["stored_dtypes"] = _dtype_summary(getattr(arrays, "stored_dtypes", {}) or {})
    cfg, source, notes = resolve_config(arrays, config, embedded=hf_cfg)
    info.update(config_source=source, notes=list(info.get("notes", [])) + list(notes))
    return OpenedCheckpoint(p, arrays, cfg, "constant" if G is not None else "plga", G,
                            semantics, info)
