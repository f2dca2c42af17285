"""Input conversion and validation, shared by every public entry point of :mod:`pyref`.

:func:`conv` turns array-likes into backend arrays (inside the backend's precision
context); the ``need_*`` functions validate arrays and raise ``ValueError`` messages of
the form ``"<function>: <what> <expected>, got <value>"``; :func:`check_tokens`,
:func:`prepare_kvcache` and :func:`prepare_gcache` validate a model call's tokens and
caches.  Nothing here computes: errors are raised before any model arithmetic.
"""
from __future__ import annotations

import numpy as np

from .backend import Backend


# ================================================================================ arrays
def conv(b: Backend, *arrays):
    """Arrays in backend ``b`` (None passes through); call inside ``b.context()``."""
    return [None if a is None else b.asarray(a) for a in arrays]


def need_square(name, M):
    """Raise unless M is a stack of square matrices [..., d_k, d_k]."""
    if M.ndim < 2 or M.shape[-1] != M.shape[-2]:
        raise ValueError(f"{name}: expected [..., d_k, d_k], got shape {M.shape}")


def need_finite(b: Backend, fn: str, name: str, a) -> None:
    """Raise unless every entry of ``a`` is finite."""
    ok = np.asarray(b.isfinite(a), dtype=bool)
    if not np.all(ok):
        idx = tuple(int(i) for i in np.argwhere(~ok)[0]) if ok.ndim else ()
        raise ValueError(f"{fn}: {name} must be finite, got a non-finite entry at index {idx}")


def need_shape(fn: str, name: str, a, shape) -> None:
    """Raise unless ``a.shape`` matches ``shape`` (a tuple; ``None`` entries match any size)."""
    if a.ndim != len(shape) or any(s is not None and s != t for s, t in zip(shape, a.shape)):
        want = "[" + ", ".join("·" if s is None else str(s) for s in shape) + "]"
        raise ValueError(f"{fn}: {name} must have shape {want}, got shape {tuple(a.shape)}")


def need_range(fn: str, name: str, a, lo, hi, lo_open: bool = False, hi_open: bool = False) -> None:
    """Raise unless every entry of ``a`` lies in the interval (lo, hi) with the given openness
    (``None`` = unbounded on that side)."""
    a = np.asarray(a)
    ok = np.ones(a.shape, dtype=bool)
    if lo is not None:
        ok &= np.asarray((a > lo) if lo_open else (a >= lo), dtype=bool)
    if hi is not None:
        ok &= np.asarray((a < hi) if hi_open else (a <= hi), dtype=bool)
    if not np.all(ok):
        bad = np.argwhere(~ok)[0] if a.ndim else ()
        idx = tuple(int(i) for i in bad)
        val = a[idx] if a.ndim else a[()]
        lo_s = "-inf" if lo is None else repr(lo)
        hi_s = "inf" if hi is None else repr(hi)
        left = "(" if lo_open or lo is None else "["
        right = ")" if hi_open or hi is None else "]"
        iv = left + f"{lo_s}, {hi_s}" + right
        where = f" at index {idx}" if a.ndim else ""
        raise ValueError(f"{fn}: {name} must lie in {iv}, got {float(val)!r}{where}")


def need_int(fn: str, name: str, n, lo: int = 0) -> int:
    """Raise unless ``n`` is an int ≥ ``lo`` (bool rejected); return it as an int."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < lo:
        raise ValueError(f"{fn}: {name} must be an int ≥ {lo}, got {n!r}")
    return int(n)


def check_finite(b: Backend, name, M):
    """Raise if a backend array has a non-finite entry."""
    if not np.all(b.isfinite(M)):
        raise ValueError(f"{name}: contains non-finite values")


# ================================================================================ model calls
def check_tokens(tokens, vocab_size, what="tokens"):
    """Token ids [batch, S] (ints in [0, vocab_size)), returned as int64."""
    t = np.asarray(tokens)
    if t.size == 0:   # np.asarray([]) is float64: say what is wrong, not the dtype
        raise ValueError(f"{what}: empty prompt (shape {t.shape}); give at least one token id")
    if t.dtype == object or t.dtype.kind not in "iu":
        raise ValueError(f"{what}: expected integer token ids, got dtype {t.dtype}")
    if t.ndim != 2:
        raise ValueError(f"{what}: expected shape [batch, S], got {t.shape}")
    if t.shape[0] < 1 or t.shape[1] < 1:
        raise ValueError(f"{what}: empty batch or sequence, shape {t.shape}")
    idx = _first_outside(t, vocab_size)
    if idx is not None:
        raise ValueError(f"{what}: token id {int(t[idx])} at index {idx} is out of range [0, "
                         f"{vocab_size})")
    return t.astype(np.int64)


def _first_outside(a: np.ndarray, stop: int):
    """The index (tuple) of the first entry of the integer array ``a`` outside [0, stop), or
    None."""
    bad = (a < 0) | (a >= stop)
    return tuple(int(i) for i in np.argwhere(bad)[0]) if bad.any() else None


def check_operator_shape(name, M, config, B):
    """A per-layer operator: [H, d_k, d_k] or [B | 1, H, d_k, d_k]."""
    H, dk = config.num_heads, config.d_k
    shp = np.shape(M)
    ok = shp == (H, dk, dk) or (len(shp) == 4 and shp[1:] == (H, dk, dk) and shp[0] in (1, B))
    if not ok:
        raise ValueError(f"{name}: expected shape [{B} or 1, {H}, {dk}, {dk}] "
                         f"or [{H}, {dk}, {dk}], got {shp}")


def _kv_entry(b: Backend, li, e, B, H, dk, with_A, T0):
    n_items = 3 if with_A else 2
    if not isinstance(e, (list, tuple)) or len(e) != n_items:
        raise ValueError(f"kvcache[{li}]: expected [K, V{', A' if n_items == 3 else ''}] "
                         f"({n_items} arrays)")
    K, Vv = np.asarray(e[0]), np.asarray(e[1])
    if K.ndim != 4 or K.shape[0] != B or K.shape[2:] != (H, dk) or Vv.shape != K.shape:
        raise ValueError(f"kvcache[{li}]: K and V must be [{B}, T, {H}, {dk}], got {K.shape} and "
                         f"{Vv.shape}")
    T0 = K.shape[1] if T0 is None else T0
    if K.shape[1] != T0 or T0 < 1:
        raise ValueError(f"kvcache[{li}]: cached length {K.shape[1]} differs from layer 0's {T0} "
                         "(or is 0)")
    item = [b.asarray(K), b.asarray(Vv)]
    if with_A:
        A = np.asarray(e[2])
        if A.shape != (B, H, dk, dk):
            raise ValueError(f"kvcache[{li}]: A must be [{B}, {H}, {dk}, {dk}], got {A.shape}")
        item.append(b.asarray(A))
    for nm, arr in zip("KVA", item):
        check_finite(b, f"kvcache[{li}].{nm}", arr)
    return item, T0


def prepare_kvcache(b: Backend, kvcache, config, B, S, with_A):
    """Validate and convert a KV-cache (per layer [K̂, V] or, ``with_A``, [K̂, V, A]) for a
    cached call on [B, S] tokens; returns (converted cache, cached length T0)."""
    L, H, dk = config.num_layers, config.num_heads, config.d_k
    if not isinstance(kvcache, (list, tuple)) or len(kvcache) != L:
        n = len(kvcache) if hasattr(kvcache, "__len__") else "?"
        raise ValueError(f"kvcache: expected a list of {L} per-layer caches, got "
                         f"{type(kvcache).__name__} of length {n}")
    if S != 1:
        raise ValueError(f"kvcache: a cached call takes exactly one new token per sequence "
                         f"(authors' v510 semantics), got S={S}")
    out, T0 = [], None
    for li, e in enumerate(kvcache):
        item, T0 = _kv_entry(b, li, e, B, H, dk, with_A, T0)
        out.append(item)
    return out, T0


def prepare_gcache(b: Backend, gcache, config, B):
    """Validate and convert a G-cache: per layer [A_LM, G_LM]."""
    L = config.num_layers
    if not isinstance(gcache, (list, tuple)) or len(gcache) != L:
        raise ValueError(f"gcache: expected a list of {L} per-layer [A_LM, G_LM] pairs")
    out = []
    for li, e in enumerate(gcache):
        if not isinstance(e, (list, tuple)) or len(e) != 2:
            raise ValueError(f"gcache[{li}]: expected [A_LM, G_LM]")
        item = []
        for nm, M in zip(("A_LM", "G_LM"), e):
            check_operator_shape(f"gcache[{li}].{nm}", M, config, B)
            M = b.asarray(M)
            check_finite(b, f"gcache[{li}].{nm}", M)
            item.append(M)
        out.append(item)
    return out


def check_constant_operators(G, config):
    """The per-layer operators of a constant-operator model: a list of L arrays [H, d_k, d_k]
    (or [1, H, d_k, d_k]); None means the identity.  Returns float64 copies (object arrays
    of mpf/strings are kept as object arrays)."""
    L, H, dk = config.num_layers, config.num_heads, config.d_k
    if G is None:
        G = [np.broadcast_to(np.eye(dk), (H, dk, dk)) for _ in range(L)]
    if not isinstance(G, (list, tuple)) or len(G) != L:
        raise ValueError(f"ConstantGModel: G must be a list of {L} per-layer operators")
    out = []
    for li, g in enumerate(G):
        a = np.asarray(g)
        if a.ndim == 4 and a.shape[0] == 1:
            a = a[0]
        if a.shape != (H, dk, dk):
            raise ValueError(f"ConstantGModel: G[{li}] must be [{H}, {dk}, {dk}] (or [1, ...]), "
                             f"got {a.shape}")
        if a.dtype != object:
            if a.dtype.kind != "f" and a.dtype.kind not in "iu":
                raise ValueError(f"ConstantGModel: G[{li}] has dtype {a.dtype}, expected floats")
            a = a.astype(np.float64)
            if not np.all(np.isfinite(a)):
                raise ValueError(f"ConstantGModel: G[{li}] contains non-finite values")
        out.append(a.copy())
    return out


# ================================================================================ HF-port calls
def check_attention_mask(mask, B, T, what="attention_mask"):
    """An HF attention mask [B, T] of 0/1 or bools (1 = attend; T = cached + new tokens),
    returned as a bool array."""
    a = np.asarray(mask)
    if a.dtype == object or a.dtype.kind not in "biuf":
        raise ValueError(f"{what}: expected 0/1 ints or bools, got dtype {a.dtype}")
    if a.shape != (B, T):
        raise ValueError(f"{what}: expected shape [{B}, {T}] (batch, cached + new tokens), "
                         f"got {a.shape}")
    if a.dtype.kind != "b":
        bad = (a != 0) & (a != 1)
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise ValueError(f"{what}: entries must be 0 or 1, got {a[idx]!r} at index {idx}")
    return a.astype(bool)


def check_position_ids(pos, B, S, max_seq_len, what="position_ids"):
    """HF position ids [B | 1, S] (or [S]) of ints in [0, max_seq_len), returned as int64
    [P, S] (P = B or 1)."""
    a = np.asarray(pos)
    if a.dtype == object or a.dtype.kind not in "iu":
        raise ValueError(f"{what}: expected integer positions, got dtype {a.dtype}")
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim != 2 or a.shape[1] != S or a.shape[0] not in (1, B):
        raise ValueError(f"{what}: expected shape [{B} or 1, {S}], got {np.shape(pos)}")
    idx = _first_outside(a, max_seq_len)
    if idx is not None:
        raise ValueError(f"{what}: position {int(a[idx])} at index {idx} is out of range "
                         f"[0, {max_seq_len}) (max_seq_len: the port's RoPE table length)")
    return a.astype(np.int64)
