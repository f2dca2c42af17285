"""Cross-check properties; importing this package registers them.

The layout mirrors ``Formal/``: one module per Lean file (``Formal/Rope/Block.lean`` ->
``properties/rope/block.py``), holding the properties of that file's theorems and a
``JUSTIFY`` dict with a one-line reason for each of its theorems that has no numeric
counterpart (``metric.py`` is the template). A property checking theorems of several Lean
files lives in the module of its main one. Two modules mirror ``pyref`` instead: ``analysis.py``
and ``losses.py`` hold the properties of audit statistics and losses that the spec defines and no
Lean file does (``order_parameter``, ``ln_scale_error``, ``cache_deviation``, the
cross-entropies); each still names the Lean statements its check rests on. Modules whose name
starts with ``_`` hold shared helpers (``_arith``: backend conversion, error bounds and
majorants; ``_util``: shared model fixtures) and are not property modules."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from ..registry import PROPERTIES, Property


def _import_all() -> list[ModuleType]:
    """Import every property module of this package and its subpackages, in name order."""
    mods = []
    for info in sorted(pkgutil.walk_packages(__path__, prefix=f"{__name__}."),
                       key=lambda i: i.name):
        if any(part.startswith("_") for part in info.name.split(".")[2:]):
            continue
        mods.append(importlib.import_module(info.name))
    return mods


#: every imported property module (packages included: their ``JUSTIFY``, if any, counts)
MODULES: list[ModuleType] = _import_all()


def load_properties() -> dict[str, Property]:
    """Every registered property (registration happened when this package was imported)."""
    return PROPERTIES
