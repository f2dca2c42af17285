"""Atomic file writes: a reader never sees a half-written report or lock."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from .errors import PlgaError


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` via a temporary file in the same directory + ``os.replace``."""
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    except OSError as exc:
        raise PlgaError(f"cannot write {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; give the file the usual mode
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise PlgaError(f"cannot write {path}: {exc.strerror}") from None


def write_json(path: Path, obj) -> None:
    write_atomic(path, json.dumps(obj, indent=2, sort_keys=False) + "\n")


def publish_staged(stage: Path, out_dir: Path, names: list, marker: str, stale=()) -> None:
    """Move the complete output set ``names`` from the directory ``stage`` into ``out_dir``,
    ``marker`` (the report's JSON) last.

    The old ``marker`` goes first, so from then until the new one lands ``out_dir`` holds no
    report (``marker`` present = a complete set of one run); files in ``stale`` (e.g. plots of an
    earlier run) that this run did not write are removed. Other files are left alone."""
    try:
        (out_dir / marker).unlink(missing_ok=True)
        for f in stale:
            if f not in names:
                (out_dir / f).unlink(missing_ok=True)
        for n in sorted(names, key=lambda n: n == marker):
            os.replace(stage / n, out_dir / n)
    except OSError as exc:
        raise PlgaError(f"--out {out_dir}: cannot move the report into place "
                        f"({exc.strerror or exc})") from None
