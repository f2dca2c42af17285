"""Hugging Face folders of the ``transformers`` PLDR-LLM port (config.json + model.safetensors).

The port (``huggingface/transformers`` commit a28acc8, ``src/transformers/models/pldrllm/``;
spec H) saves a ``PldrllmForCausalLM`` whose state-dict keys are exactly the v510 names
(``base_model_prefix = "decoder"``, LM head ``final_layer``), so no key is renamed.  What
differs:

* ``attention_bias`` / ``glu_bias`` / ``final_bias`` false: the Linear layers have no bias and
  the file no ``….bias`` key; no bias is the same function as a zero bias, so the missing biases
  are zero-filled (exactly) and listed in ``info["zero_filled"]``;
* ``custom_G_type`` set: the metric learner (``reslayerAs``, ``plgatt_layer``,
  ``mha1.layernorm1``) is absent and two persistent buffers are present:
  ``decoder.past_G_values`` [L, 3, 1, H, d_k, d_k] ([A, A_LM, G] per layer; only G enters the
  scores) and ``decoder.past_G_values_status`` [L] bool; the model becomes a
  :class:`~pyref.model.ConstantGModel` with G_l = ``past_G_values[l, 2, 0]``;
* the forward pass follows :func:`pyref.semantics.hf_port` (RoPE, masks, softmax, caches).

:func:`read_hf_config` maps ``config.json`` to a :class:`~pyref.config.PLDRConfig` and a
:class:`~pyref.semantics.Semantics`, refusing every value pyref does not reproduce by name;
:func:`read_hf_folder` adds the weights (v510 names, lazily read) and the constant G; the model
itself is built by :meth:`pyref.PLDRModel.load` (:mod:`pyref.loading`; this module does not
import :mod:`pyref.model`).  Every error is a :class:`~pyref.checkpoint.CheckpointError` naming
the folder and the file.
"""
from __future__ import annotations

import json
import math
import os
from collections import Counter

import numpy as np

from .checkpoint import CheckpointArrays, CheckpointError, load_arrays
from .config import PLDRConfig
from .semantics import ATTN_IMPLEMENTATIONS, hf_port
from .state_dict import (
    GLU_LEAVES,
    HEAD,
    PROJECTIONS,
    glu_block_prefix,
    layer_prefix,
    mha_prefix,
    res_unit_prefix,
    state_dict_shapes,
)

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
INDEX_FILE = "model.safetensors.index.json"
G_VALUES = "decoder.past_G_values"
G_STATUS = "decoder.past_G_values_status"
CUSTOM_G_TYPES = ("identity", "random", "external")

#: ``PldrllmConfig.__init__`` defaults (configuration_pldrllm.py), used for absent fields
PORT_DEFAULTS = {
    "vocab_size": 32000, "hidden_size": 896, "intermediate_size": 2389, "num_hidden_layers": 5,
    "num_attention_heads": 14, "hidden_act": "silu", "max_position_embeddings": 1024,
    "layer_norm_eps": 1e-6, "use_cache": True, "pad_token_id": 0, "bos_token_id": 2,
    "eos_token_id": 3, "tie_word_embeddings": False, "rope_theta": 10000.0, "rope_scaling": None,
    "attention_bias": True, "glu_bias": True, "final_bias": True, "reference_rope": True,
    "attention_dropout": 0.0, "head_dim": 64, "num_reslayerA": 8, "num_denseA": 2, "A_dff": 170,
    "custom_G_type": None, "cache_first_G": False,
}
#: fields the port reads that do not change the function pyref computes at inference
_INERT = ("initializer_range", "use_cache", "output_pldr_attentions", "output_attentions",
          "output_hidden_states", "attention_dropout", "bos_token_id", "architectures",
          "model_type", "transformers_version", "torch_dtype", "dtype", "_name_or_path")
_DTYPES = ("float32", "bfloat16", "float16", "float64")
METRIC_EPS = 1e-9   # the port's epsilonAdj (PlgaLayer.cg_align_one), as v510


def _err(folder, file, msg):
    return CheckpointError(f"HF folder {os.fspath(folder)!r}: {file}: {msg}")


def _int_field(folder, cfg, name):
    v = cfg[name]
    if isinstance(v, bool) or not isinstance(v, int) or v < 1:
        raise _err(folder, CONFIG_FILE, f"{name}={v!r}: expected a positive int")
    return v


def _bool_field(folder, cfg, name):
    v = cfg[name]
    if not isinstance(v, bool):
        raise _err(folder, CONFIG_FILE, f"{name}={v!r}: expected true or false")
    return v


def _float_field(folder, cfg, name):
    v = cfg[name]
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v <= 0:
        raise _err(folder, CONFIG_FILE, f"{name}={v!r}: expected a finite positive number")
    return float(v)


def _read_json(folder, name):
    path = os.path.join(os.fspath(folder), name)
    if not os.path.isfile(path):
        raise _err(folder, name, "missing")
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _err(folder, name, f"cannot read it as JSON ({type(exc).__name__}: {exc})") from None
    if not isinstance(d, dict):
        raise _err(folder, name, f"expected a JSON object, got {type(d).__name__}")
    return d


def _check_identity(folder, cfg, notes):
    """The fields that name the model class and its activation."""
    if cfg.get("model_type", "pldrllm") != "pldrllm":
        raise _err(folder, CONFIG_FILE, f"model_type={cfg['model_type']!r}: expected 'pldrllm'")
    arch = cfg.get("architectures") or ["PldrllmForCausalLM"]
    if arch != ["PldrllmForCausalLM"]:
        raise _err(folder, CONFIG_FILE, f"architectures={arch!r}: pyref reads "
                   "PldrllmForCausalLM (other heads have other keys)")
    if cfg["hidden_act"] not in ("silu", "swish"):
        raise _err(folder, CONFIG_FILE, f"hidden_act={cfg['hidden_act']!r}: pyref implements "
                   "the SwiGLU blocks with SiLU ('silu'/'swish')")
    if cfg["hidden_act"] == "swish":
        notes.append("hidden_act='swish' is SiLU in transformers' ACT2FN")
    if cfg["tie_word_embeddings"] is not False:
        raise _err(folder, CONFIG_FILE, f"tie_word_embeddings={cfg['tie_word_embeddings']!r}: "
                   "PLDR-LLM has an untied head (final_layer); pyref does not tie it")


def _check_rope(folder, cfg):
    """RoPE base from rope_theta (or a 5.x-style rope_parameters); scaling must be default."""
    for name in ("rope_scaling", "rope_parameters"):
        rs = cfg.get(name)
        if rs is None:
            continue
        kind = rs.get("rope_type", rs.get("type")) if isinstance(rs, dict) else rs
        if kind != "default":
            raise _err(folder, CONFIG_FILE, f"{name}={rs!r}: pyref implements only the default "
                       "RoPE (no scaling)")
        if name == "rope_parameters" and "rope_theta" in rs and "rope_theta" not in cfg:
            cfg["rope_theta"] = rs["rope_theta"]
    return _float_field(folder, cfg, "rope_theta")


def _token_id(folder, cfg, name):
    v = cfg.get(name)
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
        raise _err(folder, CONFIG_FILE, f"{name}={cfg.get(name)!r}: expected null or an int >= 0")
    return v


def _attn(folder, cfg, override):
    impl = override
    if impl is None:
        impl = cfg.get("_attn_implementation", cfg.get("attn_implementation")) or "sdpa"
    if impl not in ATTN_IMPLEMENTATIONS:
        raise _err(folder, CONFIG_FILE, f"attn_implementation={impl!r}: pyref reproduces "
                   f"{ATTN_IMPLEMENTATIONS} (torch SDPA and the port's eager attention)")
    return impl


def read_hf_config(folder, attn_implementation=None):
    """``(PLDRConfig, Semantics, info)`` from ``folder/config.json`` (a ``PldrllmConfig``).

    Absent fields take ``PldrllmConfig``'s defaults (listed in ``info["defaults_used"]``).
    ``attn_implementation`` overrides the file's ``_attn_implementation`` (default ``"sdpa"``,
    what ``from_pretrained`` picks).  Refused by name: ``hidden_act`` other than SiLU, tied
    embeddings, RoPE scaling, ``head_dim != hidden_size / num_attention_heads``, an unknown
    ``custom_G_type``, attention other than sdpa/eager, a model_type/architecture other than
    ``pldrllm``/``PldrllmForCausalLM``."""
    raw = _read_json(folder, CONFIG_FILE)
    cfg = dict(PORT_DEFAULTS)
    cfg.update(raw)
    notes = []
    _check_identity(folder, cfg, notes)
    H, hd = _int_field(folder, cfg, "num_attention_heads"), _int_field(folder, cfg, "head_dim")
    if cfg["hidden_size"] is None:   # PldrllmConfig: int(num_attention_heads*head_dim)
        cfg["hidden_size"] = H * hd
    if cfg["intermediate_size"] is None:   # int(np.floor(num_attention_heads*head_dim*4*2/3))
        cfg["intermediate_size"] = int(np.floor(H * hd * 4 * 2 / 3))
    d = _int_field(folder, cfg, "hidden_size")
    if d != H * hd:
        raise _err(folder, CONFIG_FILE, f"head_dim={hd} but hidden_size/num_attention_heads = "
                   f"{d}/{H}: the port splits heads with head_dim, pyref needs d = H·head_dim")
    cg = cfg["custom_G_type"]
    if cg is not None and cg not in CUSTOM_G_TYPES:
        raise _err(folder, CONFIG_FILE, f"custom_G_type={cg!r}: expected null or one of "
                   f"{CUSTOM_G_TYPES}")
    dtype = cfg.get("torch_dtype", cfg.get("dtype"))
    if dtype is not None and dtype not in _DTYPES:
        raise _err(folder, CONFIG_FILE, f"torch_dtype={dtype!r}: expected one of {_DTYPES}")
    try:
        config = PLDRConfig(
            num_layers=_int_field(folder, cfg, "num_hidden_layers"), d_model=d, num_heads=H,
            dff=_int_field(folder, cfg, "intermediate_size"),
            a_dff=_int_field(folder, cfg, "A_dff"),
            num_res_units=_int_field(folder, cfg, "num_reslayerA"),
            num_glu_blocks=_int_field(folder, cfg, "num_denseA"),
            vocab_size=_int_field(folder, cfg, "vocab_size"),
            max_seq_len=_int_field(folder, cfg, "max_position_embeddings"),
            rope_base=_check_rope(folder, cfg), ln_eps=_float_field(folder, cfg, "layer_norm_eps"),
            metric_eps=METRIC_EPS)
    except CheckpointError:
        raise
    except ValueError as exc:
        raise _err(folder, CONFIG_FILE, str(exc)) from None
    impl = _attn(folder, cfg, attn_implementation)
    flags = {k: _bool_field(folder, cfg, k) for k in ("attention_bias", "glu_bias", "final_bias",
                                                      "reference_rope", "cache_first_G")}
    sem = hf_port(reference_rope=flags["reference_rope"], attn_implementation=impl,
                  cache_first_G=flags["cache_first_G"], pad_token_id=_token_id(folder, cfg,
                                                                               "pad_token_id"),
                  eos_token_id=_token_id(folder, cfg, "eos_token_id"))
    read = set(PORT_DEFAULTS) | set(_INERT) | {"_attn_implementation", "attn_implementation",
                                               "rope_parameters"}
    ignored = sorted(k for k in raw if k not in read)
    if ignored:
        notes.append(f"config fields not read by the port's forward, ignored: {ignored}")
    notes.append(f"metric epsilon {METRIC_EPS} (hard-coded in the port, as in v510)")
    info = {"format": "hf-folder", "folder": os.fspath(folder), "config_file": CONFIG_FILE,
            "custom_G_type": cg, "attn_implementation": impl, "torch_dtype": dtype,
            "biases": {k: flags[k] for k in ("attention_bias", "glu_bias", "final_bias")},
            "token_ids": {k: _token_id(folder, cfg, k) for k in ("pad_token_id", "bos_token_id",
                                                                 "eos_token_id")},
            "use_cache": cfg["use_cache"],
            "defaults_used": sorted(k for k in PORT_DEFAULTS if k not in raw),
            "semantics": sem.describe(), "notes": notes}
    return config, sem, info


# ------------------------------------------------------------------------------- weights
def _weight_files(folder):
    """(merged CheckpointArrays, list of files) of model.safetensors or a sharded index."""
    root = os.fspath(folder)
    single, index = os.path.join(root, WEIGHTS_FILE), os.path.join(root, INDEX_FILE)
    if os.path.isfile(single):
        arrays, _ = load_arrays(single)
        return arrays, [WEIGHTS_FILE]
    if not os.path.isfile(index):
        other = sorted(f for f in os.listdir(root) if f.endswith((".bin", ".pt", ".pth")))
        hint = (f"; it holds {other} (torch pickles): pyref reads only safetensors here"
                if other else "")
        raise _err(folder, WEIGHTS_FILE, f"missing (and no {INDEX_FILE}){hint}")
    wmap = _read_json(folder, INDEX_FILE).get("weight_map")
    if not isinstance(wmap, dict) or not wmap:
        raise _err(folder, INDEX_FILE, "expected a non-empty 'weight_map' object")
    shards, headers, stored, owner = {}, {}, {}, {}
    for key, fname in wmap.items():
        if not isinstance(fname, str) or os.path.basename(fname) != fname:
            raise _err(folder, INDEX_FILE, f"key {key!r} maps to {fname!r}, not a file name")
        if fname not in shards:
            shards[fname] = load_arrays(os.path.join(root, fname))[0]
        if key not in shards[fname]:
            raise _err(folder, fname, f"the index puts key {key!r} here but the shard lacks it")
        headers[key], owner[key] = shards[fname].header(key), fname
        stored[key] = shards[fname].stored_dtypes.get(key)
    merged = CheckpointArrays(root, headers, lambda k: shards[owner[k]][k])
    merged.stored_dtypes = stored
    return merged, [INDEX_FILE] + sorted(shards)


def _absent_biases(config, biases, variant):
    """Bias keys of the v510 layout that the port does not create under the config's flags."""
    out = []
    for li in range(config.num_layers):
        m = mha_prefix(li)
        if not biases["attention_bias"]:
            out += [f"{m}{p}.bias" for p in PROJECTIONS + ("dense",)]
        if not biases["glu_bias"]:
            pres = [layer_prefix(li) + "ffn."]
            if variant == "plga":
                pres += [glu_block_prefix(res_unit_prefix(m, u), g)
                         for u in range(config.num_res_units) for g in range(config.num_glu_blocks)]
            out += [p + leaf for p in pres for leaf in GLU_LEAVES if leaf.endswith("bias")]
    if not biases["final_bias"]:
        out.append(HEAD + "bias")
    return out


def _constant_G(folder, arrays, config, cg, notes):
    """The per-layer G [H, d_k, d_k] of a custom_G_type model from its past_G_values buffer."""
    L, H, dk = config.num_layers, config.num_heads, config.d_k
    if G_VALUES not in arrays:
        if cg == "random":
            raise _err(folder, WEIGHTS_FILE, f"custom_G_type='random' but {G_VALUES!r} is "
                       "missing: the port would draw a new random G")
        notes.append(f"{G_VALUES!r} missing: G = I, the port's initial value for "
                     f"custom_G_type={cg!r}")
        return [np.broadcast_to(np.eye(dk), (H, dk, dk)).copy() for _ in range(L)]
    shape = (L, 3, 1, H, dk, dk)
    got, dtype = arrays.header(G_VALUES)
    if tuple(got) != shape or not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
        raise _err(folder, WEIGHTS_FILE, f"{G_VALUES!r} is {dtype} {tuple(got)}, expected a "
                   f"float array {shape} (layers, [A, A_LM, G], 1, heads, d_k, d_k)")
    pg = np.asarray(arrays[G_VALUES], dtype=np.float64)
    if np.any(pg[:, :2] != 0):
        notes.append(f"{G_VALUES}[:, 0:2] (the A and A_LM the port reports) are not all zero; "
                     "they do not enter the scores")
    if G_STATUS in arrays and not np.all(np.asarray(arrays[G_STATUS])):
        notes.append(f"{G_STATUS} is not all true; the port ignores it for custom_G_type models")
    return [pg[li, 2, 0] for li in range(L)]


def _with_zeros(arrays, zero_keys, shapes):
    """``arrays`` plus float64 zero entries for ``zero_keys`` (headers known, nothing read)."""
    headers = {k: arrays.header(k) for k in arrays}
    headers.update({k: (shapes[k], np.dtype(np.float64)) for k in zero_keys})
    zeros = set(zero_keys)
    out = CheckpointArrays(arrays.path, headers,
                           lambda k: np.zeros(shapes[k]) if k in zeros else arrays[k])
    out.stored_dtypes = dict(arrays.stored_dtypes)
    return out


def _check_keys(folder, wfile, sd, config, variant):
    """Keys and header shapes of the (zero-filled) state dict against the v510 layout."""
    shapes = state_dict_shapes(config, variant)
    missing = [k for k in shapes if k not in sd]
    extra = sorted(k for k in sd if k not in shapes)
    if missing or extra:
        raise _err(folder, wfile, f"keys do not fit the config ({variant}): {len(missing)} "
                   f"missing, e.g. {missing[:3]}; {len(extra)} unexpected, e.g. {extra[:3]}")
    for k, shp in shapes.items():
        got, dtype = sd.header(k)
        if tuple(got) != tuple(shp) or not (isinstance(dtype, np.dtype) and dtype.kind == "f"):
            raise _err(folder, wfile, f"entry {k!r} is {dtype} {tuple(got)}, the config needs a "
                       f"float array {tuple(shp)}")


def read_hf_folder(folder, attn_implementation=None):
    """``(arrays, config, semantics, G, info)`` of a port folder, no model built.

    ``arrays``: a :class:`~pyref.checkpoint.CheckpointArrays` with exactly the v510 keys of the
    variant (zero-filled absent biases included, G buffers removed; data read on access);
    ``config``/``semantics``: :func:`read_hf_config`; ``G``: per-layer [H, d_k, d_k] float64
    arrays for a ``custom_G_type`` model (the identity, the port's initial value, when the
    buffer is absent and the type is not "random"), None for a learned model; ``info``:
    :func:`read_hf_config`'s plus ``"weights"`` (files), ``"variant"``, ``"zero_filled"``
    (bias keys) and ``"stored_dtypes"`` (count per dtype)."""
    if not os.path.isdir(os.fspath(folder)):
        raise CheckpointError(f"HF folder {os.fspath(folder)!r} is not a directory")
    config, sem, info = read_hf_config(folder, attn_implementation)
    notes = info["notes"]
    arrays, files = _weight_files(folder)
    wfile = files[0] if len(files) == 1 else ", ".join(files)
    cg = info["custom_G_type"]
    variant = "plga" if cg is None else "constant"
    if cg is None and (G_VALUES in arrays or G_STATUS in arrays):
        raise _err(folder, wfile, f"holds {G_VALUES!r} (a custom_G_type model) but config.json "
                   "has custom_G_type null")
    if HEAD + "weight" not in arrays and "embedding.weight" in arrays:
        raise _err(folder, wfile, "holds a PldrllmModel (keys without 'decoder.', no "
                   "final_layer): pyref needs PldrllmForCausalLM's LM head")
    G = _constant_G(folder, arrays, config, cg, notes) if cg is not None else None
    shapes = state_dict_shapes(config, variant)
    absent = _absent_biases(config, info["biases"], variant)
    present = [k for k in absent if k in arrays]
    if present:
        raise _err(folder, wfile, f"config.json disables these biases but the file holds "
                   f"{len(present)} of them, e.g. {present[:3]}")
    sd = _with_zeros(arrays.select([k for k in arrays if k not in (G_VALUES, G_STATUS)]),
                     absent, shapes)
    _check_keys(folder, wfile, sd, config, variant)
    if absent:
        notes.append(f"{len(absent)} bias(es) absent (bias=false) read as exact zeros")
    used = [k for k in arrays if k in shapes or k == G_VALUES]
    info.update(weights=files, variant=variant, zero_filled=absent,
                stored_dtypes=dict(Counter(arrays.stored_dtypes.get(k) for k in used)))
    if info["torch_dtype"] is not None:
        tag = {"float32": "F32", "bfloat16": "BF16", "float16": "F16", "float64": "F64"}
        if set(info["stored_dtypes"]) - {tag[info["torch_dtype"]]}:
            notes.append(f"config torch_dtype {info['torch_dtype']!r} but the file stores "
                         f"{info['stored_dtypes']}")
    return sd, config, sem, G, info
