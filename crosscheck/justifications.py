"""One-line reasons why a locked theorem has no numeric cross-check property.

Each property module declares its own ``JUSTIFY`` dict next to its properties (one place
per topic); this module merges them."""

from __future__ import annotations

import importlib
import pkgutil


def _collect() -> dict[str, str]:
    from . import properties
    out: dict[str, str] = {}
    for info in pkgutil.iter_modules(properties.__path__):
        if info.name.startswith("_"):
            continue
        mod = importlib.import_module(f"{properties.__name__}.{info.name}")
        for k, v in getattr(mod, "JUSTIFY", {}).items():
            if k in out:
                raise ValueError(f"theorem {k} justified twice (in {info.name} and elsewhere)")
            out[k] = v
    return out


JUSTIFICATIONS: dict[str, str] = _collect()
