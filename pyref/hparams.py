"""Configuration without guesswork: every size of a v510 checkpoint from its tensor shapes
(key names and headers only), the rest from a spec -- ``paper``, a JSON file, or the
authors' hyperparameter ``.py`` file read by :mod:`pyref.hparams_ast` (never executed).

:func:`infer_config_fields` reads only key names and headers (``arrays.header(k)`` when the
mapping has it, else ``np.shape``); :func:`resolve_config` combines the shapes with a spec and
fails on every disagreement, naming the field and both values.

Facts from the authors' v510 code (KVG repository; the same in v510G, v510Gi, v510_dag):
``nn.LayerNorm(…, eps=1e-6)`` everywhere (pldr_model_v510.py:55,155,156,216,335),
``RotaryPositionalEmbeddings(…, base=10000)`` (pldr_model_v510.py:57), ``epsilonAdj=1e-9``
(power_law_attention_layer_v510.py:68) -- all hard-coded, none read from ``hpdict``; the model
constructor reads ``num_layers, d_model, num_heads, dff, input_vocab_size, A_dff,
num_reslayerA, num_denseA, max_seq_len, activation`` (pldr_run_model_v510.py:140-150; v510G
reads no ``A_dff``/``num_reslayerA``/``num_denseA`` but ``Gcachelst``, the path of a G list).
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import fields

import numpy as np

from .config import PLDRConfig
from .hparams_ast import (
    MAX_SOURCE_BYTES,
    SILU,
    HParamsError,
    HParamsFile,
    Symbol,
    load_hparams_py,
    read_hparams_py,
    short_repr,
)

__all__ = ["HParamsError", "HParamsFile", "Symbol", "infer_config_details",
           "infer_config_fields", "load_hparams_py", "read_hparams_py", "resolve_config",
           "spec_values"]

#: the authors' hard-coded values (see the module docstring for file and line)
V510_DEFAULTS = {"rope_base": 1e4, "ln_eps": 1e-6, "metric_eps": 1e-9}
V510_DEFAULTS_WHERE = ("hard-coded in the authors' v510 code: RotaryPositionalEmbeddings "
                       "base=10000 (pldr_model_v510.py:57), LayerNorm eps=1e-6 "
                       "(pldr_model_v510.py:55,155,156,216,335), epsilonAdj=1e-9 "
                       "(power_law_attention_layer_v510.py:68)")
#: sizes of the metric learner; unused by a constant-operator model, whose file lacks them
#: (defaults of the authors' run script, pldr_run_model_v510.py:107-109)
LEARNER_DEFAULTS = {"a_dff": 170, "num_res_units": 8, "num_glu_blocks": 2}
#: hpdict key -> PLDRConfig field (the names of pldr_run_model_v510.py:140-150)
HPDICT_FIELDS = {"num_layers": "num_layers", "d_model": "d_model", "num_heads": "num_heads",
                 "dff": "dff", "num_reslayerA": "num_res_units", "num_denseA": "num_glu_blocks",
                 "A_dff": "a_dff", "input_vocab_size": "vocab_size", "max_seq_len": "max_seq_len"}

_INT_FIELDS = ("num_layers", "d_model", "num_heads", "dff", "a_dff", "num_res_units",
               "num_glu_blocks", "vocab_size", "max_seq_len")
_CONFIG_FIELDS = tuple(f.name for f in fields(PLDRConfig))


# ================================================================ sizes from the shapes
_L = r"^decoder\.dec_layers\.(\d+)\."
_RES = _L + r"mha1\.reslayerAs\.(\d+)\."
_GLU = _RES + r"denseAs\.(\d+)\."
#: key pattern -> the meaning of each dimension (a field name, or an int the dim must equal,
#: or None for any size)
_SHAPE_RULES = [(re.compile(p), dims) for p, dims in (
    (r"^decoder\.embedding\.weight$", ("vocab_size", "d_model")),
    (r"^final_layer\.weight$", ("vocab_size", "d_model")),
    (r"^final_layer\.bias$", ("vocab_size",)),
    (r"^decoder\.layernorm1\.(weight|bias)$", ("d_model",)),
    (_L + r"mha1\.(wq|wk|wv|dense)\.weight$", ("d_model", "d_model")),
    (_L + r"mha1\.(wq|wk|wv|dense)\.bias$", ("d_model",)),
    (_L + r"ffn\.gluw[12]\.weight$", ("dff", "d_model")),
    (_L + r"ffn\.gluw[12]\.bias$", ("dff",)),
    (_L + r"ffn\.gluw3\.weight$", ("d_model", "dff")),
    (_L + r"ffn\.gluw3\.bias$", ("d_model",)),
    (_L + r"layernorm[12]\.(weight|bias)$", ("d_model",)),
    (_L + r"mha1\.plgatt_layer\.(Wlst|blst|pwlst|alst|balst)$", ("num_heads", "d_k", "d_k")),
    (_L + r"mha1\.layernorm1\.(weight|bias)$", ("d_k",)),
    (_GLU + r"gluw[12]\.weight$", ("a_dff", "d_k")),
    (_GLU + r"gluw[12]\.bias$", ("a_dff",)),
    (_GLU + r"gluw3\.weight$", ("d_k", "a_dff")),
    (_GLU + r"gluw3\.bias$", ("d_k",)),
    (_RES + r"layernormA\.(weight|bias)$", ("d_k",)),
    # constant operators: pyref's own entries [H, d_k, d_k]; the HF port's G buffer
    # [L, 3, batch, H, d_k, d_k] and its status flags [L]
    (r"^__pyref_constant_G__\.\d+$", ("num_heads", "d_k", "d_k")),
    (r"^decoder\.past_G_values$", ("num_layers", 3, None, "num_heads", "d_k", "d_k")),
    (r"^decoder\.past_G_values_status$", ("num_layers",)),
)]
_LEARNER = re.compile(_L + r"mha1\.(plgatt_layer\.|reslayerAs\.|layernorm1\.)")


def _shape_of(arrays, key) -> tuple:
    """The shape of ``arrays[key]`` from its header when the mapping has one (no data read)."""
    if hasattr(arrays, "header"):
        shp = arrays.header(key)[0]
    else:
        shp = np.shape(arrays[key])
    return tuple(int(s) for s in shp)


def _contiguous(indices, what) -> int:
    n = max(indices) + 1
    missing = sorted(set(range(n)) - set(indices))
    if missing:
        raise ValueError(f"checkpoint keys: {what} {sorted(indices)} -- index(es) {missing} "
                         "missing (every index from 0 up must be present)")
    return n


def _counts(keys, out, sources):
    """num_layers, num_res_units, num_glu_blocks from the key indices, equal in every layer."""
    layers, units, blocks = set(), {}, {}
    for k in keys:
        m = re.match(_L, k)
        if m:
            layers.add(int(m.group(1)))
        mg = re.match(_GLU, k)
        m = mg or re.match(_RES, k)
        if m:
            li, u = int(m.group(1)), int(m.group(2))
            units.setdefault(li, set()).add(u)
            if mg:
                blocks.setdefault((li, u), set()).add(int(mg.group(3)))
    if layers:
        n = _contiguous(layers, "decoder layers")
        if out.get("num_layers", n) != n:
            raise ValueError(f"checkpoint keys: decoder.dec_layers.0 … {n - 1} make {n} layers, "
                             f"but {sources['num_layers']} gives num_layers={out['num_layers']}")
        out["num_layers"], sources["num_layers"] = n, f"decoder.dec_layers.0 … {n - 1}"
    for what, groups, name in (("residual units", units, "num_res_units"),
                               ("GLU blocks", blocks, "num_glu_blocks")):
        for where, idx in sorted(groups.items()):
            n = _contiguous(idx, f"{what} of {_where(where)}")
            if name in out and n != out[name]:
                raise ValueError(f"checkpoint keys: {_where(where)} has {n} {what}, but "
                                 f"{sources[name]} has {out[name]} (every layer must have "
                                 "the same sizes)")
            out[name], sources[name] = n, _where(where)
    if units and layers:
        bare = sorted(layers - set(units))
        if bare:
            raise ValueError(f"checkpoint keys: decoder layer {bare[0]} has no "
                             f"mha1.reslayerAs.* entries, but layer {min(units)} has")


def _where(w) -> str:
    return (f"layer {w}" if isinstance(w, int) else f"layer {w[0]} residual unit {w[1]}")


def infer_config_details(arrays):
    """``(fields, sources, notes)``: :func:`infer_config_fields`, the key (and shape) each
    field was read from, and remarks (e.g. why ``num_heads`` is absent)."""
    keys = list(arrays.keys())
    out: dict = {}
    sources: dict = {}
    for k in keys:
        for rx, dims in _SHAPE_RULES:
            if rx.match(k):
                _apply_rule(k, _shape_of(arrays, k), dims, out, sources)
                break
    _counts(keys, out, sources)
    learner = [k for k in keys if _LEARNER.match(k)]
    out["variant"] = "plga" if learner else "constant"
    notes = []
    if learner:
        have = {int(re.match(_L, k).group(1)) for k in learner if ".plgatt_layer.Wlst" in k}
        lacking = sorted(set(range(out.get("num_layers", 0))) - have)
        if lacking:
            raise ValueError(f"checkpoint keys: decoder layer {lacking[0]} has no "
                             "mha1.plgatt_layer.Wlst, but other layers have metric-learner "
                             "entries")
    elif "num_heads" not in out:
        notes.append("num_heads cannot be inferred from the shapes: a constant-operator (v510G) "
                     "or SDPA checkpoint has no per-head tensor (the q/k/v projections are "
                     "[d_model, d_model] for any head count)")
    H, dk, d = out.get("num_heads"), out.get("d_k"), out.get("d_model")
    if H and dk and d and H * dk != d:
        raise ValueError(f"checkpoint shapes: {sources['num_heads']} gives num_heads={H} and "
                         f"d_k={dk}, but {sources['d_model']} gives d_model={d} != {H}·{dk}")
    return out, sources, notes


def _apply_rule(key, shape, dims, out, sources):
    if len(shape) != len(dims):
        want = ", ".join(str(x) if x is not None else "any" for x in dims)
        raise ValueError(f"checkpoint entry {key!r} has shape {shape}; a v510 checkpoint has "
                         f"{len(dims)} dimension(s) there ({want})")
    for size, name in zip(shape, dims):
        if name is None:
            continue
        if isinstance(name, int):
            if size != name:
                raise ValueError(f"checkpoint entry {key!r} has shape {shape}; expected "
                                 f"{name} in that position")
            continue
        if name in out and out[name] != size:
            raise ValueError(f"checkpoint entry {key!r} has shape {shape}, which gives "
                             f"{name}={size}, but {sources[name]} gives {name}={out[name]} "
                             "(every layer must have the same sizes)")
        if name not in out:
            out[name], sources[name] = size, f"{key} {list(shape)}"


def infer_config_fields(arrays) -> dict:
    """The config fields that the key names and shapes of a v510 state dict reveal, from the
    headers only (``arrays.header(k)`` when the mapping has it; no tensor data is read):
    ``num_layers``, ``d_model``, ``num_heads`` and ``d_k`` (from ``plgatt_layer.Wlst``
    [H, d_k, d_k], or a constant model's stored G), ``dff``, ``a_dff``, ``num_res_units``,
    ``num_glu_blocks``, ``vocab_size`` as ints, plus ``variant`` ("plga" when metric-learner
    keys exist, else "constant"). A field the file does not reveal is absent (``num_heads``
    of a constant-operator/SDPA file without stored G). Sizes that differ between layers, a
    tensor of the wrong rank, or missing layer indices raise ValueError naming the key."""
    return infer_config_details(arrays)[0]


# ================================================================ spec -> field values
_SILU_NAMES = ("silu", "F.silu", SILU)   # as strings, e.g. in an hpdict dumped to JSON
_HPDICT_ONLY = ("A_dff", "num_reslayerA", "num_denseA", "input_vocab_size", "activation")
_SPEC_HELP = ("pass --config: 'paper' (the paper's 110M model), a JSON file with the missing "
              "fields (e.g. {\"max_seq_len\": 1024}) or with every PLDRConfig field, or the "
              "authors' hyperparameter .py file (hpdict)")


def _check_type(f, v, label):
    if isinstance(v, Symbol):
        return
    if f in _INT_FIELDS:
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise ValueError(f"{label}: {f}={short_repr(v)} is not an integer")
    elif isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise ValueError(f"{label}: {f}={short_repr(v)} is not a number")


def _from_hpdict(hp: dict, label: str):
    """PLDRConfig field values (Symbols kept) and notes from an authors' ``hpdict``."""
    vals, notes = {}, []
    for key, f in HPDICT_FIELDS.items():
        if key not in hp:
            continue
        v = hp[key]
        if not isinstance(v, Symbol) and (isinstance(v, bool) or not isinstance(v, int)):
            raise ValueError(f"{label}: hpdict[{key!r}] = {short_repr(v)} is not an integer "
                             "(the authors' code passes it to torch as a size)")
        vals[f] = v
    act = hp.get("activation")
    silu = (isinstance(act, Symbol) and act.target == SILU) or act in _SILU_NAMES
    if "activation" in hp and not silu:
        raise ValueError(f"{label}: hpdict['activation'] = {short_repr(act)}: pyref implements "
                         "the SwiGLU blocks with SiLU only (F.silu, the authors' default)")
    if hp.get("Gcachelst") is not None:
        notes.append(f"{label}: hpdict['Gcachelst'] = {short_repr(hp['Gcachelst'])} names a "
                     "v510G G list; pyref reads G lists with --gcache")
    return vals, notes


def _fields_dict(d: Mapping, label: str):
    if any(k in d for k in _HPDICT_ONLY):
        return _from_hpdict(dict(d), label)
    extra = sorted(set(d) - set(_CONFIG_FIELDS), key=str)
    if extra:
        raise ValueError(f"{label}: unknown field(s) {extra}; expected PLDRConfig fields "
                         f"{list(_CONFIG_FIELDS)} (or the keys of the authors' hpdict)")
    return dict(d), []


def _read_json(path: str):
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise ValueError(f"--config {path}: cannot read ({exc.strerror or exc})") from None
    if len(raw) > MAX_SOURCE_BYTES:
        raise ValueError(f"--config {path}: larger than {MAX_SOURCE_BYTES} bytes")
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"--config {path}: not a JSON file ({exc}); {_SPEC_HELP}") from None
    if not isinstance(d, dict):
        raise ValueError(f"--config {path}: expected a JSON object, got {type(d).__name__}")
    return d


def spec_values(spec):
    """``(field values, label, notes)`` of a config spec: None, a :class:`PLDRConfig`, a dict
    (PLDRConfig fields, all or some, or an authors' hpdict), ``"paper"``/``"paper:A_DFF"``,
    or the path of a JSON file or of the authors' hyperparameter ``.py`` file."""
    if spec is None:
        return {}, None, []
    if isinstance(spec, PLDRConfig):
        return spec.to_dict(), "the given PLDRConfig", []
    if isinstance(spec, Mapping):
        vals, notes = _fields_dict(spec, "the given config dict")
        return vals, "the given config dict", notes
    if not isinstance(spec, (str, os.PathLike)):
        raise ValueError(f"config spec: expected None, a PLDRConfig, a dict, 'paper' or a file "
                         f"path, got {type(spec).__name__}")
    s = os.fspath(spec)
    if s == "paper" or s.startswith("paper:"):
        a = s.split(":", 1)[1] if ":" in s else "170"
        if not a.isdigit():
            raise ValueError(f"--config {s}: expected 'paper' or 'paper:A_DFF' with an integer "
                             "A_DFF")
        return PLDRConfig.paper(a_dff=int(a)).to_dict(), f"--config {s}", []
    if not os.path.isfile(s):
        raise ValueError(f"--config {s}: no such file; {_SPEC_HELP}")
    if s.endswith((".pkl", ".pickle", ".pth", ".pt")):
        raise ValueError(f"--config {s}: a pickle is not read as a config (the authors' run "
                         "script also pickles hpdict as *_hparams.pkl); pass the hyperparameter "
                         ".py file, a JSON file or 'paper'")
    if s.endswith(".py"):
        hf = load_hparams_py(s)
        vals, notes = _from_hpdict(hf.hpdict, s)
        if hf.imports:
            notes.append(f"{s}: import lines not executed: {'; '.join(hf.imports)}")
        return vals, s, notes
    vals, notes = _fields_dict(_read_json(s), s)
    return vals, s, notes


# ================================================================ shapes + spec -> config
def _missing_error(missing, inferred, label, shape_notes):
    have = ", ".join(f"{k}={v}" for k, v in inferred.items() if k != "variant")
    where = f"in {label}" if label else "given (no --config and no config in the file)"
    msg = (f"config: {', '.join(missing)} {'is' if len(missing) == 1 else 'are'} neither in "
           f"the checkpoint's shapes nor {where}")
    if "num_heads" in missing and shape_notes:
        msg += f" ({shape_notes[0]})"
    return ValueError(f"{msg}; the shapes give {have or 'nothing'}; {_SPEC_HELP}")


def _pick(f, inferred, sources, given, notes):
    """(value, origin) of field ``f``; ``given`` = [(label, values)] in priority order."""
    have = [(lab, vals[f]) for lab, vals in given if f in vals]
    for lab, v in have:
        _check_type(f, v, lab)
    if f in inferred:
        for lab, v in have:
            if isinstance(v, Symbol):
                notes.append(f"{lab}: {f} = {v.name} is known only when the authors' code "
                             f"runs; {f}={inferred[f]} from the checkpoint's shapes")
            elif v != inferred[f]:
                raise ValueError(f"config: {lab} says {f}={v}, the checkpoint's shapes say "
                                 f"{f}={inferred[f]} ({sources[f]})")
        return inferred[f], "the checkpoint's shapes"
    if not have:
        return None, None
    lab, v = have[0]
    if isinstance(v, Symbol):
        raise ValueError(f"config: {lab} gives {f} = {v.name}, known only when the authors' "
                         f"code runs, and the checkpoint's shapes do not give {f}; write a "
                         "number there")
    for lab2, v2 in have[1:]:
        if v2 != v:
            notes.append(f"{lab2} says {f}={v2}; using {lab}'s {f}={v}")
    return v, lab


def resolve_config(arrays, spec=None, embedded=None):
    """``(PLDRConfig, source, notes)`` for the checkpoint ``arrays`` (a mapping with v510 key
    names; only headers are read).

    Every size comes from the shapes (:func:`infer_config_fields`); ``max_seq_len`` and the
    rest from ``spec`` (see :func:`spec_values`), else from ``embedded`` (the config stored in
    the file). A value that both give must agree with the shapes, else ValueError naming the
    field and both values. Not given: ``rope_base``, ``ln_eps``, ``metric_eps`` take the values
    the authors' v510 code hard-codes (noted); for a constant-operator file the metric-learner
    sizes, which it does not use, take the run script's defaults (noted); ``max_seq_len`` (and a
    constant file's ``num_heads``) must be given, else ValueError saying how."""
    if len(arrays) and not any(rx.match(k) for k in arrays for rx, _ in _SHAPE_RULES):
        first = [k for _, k in zip(range(3), arrays)]
        raise ValueError(f"checkpoint keys: none is a v510 state-dict name (such as "
                         f"decoder.embedding.weight); the first are {first}")
    inferred, sources, shape_notes = infer_config_details(arrays)
    variant = inferred["variant"]
    vals, label, notes = spec_values(spec)
    given = [(label, vals)] if label else []
    if embedded is not None:
        emb = embedded.to_dict() if isinstance(embedded, PLDRConfig) else dict(embedded)
        given.append(("the config embedded in the checkpoint", emb))
    chosen, origin, missing = {}, {}, []
    for f in _CONFIG_FIELDS:
        v, o = _pick(f, inferred, sources, given, notes)
        if o is None and f in V510_DEFAULTS:
            v, o = V510_DEFAULTS[f], "the v510 defaults"
        elif o is None and f in LEARNER_DEFAULTS and variant == "constant":
            v, o = LEARNER_DEFAULTS[f], "the run script's defaults (unused here)"
        if o is None:
            missing.append(f)
        chosen[f], origin[f] = v, o
    if missing:
        raise _missing_error(missing, inferred, label, shape_notes)
    if origin["num_heads"] != "the checkpoint's shapes" and shape_notes:
        notes.append(f"{shape_notes[0]}; num_heads={chosen['num_heads']} from "
                     f"{origin['num_heads']}")
    groups: dict = {}
    for f, o in origin.items():
        groups.setdefault(o, []).append(f)
    for o, fs in groups.items():
        if o == "the v510 defaults":
            notes.append(f"{', '.join(fs)}: {V510_DEFAULTS_WHERE}")
        elif o.startswith("the run script's"):
            vals_ = ", ".join(f"{f}={chosen[f]}" for f in fs)
            notes.append(f"{', '.join(fs)}: the metric learner's sizes are not in a "
                         f"constant-operator checkpoint and the model does not use them; set "
                         f"to {vals_} (pldr_run_model_v510.py:107-109)")
    for f, d in V510_DEFAULTS.items():
        if origin[f] != "the v510 defaults" and chosen[f] != d:
            notes.append(f"{f}={chosen[f]} from {origin[f]} differs from the value the authors' "
                         f"v510 code hard-codes ({d})")
    source = "; ".join(f"{', '.join(fs)} from {o}" if o != "the checkpoint's shapes"
                       else f"sizes from {o}" for o, fs in groups.items())
    try:
        cfg = PLDRConfig(**chosen)
    except ValueError as exc:
        raise ValueError(f"config ({source}): {exc}") from None
    return cfg, source, notes
