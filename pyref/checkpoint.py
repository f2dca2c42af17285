"""Checkpoint files: safetensors / npz reading and writing (never pickle; atomic writes).

The key names, shapes and validation of the arrays are :mod:`pyref.state_dict`; this
module only moves named arrays (plus the config as JSON metadata) to and from files.
Constant-operator models store their operators as extra entries
``__pyref_constant_G__.{l}``.
"""
from __future__ import annotations

import json
import os
import tempfile
import zipfile
from collections.abc import Mapping

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

from .config import PLDRConfig, available_memory

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


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read as one: missing, a directory, unreadable, corrupt,
    or holding an entry whose header does not fit. The message names the file (and the key)."""


#: dtypes a checkpoint entry may have (safetensors names); bfloat16 needs a widening reader
_ST_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64,
              "I32": np.int32, "I16": np.int16, "I8": np.int8, "U8": np.uint8, "BOOL": np.bool_}


class CheckpointArrays(Mapping):
    """The entries of a checkpoint file, name -> array, read on access.

    The headers (shape, dtype) of every entry are known without reading any data
    (:meth:`header`), so a consumer can check an entry before it is read; an entry is only
    read when asked for, and one larger than the available memory is refused."""

    def __init__(self, path, headers: dict, reader):
        self.path, self._headers, self._reader = os.fspath(path), headers, reader
        #: the dtype names as stored (safetensors: ``"F32"``, ``"BF16"``, …; bf16 reads as
        #: float32, exactly)
        self.stored_dtypes: dict = {}

    def header(self, key):
        """(shape, numpy dtype or the stored dtype name) of ``key``, from the file's header."""
        return self._headers[key]

    def select(self, keys) -> "CheckpointArrays":
        """The same file restricted to ``keys`` (nothing is read)."""
        out = CheckpointArrays(self.path, {k: self._headers[k] for k in keys}, self._reader)
        out.stored_dtypes = {k: v for k, v in self.stored_dtypes.items() if k in out._headers}
        return out

    def __iter__(self):
        return iter(self._headers)

    def __len__(self):
        return len(self._headers)

    def __getitem__(self, key):
        shape, dtype = self._headers[key]
        if not isinstance(dtype, np.dtype):
            raise CheckpointError(f"checkpoint {self.path!r}: entry {key!r} has dtype {dtype}, "
                                  "which pyref cannot read (floating entries must be float16, "
                                  "float32 or float64)")
        need, have = int(np.prod(shape, dtype=object)) * dtype.itemsize, available_memory()
        if have is not None and need > have:
            raise CheckpointError(f"checkpoint {self.path!r}: entry {key!r} declares shape "
                                  f"{shape} ({need / 2**30:.1f} GiB), more than the "
                                  f"{have / 2**30:.1f} GiB available")
        try:
            a = self._reader(key)
        except Exception as exc:  # zip/safetensors/OS errors of a corrupt or truncated file
            raise CheckpointError(f"checkpoint {self.path!r}: cannot read entry {key!r} "
                                  f"({type(exc).__name__}: {exc})".replace("\n", " ")) from None
        if a.shape != tuple(shape) or a.dtype != dtype:
            raise CheckpointError(f"checkpoint {self.path!r}: entry {key!r} holds {a.dtype} "
                                  f"{a.shape}, its header says {dtype} {tuple(shape)}")
        return a


def _check_path(path) -> str:
    p = os.fspath(path)
    if not os.path.exists(p):
        raise CheckpointError(f"checkpoint {p!r} does not exist")
    if os.path.isdir(p):
        raise CheckpointError(f"checkpoint {p!r} is a directory, expected a file")
    if not os.access(p, os.R_OK):
        raise CheckpointError(f"checkpoint {p!r} exists but is not readable (permissions)")
    return p


def _read_bf16(p, key):
    """A bfloat16 safetensors entry as float32, exactly: bf16 is the high half of a float32,
    so the 16 stored bits shifted left by 16 are that float32 (numpy has no bf16 dtype)."""
    with open(p, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        entry = json.loads(f.read(n))[key]
        start, end = entry["data_offsets"]
        f.seek(8 + n + start)
        raw = np.frombuffer(f.read(end - start), dtype="<u2")
    return (raw.astype(np.uint32) << 16).view(np.float32).reshape(entry["shape"])


def _open_safetensors(p):
    with safe_open(p, framework="numpy") as f:
        meta = f.metadata() or {}
        headers, stored = {}, {}
        for k in f.keys():
            sl = f.get_slice(k)
            stored[k] = sl.get_dtype()
            dtype = np.float32 if stored[k] == "BF16" else _ST_DTYPES.get(stored[k])
            headers[k] = (tuple(sl.get_shape()),
                          np.dtype(dtype) if dtype is not None else stored[k].lower())

    def read(k):
        if stored[k] == "BF16":
            return _read_bf16(p, k)
        with safe_open(p, framework="numpy") as f:
            return f.get_tensor(k)

    arrays = CheckpointArrays(p, headers, read)
    arrays.stored_dtypes = stored
    return arrays, meta.get(CONFIG_KEY)


def _npy_header(fh):
    version = np.lib.format.read_magic(fh)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
    else:
        raise ValueError(f"unsupported .npy format version {version}")
    return tuple(shape), dtype


def _open_npz(p):
    with zipfile.ZipFile(p) as z:
        members = [n for n in z.namelist() if n.endswith(".npy")]
        headers, cfg = {}, None
        for n in members:
            with z.open(n) as fh:   # only the first bytes of the member are decompressed
                headers[n[:-4]] = _npy_header(fh)
        if CONFIG_KEY in headers:
            shape, dtype = headers.pop(CONFIG_KEY)
            if shape != () or dtype.kind != "U" or dtype.itemsize > 1 << 20:
                raise CheckpointError(f"checkpoint {p!r}: entry {CONFIG_KEY!r} is not a "
                                      "config string")
            with z.open(CONFIG_KEY + ".npy") as fh:
                cfg = str(np.lib.format.read_array(fh, allow_pickle=False)[()])

    def read(k):
        with zipfile.ZipFile(p) as z, z.open(k + ".npy") as fh:
            return np.lib.format.read_array(fh, allow_pickle=False)

    return CheckpointArrays(p, headers, read), cfg


def load_arrays(path):
    """``(arrays, config_or_None)`` of a ``.safetensors`` or ``.npz`` file (never pickle).

    ``arrays`` is a :class:`CheckpointArrays`: headers are read now, each entry's data only
    when accessed. Every failure to read the file is a :class:`CheckpointError` naming it."""
    fmt = _fmt(path)
    p = _check_path(path)
    try:
        arrays, cfg = _open_safetensors(p) if fmt == "safetensors" else _open_npz(p)
    except CheckpointError:
        raise
    except Exception as exc:  # SafetensorError, BadZipFile, OSError, a malformed npy header
        raise CheckpointError(f"checkpoint {p!r}: cannot read it as a {fmt} file "
                              f"({type(exc).__name__}: {exc})".replace("\n", " ")) from None
    if cfg is not None:
        try:
            cfg = PLDRConfig.from_json(cfg)
        except ValueError as exc:
            raise CheckpointError(f"checkpoint {p!r}: its embedded config is invalid: {exc}"
                                  ) from None
    return arrays, cfg
