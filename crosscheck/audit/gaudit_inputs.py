"""Inputs of ``plga audit-g``: a list of constant operators G read from a file and validated
before any computation.

Accepted files (spec B, "Predefined G files"; spec H, "G lists"):

* the authors' predefined-G lists (``predefined_G_LM_cache_list_*.pkl``): a pickled list of L
  torch tensors ``[1, H, d_k, d_k]``, read without torch by
  :func:`pyref.torchfile.read_tensor_list` (no pickle code runs);
* the authors' negative-test lists (``Gcachelst_init_*NAB*.pkl``): a list of ``[A_LM, G]``
  pairs, one per layer (the G is audited; ``A_LM`` is described, e.g. "all zeros");
* a pyref constant-G checkpoint (``.safetensors``/``.npz`` written by
  :class:`pyref.ConstantGModel`): entries ``__pyref_constant_G__.<l>`` of shape
  ``[H, d_k, d_k]``, read with :func:`pyref.checkpoint.load_arrays` (the model's other weights
  are not read);
* an ``.npz`` written by ``numpy.savez(*G_list)``: entries ``arr_0, arr_1, …``.

Every problem is a one-line :class:`~crosscheck.errors.PlgaError` naming the file, the layer
(and head/entry) and what was expected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pyref.checkpoint import CONSTANT_G_PREFIX, CheckpointError, load_arrays
from pyref.torchfile import read_tensor_list

from ..errors import PlgaError

ARRAY_SUFFIXES = (".safetensors", ".npz")


@dataclass
class GList:
    """A validated list of operators: ``G[l]`` is float64 ``[H, d_k, d_k]`` (exact widening of
    the stored values); ``A_LM[l]`` likewise for the NAB lists (else None)."""

    G: list
    A_LM: list | None
    structure: dict                      # what the file holds (JSON-ready)
    config: object | None = None         # a pyref PLDRConfig embedded in a checkpoint
    warnings: list = field(default_factory=list)

    @property
    def shape(self) -> tuple:            # (L, H, d_k)
        return (len(self.G), self.G[0].shape[0], self.G[0].shape[-1])


# ================================================================================ readers
def _stored_dtype(a) -> str:
    """The dtype the file stores (a pyref.torchfile array reports it as ``stored_dtype``)."""
    return str(getattr(a, "stored_dtype", None) or np.asarray(a).dtype)


def _describe(obj) -> str:
    """A short description of a (nested) object, for error messages and the report."""
    if isinstance(obj, (list, tuple)):
        inner = ", ".join(_describe(x) for x in obj[:2]) + (", …" if len(obj) > 2 else "")
        return f"{type(obj).__name__}[{len(obj)}]({inner})"
    if isinstance(obj, np.ndarray):
        return f"tensor{list(obj.shape)} {_stored_dtype(obj)}"
    return type(obj).__name__


def _check_path(path: Path) -> None:
    if not path.exists():
        raise PlgaError(f"G list {path}: no such file")
    if not path.is_file():
        raise PlgaError(f"G list {path}: not a regular file")


def _read_torch_list(path: Path) -> list:
    """The nested list of a torch pickle (authors' G / NAB lists), read without torch."""
    try:
        return read_tensor_list(path)
    except CheckpointError as exc:        # names the file (UnsafePickleError is one too)
        raise PlgaError(str(exc).replace("\n", " ")) from None
    except (OSError, ValueError) as exc:
        raise PlgaError(f"G list {path}: cannot read it as a pickled list of tensors "
                        f"({type(exc).__name__}: {exc})".replace("\n", " ")) from None


def _layer_keys(keys, pattern: str) -> list | None:
    """Keys matching ``pattern`` (one group: the layer index) ordered by layer, or None when
    none match; error if the indices are not exactly 0..L-1."""
    idx = {int(m.group(1)): k for k in keys for m in [re.fullmatch(pattern, k)] if m}
    if not idx:
        return None
    missing = sorted(set(range(max(idx) + 1)) - set(idx))
    if missing:
        raise ValueError(f"entries for layers {sorted(idx)} but not for layer(s) {missing}")
    return [idx[i] for i in range(len(idx))]


def _read_array_file(path: Path) -> tuple[list, dict, object]:
    """(G list, structure fields, embedded config) of a ``.safetensors``/``.npz`` file."""
    try:
        arrays, cfg = load_arrays(path)
        keys = list(arrays.keys())
        gkeys = _layer_keys(keys, re.escape(CONSTANT_G_PREFIX) + r"(\d+)")
        kind = "pyref constant-G checkpoint"
        if gkeys is None:
            gkeys, kind = _layer_keys(keys, r"arr_(\d+)"), "numpy.savez list"
        if gkeys is None:
            some = ", ".join(repr(k) for k in keys[:3]) + (", …" if len(keys) > 3 else "")
            raise PlgaError(
                f"G list {path}: no G list in this file: expected entries "
                f"'{CONSTANT_G_PREFIX}<layer>' (a pyref constant-G checkpoint) or 'arr_0', "
                f"'arr_1', … (numpy.savez of a list of [1, H, d_k, d_k] arrays); it holds "
                f"{len(keys)} entries ({some or 'none'}) -- a PLGA checkpoint's G_LM depends on "
                "the input: audit it with 'plga audit'")
        G = [arrays[k] for k in gkeys]
    except CheckpointError as exc:
        raise PlgaError(str(exc).replace("\n", " ")) from None
    except ValueError as exc:
        raise PlgaError(f"G list {path}: {exc}") from None
    stored = getattr(arrays, "stored_dtypes", {}) or {}
    info = {"kind": kind, "keys": gkeys,
            "stored_dtypes": sorted({str(stored.get(k) or G[i].dtype)
                                     for i, k in enumerate(gkeys)})}
    return G, info, cfg


# ============================================================================= validation
def _as_operator(path: Path, what: str, a, ref_shape) -> np.ndarray:
    """One layer's tensor as float64 [H, d_k, d_k] after checking rank, shape, dtype, d_k and
    finiteness; ``ref_shape`` is layer 0's stored shape (None for layer 0 itself)."""
    where = f"G list {path}: {what}"
    if not isinstance(a, np.ndarray):
        raise PlgaError(f"{where}: expected a tensor [1, H, d_k, d_k], got {_describe(a)}")
    shape = tuple(a.shape)
    if a.ndim not in (3, 4) or (a.ndim == 4 and shape[0] != 1):
        raise PlgaError(f"{where}: expected a tensor [1, H, d_k, d_k] (or [H, d_k, d_k]), got "
                        f"shape {list(shape)}")
    if ref_shape is not None and shape != ref_shape:
        raise PlgaError(f"{where}: shape {list(shape)} differs from layer 0's {list(ref_shape)}; "
                        "every layer must have the same [1, H, d_k, d_k]")
    H, m, n = shape[-3:]
    if H < 1 or m != n:
        raise PlgaError(f"{where}: expected square [d_k, d_k] operators for H ≥ 1 heads, got "
                        f"shape {list(shape)}")
    if n < 2 or n % 2:
        raise PlgaError(f"{where}: d_k = {n} must be even and ≥ 2 (RoPE rotates pairs of "
                        f"coordinates), shape {list(shape)}")
    if a.dtype.kind != "f":
        raise PlgaError(f"{where}: expected floating-point entries, got dtype {a.dtype}")
    g = np.array(a, dtype=np.float64).reshape(H, n, n)   # exact widening, own copy
    bad = ~np.isfinite(g)
    if bad.any():
        h, i, j = (int(x) for x in np.argwhere(bad)[0])
        raise PlgaError(f"{where}, head {h}: entry ({i}, {j}) is {g[h, i, j]} (expected finite "
                        f"numbers; {int(bad.sum())} non-finite entries in this layer)")
    return g


def _split_pairs(path: Path, obj: list) -> tuple[list, list | None, str]:
    """(G tensors, A_LM tensors or None, kind) of a G list or a NAB list of [A_LM, G] pairs."""
    pairs = [isinstance(x, (list, tuple)) for x in obj]
    if not any(pairs):
        return list(obj), None, "predefined-G list"
    for li, x in enumerate(obj):
        if not isinstance(x, (list, tuple)) or len(x) != 2:
            raise PlgaError(f"G list {path}: layer {li}: expected a pair [A_LM, G] like the "
                            f"other layers (a NAB list), got {_describe(x)}")
    return [x[1] for x in obj], [x[0] for x in obj], "NAB list ([A_LM, G] per layer)"


def validate_list(path: Path, obj, kind: str | None = None, stored=None) -> GList:
    """Check a list read from ``path`` (as :func:`pyref.torchfile.read_tensor_list` returns
    it: tensors, or [A_LM, G] pairs) and return it as a :class:`GList`.  ``kind`` overrides the
    structure name; ``stored`` the stored dtype names."""
    path = Path(path)
    if not isinstance(obj, (list, tuple)):
        raise PlgaError(f"G list {path}: expected a list of [1, H, d_k, d_k] tensors (one per "
                        f"layer), got {_describe(obj)}")
    if len(obj) == 0:
        raise PlgaError(f"G list {path}: the list is empty; expected one [1, H, d_k, d_k] tensor "
                        "per layer")
    Gs, As, found = _split_pairs(path, obj)
    ref = tuple(np.shape(Gs[0])) if isinstance(Gs[0], np.ndarray) else None
    G = [_as_operator(path, f"layer {li}" + (" (G)" if As else ""), g, ref if li else None)
         for li, g in enumerate(Gs)]
    A = None
    if As is not None:
        A = [_as_operator(path, f"layer {li} (A_LM)", a, ref) for li, a in enumerate(As)]
    structure = {
        "kind": kind or found,
        "description": _describe(list(obj)),
        "layers": len(G), "heads": G[0].shape[0], "d_k": G[0].shape[-1],
        "stored_shape": list(ref) if ref else list(G[0].shape),
        "stored_dtypes": stored or sorted({_stored_dtype(x) for x in Gs + (As or [])}),
    }
    return GList(G=G, A_LM=A, structure=structure)


def read_g_file(path) -> GList:
    """Read and validate a G list file (see the module docstring for the formats)."""
    path = Path(path)
    _check_path(path)
    if path.suffix in ARRAY_SUFFIXES:
        G, info, cfg = _read_array_file(path)
        gl = validate_list(path, G, kind=info["kind"], stored=info["stored_dtypes"])
        gl.structure["keys"] = info["keys"]
        gl.config = cfg
        return gl
    gl = validate_list(path, _read_torch_list(path))
    gl.structure["reader"] = "pyref.torchfile.read_tensor_list (no pickle code runs)"
    return gl
