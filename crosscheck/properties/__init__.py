"""Cross-check properties, one module per topic; importing this package registers them.

A module holds the properties of one Lean topic and a ``JUSTIFY`` dict with a one-line
reason for each theorem of that topic that has no numeric counterpart."""

import importlib as _importlib
import pkgutil as _pkgutil

for _info in _pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        _importlib.import_module(f"{__name__}.{_info.name}")
