"""One-line reasons why a locked theorem has no numeric cross-check property, and the
coverage table (theorem -> its properties and justification).

Each property module declares its own ``JUSTIFY`` dict next to its properties (the module
mirroring the theorem's Lean file); this module merges them."""

from __future__ import annotations

from pathlib import Path

from . import properties
from .registry import LOCK, locked_theorems


def _collect() -> dict[str, str]:
    out: dict[str, str] = {}
    where: dict[str, str] = {}
    for mod in properties.MODULES:
        for k, v in getattr(mod, "JUSTIFY", {}).items():
            if k in out:
                raise ValueError(f"theorem {k} justified twice (in {where[k]} and {mod.__name__})")
            out[k], where[k] = v, mod.__name__
    return out


JUSTIFICATIONS: dict[str, str] = _collect()


def coverage(lock: Path = LOCK) -> dict[str, dict]:
    """theorem -> {"properties": [...], "justification": str | None}."""
    props = properties.load_properties()
    out = {}
    for name in locked_theorems(lock):
        out[name] = {"properties": [p.name for p in props.values() if name in p.theorems],
                     "justification": JUSTIFICATIONS.get(name)}
    return out
