"""A safe reader of PyTorch files: no torch import, and no pickle code ever runs.

Formats: **zip** (torch >= 1.6): ``<archive>/data.pkl`` names each storage by the persistent id
``('storage', StorageClass, key, location, numel)``; its raw bytes are the member
``<archive>/data/<key>`` (byte order: ``<archive>/byteorder``). **Legacy** (pre-1.6): pickles of
the magic number 0x1950a86a20f9469cfc6c, the version 1001, a sys-info dict, the object (ids
``(..., numel, view)``) and the storage keys, then per storage an 8-byte little-endian element
count and the bytes. **Plain pickles of tensors** (the authors' G lists): each storage is
``torch.storage._load_from_bytes(<legacy torch.save bytes>)``, parsed by the legacy reader.
The tar format of torch < 0.4 is refused with a message saying how to convert it.

Every global resolves through an allow-list of OUR stand-ins (``collections.OrderedDict``, the
``torch._utils._rebuild_*`` tensor/parameter functions, ``torch._tensor._rebuild_from_type_v2``,
``torch.Tensor``, ``torch.nn.parameter.Parameter``, the storage classes); any other global
raises :class:`UnsafePickleError` naming it and the file before anything is called or imported.
Tensors unpickle as lazy :class:`TensorRef` descriptors; reading one reads only its span of the
storage and rebuilds the view from the stored offset/size/stride (elements).  bfloat16 widens
exactly to float32 (its bits are the high half of a float32); float16 stays float16.
"""
from __future__ import annotations

import _compat_pickle
import io
import mmap
import os
import pickle
import struct
import zipfile
from collections import OrderedDict

import numpy as np

from .checkpoint import CheckpointArrays, CheckpointError, _check_path

__all__ = ["UnsafePickleError", "TensorRef", "TorchArray", "read_torch", "read_state_dict",
           "read_tensor_list", "LEGACY_MAGIC"]

LEGACY_MAGIC = 0x1950A86A20F9469CFC6C   # first pickle of a legacy torch.save file
LEGACY_PROTOCOL = 1001                  # its second pickle
WRAPPER_KEY = "model_state_dict"        # the authors' save_model / fsdp_save_model dict
PREFIXES = ("_orig_mod.", "module.")    # torch.compile, DistributedDataParallel

#: torch dtype name -> (safetensors name, numpy dtype of the stored bits, little-endian)
_DTYPES = {"float32": ("F32", "<f4"), "float64": ("F64", "<f8"), "float16": ("F16", "<f2"),
           "bfloat16": ("BF16", "<u2"), "int64": ("I64", "<i8"), "int32": ("I32", "<i4"),
           "int16": ("I16", "<i2"), "int8": ("I8", "|i1"), "uint8": ("U8", "|u1"),
           "bool": ("BOOL", "|b1")}
#: storage class -> torch dtype name
_STORAGE_CLASSES = {"FloatStorage": "float32", "DoubleStorage": "float64",
                    "HalfStorage": "float16", "BFloat16Storage": "bfloat16",
                    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
                    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
                    "UntypedStorage": "uint8"}


class UnsafePickleError(CheckpointError):
    """The pickle references a global outside the allow-list; nothing was called or imported.
    The message names the global (``module.name``) and the file."""


class Malformed(ValueError):
    """A format error inside a torch file (re-raised as a CheckpointError naming the file)."""


class _Inert:
    """Base of what the unpickler hands out: no ``__dict__``; BUILD (set state) is refused."""
    __slots__ = ()

    def __setstate__(self, state):
        raise Malformed(f"the pickle tries to set the state of a {type(self).__name__} (BUILD)")


class _Kind(_Inert):
    """Stand-in for a storage class (``torch.FloatStorage``): its element type; not callable."""
    __slots__ = ("name", "safetensors", "raw")

    def __init__(self, name):
        self.name, self.safetensors, self.raw = name, _DTYPES[name][0], np.dtype(_DTYPES[name][1])


class _Func(_Inert):
    """Stand-in for an allowed torch function ``f`` (``f`` None: a type only passed around,
    ``torch.Tensor``; calling it is refused)."""
    __slots__ = ("f", "name")

    def __init__(self, f, name):
        self.f, self.name = f, name

    def __call__(self, *args):
        if self.f is None:
            raise Malformed(f"the pickle calls {self.name}")
        return self.f(*args)


class _Span:
    """Where a storage's bytes are: from byte ``pos`` (None until known; for a zip member
    ``zinfo``, from its local header) of a file (``where``: path) or of a bytes buffer."""
    __slots__ = ("where", "pos", "zinfo")

    def __init__(self, where, pos=None, zinfo=None):
        self.where, self.pos, self.zinfo = where, pos, zinfo

    def read(self, off, dtype: np.dtype, count: int) -> np.ndarray:
        """``count`` elements of ``dtype`` from byte ``pos + off``, as a fresh 1-D array."""
        if isinstance(self.where, bytes):
            start, end = self.pos + off, self.pos + off + count * dtype.itemsize
            if end > len(self.where):
                raise Malformed(f"storage bytes end at {len(self.where)}, need {end}")
            return np.frombuffer(self.where, dtype, count, start).copy()
        with open(self.where, "rb") as f:
            if self.pos is None:
                self.pos = _zip_data_offset(f, self.zinfo)
            return _read_exact(f, self.pos + off, dtype, count)


def _zip_data_offset(f, info) -> int:
    """Where a STORED zip member's data starts: after the 30-byte local header, name, extra."""
    f.seek(info.header_offset)
    h = f.read(30)
    if len(h) < 30 or h[:4] != b"PK\x03\x04":
        raise Malformed(f"zip member {info.filename!r}: no local header at {info.header_offset}")
    n_name, n_extra = struct.unpack("<HH", h[26:30])
    return info.header_offset + 30 + n_name + n_extra


def _read_exact(f, pos, dtype, count) -> np.ndarray:
    """``count`` elements of ``dtype`` at byte ``pos`` of ``f``, read once into fresh memory
    (large: a pre-faulted anonymous mapping; numpy's huge-page advice made faults 2-3x slower)."""
    n = count * dtype.itemsize
    if n >= 1 << 20 and hasattr(mmap, "MAP_ANONYMOUS"):
        flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | getattr(mmap, "MAP_POPULATE", 0)
        buf = np.frombuffer(mmap.mmap(-1, n, flags=flags), dtype)
    else:
        buf = np.empty(count, dtype)
    mv, got = memoryview(buf).cast("B"), 0
    f.seek(pos)
    while got < len(mv):
        k = f.readinto(mv[got:])
        if not k:
            raise Malformed(f"file ends at byte {pos + got}, the storage needs "
                            f"{len(mv) - got} more bytes (truncated file?)")
        got += k
    return buf


class _Storage(_Inert):
    """A storage of the file (nothing read): element kind, element count, key, bytes location
    (``span``), element offset into it (``shift``: legacy storage views), byte order."""
    __slots__ = ("kind", "numel", "key", "span", "shift", "big")

    def __init__(self, kind, numel, key, span, shift=0, big=False):
        self.kind, self.numel, self.key = kind, numel, key
        self.span, self.shift, self.big = span, shift, big

    def read(self, start, count) -> np.ndarray:
        """Elements ``[start, start + count)`` as stored bits (fresh 1-D array)."""
        d = self.kind.raw.newbyteorder(">") if self.big else self.kind.raw
        return self.span.read((self.shift + start) * d.itemsize, d, count)


def _c_contiguous(shape, stride) -> bool:
    return all(n == 1 or s == int(np.prod(shape[i + 1:], dtype=object))
               for i, (n, s) in enumerate(zip(shape, stride)))


class TensorRef(_Inert):
    """A tensor of a torch file, not yet read (:meth:`numpy` reads it): ``shape``, ``stride``,
    ``offset`` (elements), ``dtype`` (numpy, as read), ``stored_dtype`` (torch name of the
    stored bits: "float32", "bfloat16", …), ``safetensors_dtype`` ("F32", "BF16", …)."""
    __slots__ = ("storage", "offset", "shape", "stride")

    def __init__(self, storage, offset, shape, stride):
        self.storage, self.offset, self.shape, self.stride = storage, offset, shape, stride

    @property
    def stored_dtype(self) -> str:
        return self.storage.kind.name

    @property
    def safetensors_dtype(self) -> str:
        return self.storage.kind.safetensors

    @property
    def dtype(self) -> np.dtype:
        kind = self.storage.kind
        return np.dtype(np.float32) if kind.name == "bfloat16" else kind.raw.newbyteorder("=")

    def numpy(self) -> np.ndarray:
        """The tensor as a read-only numpy array.  Only its span of the storage is read (so
        memory stays within the file's size); a C-contiguous tensor is a reshape of the span,
        any other view is rebuilt with the stored strides (copied when the span holds
        elements outside the tensor)."""
        shape, stride = self.shape, self.stride
        n = int(np.prod(shape, dtype=object))
        if n == 0:
            a = np.empty(shape, self.dtype)
        else:
            span = 1 + sum((k - 1) * s for k, s in zip(shape, stride))
            raw = self.storage.read(self.offset, span)          # [span] stored bits
            if self.storage.big and raw.dtype.itemsize > 1:
                raw = raw.astype(raw.dtype.newbyteorder("<"))
            if self.stored_dtype == "bfloat16":                 # exact: bf16 = high half of f32
                w = raw.astype(np.uint32)
                w <<= 16
                raw = w.view(np.float32)
            if _c_contiguous(shape, stride):
                a = raw.reshape(shape)
            else:
                a = np.lib.stride_tricks.as_strided(
                    raw, shape, tuple(s * raw.itemsize for s in stride), writeable=False)
                if span > n:          # do not keep elements outside the view alive
                    a = a.copy()
        a.flags.writeable = False
        return a


class TorchArray(np.ndarray):
    """A numpy array read from a torch file (what :func:`read_torch` returns for a tensor);
    ``stored_dtype`` is the torch dtype name of the stored bits ("float32", "bfloat16",
    "float16", …): a bfloat16 tensor reads as float32 with ``stored_dtype == "bfloat16"``."""

    def __array_finalize__(self, obj):
        self.stored_dtype = getattr(obj, "stored_dtype", None)


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _tensor_ref(storage, offset, size, stride, metadata=None) -> TensorRef:
    """Validate the arguments of a ``_rebuild_tensor*`` call and describe the tensor."""
    if not isinstance(storage, _Storage):
        raise Malformed(f"a tensor's storage is a {type(storage).__name__}, not a storage")
    if not (_is_int(offset) and offset >= 0 and isinstance(size, tuple)
            and isinstance(stride, tuple) and len(size) == len(stride)
            and all(_is_int(v) and v >= 0 for v in size + stride)):
        raise Malformed(f"tensor of storage {storage.key!r}: bad offset/size/stride "
                        f"{offset!r:.40}/{size!r:.80}/{stride!r:.80}")
    if metadata and any(metadata.values()):
        raise Malformed(f"tensor of storage {storage.key!r} has conj/neg bits {metadata!r}")
    end = offset + 1 + sum((k - 1) * s for k, s in zip(size, stride))
    if 0 not in size and end > storage.numel:
        raise Malformed(f"tensor {size} at offset {offset} with stride {stride} reaches "
                        f"element {end} of storage {storage.key!r}, which has {storage.numel}")
    return TensorRef(storage, offset, size, stride)


def _rebuild_v2(storage, storage_offset, size, stride, requires_grad=False,
                backward_hooks=None, metadata=None):
    return _tensor_ref(storage, storage_offset, size, stride, metadata)


def _rebuild_parameter(data, requires_grad=False, backward_hooks=None, state=None):
    if not isinstance(data, TensorRef):
        raise Malformed(f"a Parameter's data is a {type(data).__name__}, not a tensor")
    return data


_U = "torch._utils."
_REBUILDS = {n: _Func(f, n) for n, f in (
    (_U + "_rebuild_tensor_v2", _rebuild_v2), (_U + "_rebuild_tensor", _tensor_ref),
    (_U + "_rebuild_parameter", _rebuild_parameter),
    (_U + "_rebuild_parameter_with_state", _rebuild_parameter))}
_TYPES = {n: _Func(None, n) for n in ("torch.Tensor", "torch.nn.parameter.Parameter")}


def _rebuild_from_type_v2(func, new_type, args, state):
    if not (func in _REBUILDS.values() and new_type in _TYPES.values()
            and isinstance(args, tuple)):
        raise Malformed("_rebuild_from_type_v2 with an unexpected function or type")
    return func(*args)


#: every global a pickle may name -> our stand-in (OrderedDict: a plain data container)
_ALLOWED = {"collections.OrderedDict": OrderedDict, **_REBUILDS, **_TYPES,
            "torch._tensor._rebuild_from_type_v2": _Func(_rebuild_from_type_v2,
                                                         "_rebuild_from_type_v2"),
            **{f"torch.{c}": _Kind(d) for c, d in _STORAGE_CLASSES.items()}}


class _Unpickler(pickle.Unpickler):
    """Resolves globals only through :data:`_ALLOWED` (plus ``extra``) and persistent ids
    only through ``storage_of`` (None: persistent ids are refused)."""

    def __init__(self, file, where, storage_of=None, extra=None):
        super().__init__(file)
        self._where, self._storage_of = where, storage_of
        self._allowed = {**_ALLOWED, **(extra or {})}

    def find_class(self, module, name):
        module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
        module = _compat_pickle.IMPORT_MAPPING.get(module, module)    # protocol-2 names
        obj = self._allowed.get(f"{module}.{name}")
        if obj is None:
            raise UnsafePickleError(
                f"checkpoint {self._where}: the pickle references the global "
                f"'{module}.{name}', which is not on the allow-list (tensors, storages and "
                "plain containers); refused before calling or importing anything")
        return obj

    def persistent_load(self, pid):
        if self._storage_of is None:
            raise Malformed(f"unexpected persistent id {pid!r:.80} outside a torch.save pickle")
        return self._storage_of(pid)


def _storage_pid(pid, n):
    """Check a persistent id ``('storage', kind, key, location, numel[, view])``."""
    if not (isinstance(pid, tuple) and len(pid) == n and pid[0] == "storage"):
        raise Malformed(f"persistent id {pid!r:.100} is not ('storage', type, key, "
                        f"location, numel{', view' if n == 6 else ''})")
    kind, key, numel = pid[1], pid[2], pid[4]
    if not (isinstance(kind, _Kind) and isinstance(key, str) and _is_int(numel) and numel >= 0):
        raise Malformed(f"persistent id {pid!r:.100}: expected a storage class, a str key "
                        "and an element count")
    return kind, key, numel


def _cached(storages, kind, key, numel, make):
    """One storage per key; every reference to a key must agree on its type and size."""
    st = storages.get(key)
    if st is None:
        st = storages[key] = make()
    elif st.kind.name != kind.name or st.numel != numel:
        raise Malformed(f"storage {key!r} is referenced as {st.kind.name}[{st.numel}] and "
                        f"as {kind.name}[{numel}]")
    return st


def _load_zip(p):
    """The object of a zip-format torch.save file, tensors as TensorRef."""
    try:
        zf = zipfile.ZipFile(p)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise Malformed(f"not a readable zip archive ({exc}); truncated or corrupt?") from None
    with zf:
        pkls = [n for n in zf.namelist() if n.endswith("/data.pkl") and n.count("/") == 1]
        if len(pkls) != 1:
            raise Malformed(f"zip archive with {len(pkls)} '<archive>/data.pkl' members, "
                            "expected 1: not a torch.save file")
        prefix = pkls[0][:-len("data.pkl")]
        infos = {i.filename: i for i in zf.infolist()}
        order = zf.read(prefix + "byteorder") if prefix + "byteorder" in infos else b"little"
        if order not in (b"little", b"big"):
            raise Malformed(f"{prefix}byteorder says {order[:20]!r}, expected little or big")
        data = zf.read(pkls[0])
    storages: dict = {}

    def storage_of(pid):
        kind, key, numel = _storage_pid(pid, 5)

        def make():
            info = infos.get(f"{prefix}data/{key}")
            if info is None:
                raise Malformed(f"storage {key!r}: the archive has no member "
                                f"'{prefix}data/{key}'")
            if info.flag_bits & 1 or info.compress_type != zipfile.ZIP_STORED:
                raise Malformed(f"member {info.filename!r} is compressed or encrypted; "
                                "torch.save stores storages uncompressed")
            if info.file_size != numel * kind.raw.itemsize:
                raise Malformed(f"member {info.filename!r} holds {info.file_size} bytes, its "
                                f"persistent id declares {numel} x {kind.name} = "
                                f"{numel * kind.raw.itemsize} bytes")
            return _Storage(kind, numel, key, _Span(p, zinfo=info), big=order == b"big")
        return _cached(storages, kind, key, numel, make)

    return _Unpickler(io.BytesIO(data), f"{p!r} ({pkls[0]})", storage_of).load()


def _load_legacy(f, where, span_where, size):
    """The object of a legacy torch.save stream ``f`` after its magic number; the storage bytes
    are in ``span_where`` (the file's path or the bytes buffer, of ``size`` bytes)."""
    proto = _Unpickler(f, where).load()
    if proto != LEGACY_PROTOCOL:
        raise Malformed(f"legacy protocol version {proto!r:.40}, expected {LEGACY_PROTOCOL}")
    sys_info = _Unpickler(f, where).load()
    if not isinstance(sys_info, dict) or sys_info.get("little_endian") is not True:
        raise Malformed("legacy torch file written on a big-endian machine (or without sys "
                        "info); only little-endian legacy files are supported")
    storages: dict = {}

    def storage_of(pid):
        kind, key, numel = _storage_pid(pid, 6)
        root = _cached(storages, kind, key, numel,
                       lambda: _Storage(kind, numel, key, _Span(span_where)))
        view = pid[5]                       # (view key, element offset, element count)
        if view is None:
            return root
        if not (isinstance(view, tuple) and len(view) == 3 and isinstance(view[0], str)
                and _is_int(view[1]) and _is_int(view[2]) and view[1] >= 0 and view[2] >= 0
                and view[1] + view[2] <= numel):
            raise Malformed(f"storage {key!r}: bad view {view!r:.80} of {numel} elements")
        return _Storage(kind, view[2], view[0], root.span, view[1])

    obj = _Unpickler(f, where, storage_of).load()
    keys = _Unpickler(f, where).load()
    if not (isinstance(keys, list) and all(isinstance(k, str) for k in keys)):
        raise Malformed("the legacy storage-key list is not a list of str")
    if set(keys) != set(storages):
        raise Malformed(f"storages referenced {sorted(storages)[:5]} and stored "
                        f"{sorted(keys)[:5]} differ")
    pos = f.tell()
    for key in keys:                        # [8-byte element count][raw bytes] per storage
        st = storages[key]
        f.seek(pos)
        head = f.read(8)
        count = int.from_bytes(head, "little") if len(head) == 8 else -1
        if count != st.numel:
            raise Malformed(f"storage {key!r}: the file stores {count} elements (-1: "
                            f"truncated), its persistent id declares {st.numel}")
        st.span.pos = pos + 8
        pos += 8 + count * st.kind.raw.itemsize
    if pos > size:
        raise Malformed(f"the storages need {pos} bytes, the data has {size} (truncated?)")
    return obj


def _load_from_bytes_for(where):
    """``torch.storage._load_from_bytes``: legacy torch.save bytes parsed by _load_legacy."""
    def load_from_bytes(b):   # [legacy torch.save bytes] -> storage
        if not isinstance(b, bytes):
            raise Malformed(f"_load_from_bytes of a {type(b).__name__}")
        inner, bio = f"{where} (storage bytes)", io.BytesIO(b)
        if _Unpickler(bio, inner).load() != LEGACY_MAGIC:
            raise Malformed("_load_from_bytes: the bytes are not a legacy torch.save")
        st = _load_legacy(bio, inner, b, len(b))
        if not isinstance(st, _Storage):
            raise Malformed(f"_load_from_bytes holds a {type(st).__name__}, not a storage")
        return st
    return _Func(load_from_bytes, "torch.storage._load_from_bytes")


def _load(path):
    """``(object with TensorRef leaves, format, path)``; every failure a CheckpointError."""
    p = _check_path(path)
    try:
        with open(p, "rb") as f:
            head = f.read(262)
            if head[:4] == b"PK\x03\x04":
                return _load_zip(p), "torch-zip", p
            if head[257:262] == b"ustar":
                raise Malformed("this is the tar format of torch < 0.4, which pyref does not "
                                "read; convert it once with an old torch (load it, then "
                                "torch.save it again) in an environment you trust, since "
                                "loading it runs its pickle")
            f.seek(0)      # a legacy torch.save, or a plain pickle of tensors (the G lists)
            extra = {"torch.storage._load_from_bytes": _load_from_bytes_for(repr(p))}
            first = _Unpickler(f, repr(p), extra=extra).load()
            if not (_is_int(first) and first == LEGACY_MAGIC):
                return first, "pickle", p
            return _load_legacy(f, repr(p), p, os.fstat(f.fileno()).st_size), "torch-legacy", p
    except CheckpointError:
        raise
    except Exception as exc:  # Malformed, UnpicklingError, EOFError, TypeError, OSError, ...
        raise _error(p, exc) from None


def _error(p, exc) -> CheckpointError:
    what = str(exc) if isinstance(exc, Malformed) else f"{type(exc).__name__}: {exc}"
    return CheckpointError(f"checkpoint {p!r}: cannot read it as a PyTorch file: "
                           f"{what}".replace("\n", " "))


def _materialize(obj, memo):
    """``obj`` with each TensorRef (bare storage: 1-D) read as a TorchArray; sharing kept."""
    if id(obj) in memo:
        return memo[id(obj)]
    if isinstance(obj, (TensorRef, _Storage)):
        ref = obj if isinstance(obj, TensorRef) else TensorRef(obj, 0, (obj.numel,), (1,))
        out = ref.numpy().view(TorchArray)
        out.stored_dtype = ref.stored_dtype
    elif isinstance(obj, dict):
        out = memo[id(obj)] = OrderedDict() if isinstance(obj, OrderedDict) else {}
        for k, v in obj.items():
            out[k] = _materialize(v, memo)
    elif isinstance(obj, list):
        out = memo[id(obj)] = []
        out.extend(_materialize(v, memo) for v in obj)
    elif isinstance(obj, tuple):
        out = tuple(_materialize(v, memo) for v in obj)
    else:
        out = obj
    memo[id(obj)] = out
    return out


def _materialized(p, obj):
    try:
        return _materialize(obj, {})
    except Exception as exc:  # Malformed (truncated storage), OSError, RecursionError
        raise _error(p, exc) from None


def read_torch(path, lazy: bool = False):
    """The object stored in a torch.save file (zip or legacy format) or in a plain pickle of
    tensors, read without torch and without running pickle code.

    Containers come back as dict/OrderedDict/list/tuple, scalars as Python scalars, each
    tensor as a read-only :class:`TorchArray` (``.stored_dtype`` = "float32", "bfloat16",
    "float16", …; bf16 is widened exactly to float32).  ``lazy=True``: tensors come back as
    :class:`TensorRef` (shape/dtype known, nothing read; ``.numpy()`` reads one).
    A global outside the allow-list raises :class:`UnsafePickleError`; any other problem a
    :class:`~pyref.checkpoint.CheckpointError` naming the file."""
    obj, _, p = _load(path)
    return obj if lazy else _materialized(p, obj)


def _describe(obj) -> str:
    if isinstance(obj, TensorRef):
        return f"a {obj.stored_dtype} tensor of shape {obj.shape}"
    if isinstance(obj, dict):
        keys = ", ".join(repr(k) for k in list(obj)[:6]) + (", …" if len(obj) > 6 else "")
        return f"a dict with {len(obj)} keys [{keys}]"
    if isinstance(obj, (list, tuple)):
        return f"a {type(obj).__name__} of {len(obj)} items"
    return f"a {type(obj).__name__}"


def _scalar(v):
    """A wrapper value as JSON: a scalar as is, a one-element tensor as a float, else None."""
    if isinstance(v, TensorRef) and int(np.prod(v.shape, dtype=object)) == 1:
        return float(v.numpy().reshape(()))
    return v if v is None or isinstance(v, (bool, int, float, str)) else None


def _unwrap(obj):
    """``(state dict, wrapper?, wrapper keys, extra)`` of the top-level object."""
    if not (isinstance(obj, dict) and WRAPPER_KEY in obj):
        return obj, False, [], {"loss": None, "accuracy": None}
    extra = {k: _scalar(v) for k, v in obj.items()
             if isinstance(k, str) and k not in (WRAPPER_KEY, "optimizer_state_dict")}
    extra = {"loss": extra.pop("loss", None), "accuracy": extra.pop("accuracy", None),
             **{k: v for k, v in extra.items() if v is not None}}
    return obj[WRAPPER_KEY], True, [str(k) for k in obj], extra


def _check_state_dict(p, sd, wrapper) -> dict:
    if not isinstance(sd, dict) or not sd:
        raise CheckpointError(
            f"checkpoint {p!r}: {f'its {WRAPPER_KEY!r}' if wrapper else 'it'} holds "
            f"{_describe(sd)}, expected a state dict (a non-empty mapping of names to "
            f"tensors) or the wrapper dict with {WRAPPER_KEY!r}")
    for k, v in sd.items():
        if not isinstance(k, str) or not isinstance(v, TensorRef):
            raise CheckpointError(f"checkpoint {p!r}: state dict entry {k!r} is "
                                  f"{_describe(v)}, not a tensor (or its key is not a str)")
    return dict(sd)


def _strip_prefixes(sd):
    """Strip ``_orig_mod.`` / ``module.`` while EVERY key has one (in any order)."""
    stripped = []
    while (pre := next((q for q in PREFIXES if all(k.startswith(q) for k in sd)), None)):
        sd = {k[len(pre):]: v for k, v in sd.items()}
        stripped.append(pre)
    return sd, stripped


def read_state_dict(path):
    """``(arrays, info)`` of a v510 state dict in a .pth file (zip or legacy torch.save).

    Unwraps the authors' wrapper ``{'model_state_dict', 'optimizer_state_dict', 'loss',
    'accuracy'}`` or takes a bare state dict, strips ``_orig_mod.`` / ``module.`` when every
    key has it.  ``arrays``: a :class:`~pyref.checkpoint.CheckpointArrays` (headers known,
    entries read on access, ``.stored_dtypes`` key -> "F32"/"BF16"/"F16"/"F64"; the
    optimizer state is never read).  ``info``: ``{"format": "torch-zip"|"torch-legacy"|
    "pickle", "wrapper", "wrapper_keys", "stripped_prefixes", "extra": {"loss", "accuracy"}}``
    (``extra``: the wrapper's JSON-able scalars; loss/accuracy None when absent)."""
    obj, fmt, p = _load(path)
    try:
        sd, wrapper, wkeys, extra = _unwrap(obj)
    except Malformed as exc:     # a tensor-valued loss/accuracy that cannot be read
        raise _error(p, exc) from None
    sd, stripped = _strip_prefixes(_check_state_dict(p, sd, wrapper))
    headers = {k: (tuple(r.shape), r.dtype) for k, r in sd.items()}
    # CheckpointArrays names the file and key of any error of the read
    arrays = CheckpointArrays(p, headers, lambda key: sd[key].numpy())
    arrays.stored_dtypes = {k: r.safetensors_dtype for k, r in sd.items()}
    return arrays, {"format": fmt, "wrapper": wrapper, "wrapper_keys": wkeys,
                    "stripped_prefixes": stripped, "extra": extra}


def read_tensor_list(path) -> list:
    """The authors' predefined-G list (``[G_l]``, each ``[1, H, d_k, d_k]``) or NAB list
    (``[[A_LM_l, G_l]]``) of a pickle / torch file: a list of read-only float arrays
    (``TorchArray``) or of lists of them.  Anything else is a CheckpointError saying what
    the file holds."""
    obj, _, p = _load(path)
    if not isinstance(obj, (list, tuple)) or not obj:
        raise CheckpointError(f"checkpoint {p!r}: holds {_describe(obj)}, expected a list of "
                              "tensors (a predefined-G list) or of [A_LM, G] pairs")
    pairs = not isinstance(obj[0], TensorRef)
    for i, item in enumerate(obj):
        ts = list(item) if pairs and isinstance(item, (list, tuple)) else [item]
        if not (ts and all(isinstance(t, TensorRef) and t.dtype.kind == "f" for t in ts)
                and isinstance(item, TensorRef) != pairs):
            raise CheckpointError(f"checkpoint {p!r}: item {i} is {_describe(item)}; expected "
                                  "every item a floating-point tensor (a G list) or every item "
                                  "a list of them ([A_LM, G] pairs)")
    return [list(x) if pairs else x for x in _materialized(p, list(obj))]
