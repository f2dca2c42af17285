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
collector :class:`Checks`), the one way to aggregate sub-checks. On the ``"arb"`` backend a
sub-check whose deviation is a ball (or whose bound is a :class:`Tol`) gets a rigorous verdict,
:mod:`crosscheck.arbcheck`; every other sub-check is evaluated exactly as on mp/float64.

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

from .arbcheck import Tol, as_tol, ball_verdict, is_ball, tally_of

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
    #: arb runs only: the example's rigorous verdict (:func:`crosscheck.arbcheck.tally_of`:
    #: "certified", "nonrefuted", "undecided" or "refuted"); None when no sub-check was a ball
    verdict: str | None = None

    def __post_init__(self):
        # a property returning a ball deviation (arb) directly: decided here, as in combine
        if is_ball(self.dev) or is_ball(self.bound):
            o = combine([("outcome", self.dev, self.bound)], self.met, self.note)
            self.dev, self.bound, self.note, self.verdict = o.dev, o.bound, o.note, o.verdict

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


def _row(lab, d, b):
    """(ratio, label, dev, bound, kind) of one sub-check: a ball sub-check (arb) gets the
    rigorous verdict of :func:`crosscheck.arbcheck.ball_verdict`, any other :func:`ratio`."""
    if is_ball(d):
        r, kind = ball_verdict(d, b)
        return r, lab, d, b, kind
    if is_ball(b):   # no ball to decide on (a count, a midpoint float): the float rule
        r = ratio(d, float(as_tol(b)))
        return r, lab, d, b, "nonrefuted" if r <= 1 else "refuted"
    return ratio(d, b), lab, d, b, None


def combine(parts: Iterable[tuple[str, object, object]], met: bool = True,
            note: str = "") -> Outcome:
    """One :class:`Outcome` from sub-checks ``(label, dev, bound)``.

    Every sub-check must hold on its own (``dev_i ≤ bound_i``; a bound of 0 requires
    ``dev_i`` to be exactly 0, see :func:`ratio`): the slack of one never hides another's
    failure. The reported figure is the worst ratio, ``dev = max_i dev_i/bound_i`` with
    ``bound = 1``, so the Outcome is ``ok`` iff every part is; the note names the failing
    sub-checks (with the worst one's deviation and bound), else the worst one. No parts:
    ``dev = 0``, note "no sub-check applied". Ball sub-checks (arb) are decided by
    :func:`crosscheck.arbcheck.ball_verdict` and the example's verdict is recorded."""
    rows = [_row(lab, d, b) for lab, d, b in parts]
    tail = f"; {note}" if note else ""
    if not rows:
        return Outcome(0.0, 1.0, met, (note or "no sub-check applied"))
    verdict = tally_of([r[4] or ("nonrefuted" if r[0] <= 1 else "refuted") for r in rows]
                       if any(r[4] for r in rows) else [])
    w, lab, d, b, kind = max(rows, key=lambda r: r[0])
    if w > 1:
        failing = [r[1] for r in rows if r[0] > 1]
        msg = (f"failed: {', '.join(failing[:5])}{' …' if len(failing) > 5 else ''}; worst: {lab} "
               + (f"({kind}: dev {_fmt_ball(d)} vs bound {_fmt_ball(b)}"
                  + ("; undecided: more digits needed)" if kind == "undecided" else ")")
                  if kind else f"(dev {_to_float(d):.3e} > bound {_to_float(b):.3e})"))
    else:
        msg = f"worst: {lab}" if w > 0 else "every sub-check exact"
    return Outcome(w, 1.0, met, msg + tail, verdict)


def _fmt_ball(x) -> str:
    return str(x) if is_ball(x) else f"{_to_float(x):.3e}"


class Checks:
    """A collector of sub-checks ``dev ≤ bound`` for :func:`combine`."""

    def __init__(self):
        self.items: list[tuple[str, object, object]] = []

    def le(self, label: str, dev, bnd) -> None:
        """The sub-check ``dev ≤ bnd`` (values kept as given: mp values are not rounded)."""
        self.items.append((label, dev, bnd))

    def margin(self, label: str, resolution, margin) -> None:
        """A strict claim ``margin > 0``: the resolution must stay below the margin (arb: the
        ball of ``margin − resolution`` must lie strictly above 0, :class:`Tol` ``strict``)."""
        if isinstance(margin, Tol):
            margin = Tol(margin.a, margin.t, strict=True)
        elif is_ball(resolution) or is_ball(margin):
            margin = Tol(margin, 0.0, strict=True)
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
    #: why the property does not run on "arb" (one line; "" when it does)
    no_arb: str = ""


PROPERTIES: dict[str, Property] = {}

#: properties that cannot run on balls, and why (one line each): kept here, not in the property
#: modules, so that the rule "every property declaring mp also runs on arb" has one list of
#: exceptions (:func:`prop` appends "arb" to every other property declaring "mp")
_SINKHORN = ("pyref's Sinkhorn loop (up to 80 rounds of x/Σx) widens balls ~10^0.6 per round: at "
             "50 digits its output is ~1e-9 wide, undecided (an enclosure limit, not a bug)")
NO_ARB: dict[str, str] = {
    "mhc_sinkhorn_column_step": _SINKHORN,
    "mhc_transfer_can_amplify": _SINKHORN,
}


def prop(*, theorems: list[str], paper: str, strategy: Callable, backends=("mp", "float64"),
         cost: float = 1.0, examples: tuple = (), no_arb: str = ""):
    """Register a property checking ``theorems`` (Lean names) on generated inputs (plus the
    explicit ``examples``, each a value the strategy could produce). A property declaring "mp"
    also runs on "arb" (same digits, rigorous verdicts: :mod:`crosscheck.arbcheck`) unless
    ``no_arb`` (or :data:`NO_ARB`) gives the one-line reason it cannot."""
    def deco(fn):
        name = fn.__name__
        if name in PROPERTIES:
            raise ValueError(f"duplicate property {name}")
        why = no_arb or NO_ARB.get(name, "")
        bks = tuple(backends)
        if "mp" in bks and "arb" not in bks and not why:
            bks += ("arb",)
        PROPERTIES[name] = Property(name, list(theorems), paper, (fn.__doc__ or "").strip(),
                                    strategy, fn, bks, cost,
                                    examples=tuple(examples), no_arb=why)
        return fn
    return deco


def locked_theorems(lock: Path = LOCK) -> dict[str, dict]:
    if not lock.exists():
        return {}
    return json.loads(lock.read_text(encoding="utf-8"))["theorems"]
