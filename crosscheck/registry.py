"""The cross-check registry: which Python property checks which Lean theorem.

Every theorem in the statement lock (``ci/statement-lock.json``) has either

* one or more **properties** (:func:`prop`): a Hypothesis strategy plus a check that
  evaluates the theorem's statement on ``pyref`` at a backend and returns an
  :class:`Outcome` (measured deviation, the bound it must stay under, and whether
  the generated input met the theorem's hypotheses); or
* a one-line **justification** (``JUSTIFY`` of the property module mirroring the theorem's
  Lean file, merged in :mod:`crosscheck.justifications`) saying why no numeric counterpart
  applies.

A property that checks several sub-statements combines them with :func:`combine` (or the
collector :class:`Checks`), the one way to aggregate sub-checks.

``tests/test_crosscheck.py`` fails when a locked theorem has neither or a property names a
theorem that is not in the lock. This module imports nothing from the property modules
(they import it); :mod:`crosscheck.properties` registers them on import.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

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


def _to_float(x) -> float:
    """A (possibly mpf) real as float64, ±inf beyond range, NaN kept."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


#: the smallest ratio reported for a failing sub-check (``dev/bound`` can round to 1.0 when
#: ``dev`` exceeds ``bound`` by less than half an ulp; a failure must never read as ``≤ 1``)
_ABOVE_ONE = math.nextafter(1.0, math.inf)


def ratio(dev, bound) -> float:
    """``dev/bound`` of one sub-check ``dev ≤ bound``, formed before any float conversion
    (mp values may lie below the float64 range). A bound of 0 (an exact fact) gives 0 when
    ``dev`` is exactly 0 (or negative) and ∞ otherwise; a NaN ``dev`` gives ∞. The result is
    ``≤ 1`` iff ``dev ≤ bound``."""
    if dev != dev:
        return math.inf
    if not dev > 0:
        return 0.0
    if not bound > 0:
        return math.inf
    r = _to_float(dev / bound)
    if dev <= bound:
        return min(r, 1.0)
    return max(r, _ABOVE_ONE)


def combine(parts: Iterable[tuple[str, object, object]], met: bool = True,
            note: str = "") -> Outcome:
    """One :class:`Outcome` from sub-checks ``(label, dev, bound)``.

    Every sub-check must hold on its own (``dev_i ≤ bound_i``; a bound of 0 requires
    ``dev_i`` to be exactly 0, see :func:`ratio`): the slack of one never hides another's
    failure. The reported figure is the worst ratio, ``dev = max_i dev_i/bound_i`` with
    ``bound = 1``, so the Outcome is ``ok`` iff every part is; the note names the failing
    sub-checks (with the worst one's deviation and bound), else the worst one. No parts:
    ``dev = 0``, note "no sub-check applied"."""
    rows = [(ratio(d, b), lab, d, b) for lab, d, b in parts]
    tail = f"; {note}" if note else ""
    if not rows:
        return Outcome(0.0, 1.0, met, (note or "no sub-check applied"))
    w, lab, d, b = max(rows, key=lambda r: r[0])
    if w > 1:
        failing = [r[1] for r in rows if r[0] > 1]
        msg = (f"failed: {', '.join(failing[:5])}{' …' if len(failing) > 5 else ''}; worst: {lab} "
               f"(dev {_to_float(d):.3e} > bound {_to_float(b):.3e})")
    else:
        msg = f"worst: {lab}" if w > 0 else "every sub-check exact"
    return Outcome(w, 1.0, met, msg + tail)


class Checks:
    """A collector of sub-checks ``dev ≤ bound`` for :func:`combine`."""

    def __init__(self):
        self.items: list[tuple[str, object, object]] = []

    def le(self, label: str, dev, bnd) -> None:
        """The sub-check ``dev ≤ bnd`` (values kept as given: mp values are not rounded)."""
        self.items.append((label, dev, bnd))

    def margin(self, label: str, resolution, margin) -> None:
        """A strict claim ``margin > 0``: the resolution must stay below the margin."""
        self.le(label, resolution, margin)

    def exact(self, label: str, count) -> None:
        """An exact claim: ``count`` (of violations) must be 0."""
        self.le(label, count, 0.0)

    def outcome(self, met: bool = True, note: str = "") -> Outcome:
        return combine(self.items, met, note)


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
    #: explicit inputs run before the generated ones (Hypothesis ``@example``): known edge
    #: cases such as the identity or zero parameters, never instead of generic inputs
    examples: tuple = ()


PROPERTIES: dict[str, Property] = {}


def prop(*, theorems: list[str], paper: str, strategy: Callable, backends=("mp", "float64"),
         cost: float = 1.0, examples: tuple = ()):
    """Register a property checking ``theorems`` (Lean names) on generated inputs (plus the
    explicit ``examples``, each a value the strategy could produce)."""
    def deco(fn):
        name = fn.__name__
        if name in PROPERTIES:
            raise ValueError(f"duplicate property {name}")
        PROPERTIES[name] = Property(name, list(theorems), paper, (fn.__doc__ or "").strip(),
                                    strategy, fn, tuple(backends), cost,
                                    examples=tuple(examples))
        return fn
    return deco


def locked_theorems(lock: Path = LOCK) -> dict[str, dict]:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))["theorems"]
