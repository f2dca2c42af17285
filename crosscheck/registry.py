"""The cross-check registry: which Python property checks which Lean theorem.

Every theorem in the statement lock (``ci/statement-lock.json``) has either

* one or more **properties** (:func:`prop`): a Hypothesis strategy plus a check that
  evaluates the theorem's statement on ``pyref`` at a backend and returns an
  :class:`Outcome` (measured deviation, the bound it must stay under, and whether
  the generated input met the theorem's hypotheses); or
* a one-line **justification** (:data:`JUSTIFICATIONS`, in
  :mod:`crosscheck.justifications`) saying why no numeric counterpart applies.

``tests/test_crosscheck_registry.py`` fails when a locked theorem has neither or a
property names a theorem that is not in the lock.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
LOCK = REPO / "ci" / "statement-lock.json"


@dataclass
class Outcome:
    """Result of one property evaluation.

    ``dev``: the measured deviation (``|lhs - rhs|`` for identities, the amount of
    violation ``max(0, lhs - rhs)`` for inequalities). ``bound``: the largest deviation
    the statement allows at this backend (0 for exact facts, a stated round-off bound
    otherwise). ``met``: whether this input satisfied the theorem's hypotheses (inputs
    that do not are counted, not checked)."""

    dev: float
    bound: float
    met: bool = True
    note: str = ""

    @property
    def ok(self) -> bool:
        return (not self.met) or self.dev <= self.bound


@dataclass
class Property:
    name: str
    theorems: list[str]
    paper: str
    doc: str
    strategy: Callable  # () -> hypothesis strategy
    check: Callable     # (example, backend_name, dps) -> Outcome
    backends: tuple[str, ...] = ("mp", "float64")
    #: examples per profile are scaled by this (expensive properties use < 1)
    cost: float = 1.0
    tags: list[str] = field(default_factory=list)


PROPERTIES: dict[str, Property] = {}


def prop(*, theorems: list[str], paper: str, strategy: Callable, backends=("mp", "float64"),
         cost: float = 1.0):
    """Register a property checking ``theorems`` (Lean names) on generated inputs."""
    def deco(fn):
        name = fn.__name__
        if name in PROPERTIES:
            raise ValueError(f"duplicate property {name}")
        PROPERTIES[name] = Property(name, list(theorems), paper, (fn.__doc__ or "").strip(),
                                    strategy, fn, tuple(backends), cost)
        return fn
    return deco


def load_properties() -> dict[str, Property]:
    """Import every property module (registration happens on import)."""
    from . import properties  # noqa: F401
    return PROPERTIES


def locked_theorems(lock: Path = LOCK) -> dict[str, dict]:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))["theorems"]


def coverage(lock: Path = LOCK) -> dict[str, dict]:
    """theorem -> {"properties": [...], "justification": str | None}."""
    from .justifications import JUSTIFICATIONS
    props = load_properties()
    out = {}
    for name in locked_theorems(lock):
        out[name] = {"properties": [p.name for p in props.values() if name in p.theorems],
                     "justification": JUSTIFICATIONS.get(name)}
    return out
