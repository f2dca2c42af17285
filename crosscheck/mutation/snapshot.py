"""A mutated copy of the pyref snapshot, imported in place of pyref (in a forked child only).

:func:`import_mutated` copies the snapshot, applies one mutant's edit, purges ``pyref*``,
``crosscheck.*`` (except this package) and the modules of the repository's ``tests/`` directory
from ``sys.modules`` (everything that imported the unmutated pyref, e.g. a test module the parent
pytest session imported), puts the copy first on ``sys.path`` and imports ``pyref`` from it;
:func:`foreign_pyref_modules` names any ``pyref`` module that did not come from the copy.
Submodules imported later (by a property, by pytest's test modules) are found through the
package's ``__path__``, i.e. in the copy, whatever ``sys.path`` holds by then.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys
from pathlib import Path


class NotTheCopyError(RuntimeError):
    """The imported pyref is not the mutated copy (a harness error, never a kill)."""


def _is_pyref(name: str) -> bool:
    return name == "pyref" or name.startswith("pyref.")


def purge_modules(tests_dir: Path | None = None) -> None:
    """Forget pyref, crosscheck (except crosscheck.mutation) and the modules loaded from
    ``tests_dir`` (test modules and conftest.py), so the next import loads them afresh."""
    prefix = None if tests_dir is None else str(Path(tests_dir).resolve()) + os.sep
    for name, mod in list(sys.modules.items()):
        file = getattr(mod, "__file__", None) or ""
        if _is_pyref(name) or (name.startswith("crosscheck.")
                               and not name.startswith("crosscheck.mutation")) \
                or (prefix is not None and file.startswith(prefix)):
            del sys.modules[name]


def import_mutated(m, base: Path, work: Path, tests_dir: Path | None = None):
    """(In a child) copy the pyref snapshot ``base`` to ``work/pyref``, apply the mutant ``m``
    (a :class:`~.generate.GenMutant`, or None for the unmutated copy), purge and import it.
    Returns the imported ``pyref`` package; an exception of the mutated import propagates
    (:class:`NotTheCopyError` if ``pyref`` was found elsewhere)."""
    dst = work / "pyref"
    shutil.copytree(base, dst, ignore=shutil.ignore_patterns("__pycache__"))
    if m is not None:
        (dst / m.file).write_bytes(m.apply((base / m.file).read_bytes()))
    purge_modules(tests_dir)
    sys.path.insert(0, str(work))
    sys.dont_write_bytecode = True
    importlib.invalidate_caches()
    pyref = importlib.import_module("pyref")
    if not str(pyref.__file__).startswith(str(dst) + os.sep):
        raise NotTheCopyError(f"imported {pyref.__file__}, not the mutated copy under {dst}")
    return pyref


def foreign_pyref_modules(dst: Path) -> list[str]:
    """The imported ``pyref*`` modules whose file is not under ``dst`` (the mutated copy)."""
    root = str(dst) + os.sep
    return sorted(name for name, mod in list(sys.modules.items())
                  if _is_pyref(name) and not str(getattr(mod, "__file__", "") or "")
                  .startswith(root))
