"""Rigorous verdicts of sub-checks on the ``"arb"`` backend (issue 17, "properties on Arb").

On ``"arb"`` every pyref value is a ball that *contains* the exact real value of the formula on
the (exact, binary) inputs. A sub-check ``dev ≤ bound`` of a property is then decided on balls,
in one place (:func:`ball_verdict`, called by :func:`crosscheck.registry.combine`):

* the bound is a :class:`Tol` ``(a, t)``: the statement claims ``dev ≤ a`` *exactly* (``a = 0``
  for an equality ``|lhs − rhs| = 0`` or a violation ``max(0, lhs − rhs) = 0``; ``a > 0`` for a
  stated mathematical slack), and ``t`` is the tightness threshold (:func:`tightness`);
  :func:`crosscheck.properties._arith.bound` returns ``Tol(0, t)`` on arb where it returns a
  round-off bound on mp/float64. A plain number or ball bound ``b`` (an exact fact ``dev ≤ 0``
  written with bound 0, a stated slack, a ball margin) means ``Tol(b, tightness(b))``;
* with ``D`` the ball of ``a − dev`` (``a − dev > 0`` when ``strict``, :meth:`Checks.margin`):
  **certified** when ``D`` lies ≥ 0 (> 0 strict) — the statement holds on this example;
  **refuted** when ``D`` lies < 0 (≤ 0 strict) — it is violated, however small the violation
  (a deviation of 1e-60 that mp's 1e-40 bound lets pass is refuted here);
  **non-refuted** when ``D`` reaches 0 but ``D + t`` lies ≥ 0 — the ball contains the allowed
  region's edge and is tiny (equalities can only end here unless ``lhs − rhs`` is the exact
  ball 0; the inequalities tight by construction, e.g. a violation ``max(0, ·)`` that is 0);
  **undecided** otherwise (a tie or a ball wider than ``t``): a failure, "more digits needed".
* a sub-check with no ball (a count of ball comparisons, a float derived from midpoints) is
  decided by the float rule (:func:`crosscheck.registry.ratio` against ``a + t``) and counts as
  non-refuted when it passes: python-flint's comparisons are true only when certain, so a
  nonzero count is a sound refutation, a zero count is not a certificate.

Reductions over balls never use numpy's ``max`` (its comparisons of overlapping balls are
"false", so it may return a ball whose upper end is not the largest): :func:`ball_max` and
:func:`maxabs_ball` take the hull ``[max lower, max upper]`` and return a :class:`Dev`, a ball of a
deviation whose comparisons make Python's ``max`` in the property modules sound too.
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from pyref import arb as arbmod

#: tightness exponent: a ball is "tiny" when its radius is ≤ 10^-(dps/2)·scale (see tightness)
TIGHT_FRACTION = 0.5
#: digits of the harness' mp and arb runs (``crosscheck.fuzz.MP_DPS`` is this number)
ARB_DPS = 50

VERDICTS = ("certified", "nonrefuted", "undecided", "refuted")


def tightness(T, dps: int) -> float:
    """The threshold ``t = 10^-(dps/2)·max(1, T)`` below which a ball of an exact zero counts as
    "tiny". Justification: at ``dps`` digits (``prec = dps·log2 10 + ≥16`` bits) one ball operation
    adds a radius ≤ 2^-prec·|value|; the ≤ 10^4 chained operations of a property on terms of size
    ``T``, even amplified 10^(dps/2 − 10) times by cancellation or conditioning, stay below ``t``.
    At the harness' 50 digits ``t = 1e-25·T``: 10^9 below float64's round-off, so a float64 value
    leaking into the run is still noticed (its error is a nonzero midpoint shift, refuted)."""
    return 10.0 ** (-TIGHT_FRACTION * dps) * max(1.0, upper_float(T))


class Tol:
    """The bound of a sub-check on arb: the statement claims ``dev ≤ a`` exactly; a ball of
    ``a − dev`` reaching below 0 by at most ``t`` is non-refuted (``strict``: ``dev < a``).
    Sums, positive multiples and quotients keep the pair (``a`` may be a float or a ball)."""

    __slots__ = ("a", "t", "strict")

    def __init__(self, a, t: float, strict: bool = False):
        self.a, self.t, self.strict = a, float(t), strict

    def _pair(self, o):
        return (o.a, o.t) if isinstance(o, Tol) else (o, 0.0)

    def __add__(self, o):
        a, t = self._pair(o)
        return Tol(self.a + a, self.t + t, self.strict)

    __radd__ = __add__

    def __mul__(self, c):
        if isinstance(c, Tol):
            raise ValueError("Tol: a product of two bounds has no tolerance meaning")
        return Tol(self.a * c, self.t * upper_float(abs(c)), self.strict)

    __rmul__ = __mul__

    def __truediv__(self, c):
        return Tol(self.a / c, self.t / lower_float(abs(c)), self.strict)

    def __float__(self) -> float:
        return upper_float(self.a) + self.t

    def __gt__(self, o):
        return float(self) > float(o)

    def __lt__(self, o):
        return float(self) < float(o)

    def __repr__(self) -> str:
        return f"Tol({self.a}, t={self.t:.1e}{', strict' if self.strict else ''})"

    def __format__(self, spec: str) -> str:   # notes formatting a bound (``f"{b:.2e}"``)
        return format(float(self), spec)


def _upper(x):
    return x.upper() if isinstance(x, arb) else arbmod.exact(x)


class Dev(arb):
    """A ball of a deviation (``max |x|``, sums and positive multiples of such), as returned by
    :func:`maxabs_ball` on arb. Compared with another :class:`Dev` or with 0 it compares its
    *upper end*, so Python's ``max(dev, …)`` / ``max(0.0, dev)`` (the accumulators of the property
    modules) return an element with the largest upper end: a certificate or non-refutation then
    uses an upper bound of the true maximum, a refutation the lower end of one element (≤ the
    maximum), both sound. Against any other number or ball, comparisons keep Arb's meaning (true
    only when certain), so a threshold test ``dev > 1e-30`` (a witness of difference) stays
    rigorous. (Python's ``min`` over deviations is not used by the properties: by the upper ends
    it would only be sound for certificates.)"""

    def _red(self, o) -> bool:
        return isinstance(o, Dev) or (not isinstance(o, arb) and o == 0)

    def __gt__(self, o):
        return _upper(self) > _upper(o) if self._red(o) else arb.__gt__(self, o)

    def __lt__(self, o):
        return _upper(self) < _upper(o) if self._red(o) else arb.__lt__(self, o)

    def __ge__(self, o):
        return _upper(self) >= _upper(o) if self._red(o) else arb.__ge__(self, o)

    def __le__(self, o):
        return _upper(self) <= _upper(o) if self._red(o) else arb.__le__(self, o)

    def __add__(self, o):
        return Dev(arb.__add__(self, o))

    __radd__ = __add__

    def __mul__(self, o):
        return Dev(arb.__mul__(self, o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        return Dev(arb.__truediv__(self, o))

    def __abs__(self):
        return Dev(arb.__abs__(self))

    def __format__(self, spec: str) -> str:   # notes formatting a deviation: its upper end
        return format(upper_float(self), spec) if spec else str(self)

    __hash__ = None


def is_ball(x) -> bool:
    """An arb ball or a :class:`Tol` (a sub-check with one of them is decided on balls)."""
    return isinstance(x, (arb, Tol))


def upper_float(x) -> float:
    """A float ≥ the real ``x`` (a ball: its upper end rounded up; a number or array: its max)."""
    if isinstance(x, Tol):
        return float(x)
    if isinstance(x, arb):
        if not x.is_finite():
            return math.inf
        u = float(x.upper())
        return math.nextafter(u, math.inf)
    a = np.asarray(x)
    if a.dtype == object:
        return max((upper_float(v) for v in a.ravel()), default=0.0)
    return float(np.max(a)) if a.size else 0.0


def lower_float(x) -> float:
    """A float ≤ the real ``x`` (a ball: its lower end rounded down)."""
    if isinstance(x, arb):
        if not x.is_finite():
            return -math.inf
        return math.nextafter(float(x.lower()), -math.inf)
    return float(x)


def ball_max(*xs):
    """A :class:`Dev` ball containing ``max(xs)`` (the hull ``[max lower, max upper]``; numbers
    exact)."""
    out = None
    for x in xs:
        x = arbmod.exact(x)
        out = x if out is None else arb.max(out, x)
    return Dev(0 if out is None else out)


def ball_min(*xs):
    """A ball containing ``min(xs)``."""
    out = None
    for x in xs:
        x = arbmod.exact(x)
        out = x if out is None else out.min(x)
    return arb(0) if out is None else out


def maxabs_ball(x):
    """A ball containing ``max |x_i|`` of an array (or scalar) of balls / numbers (0 if empty)."""
    vals = np.asarray(x, dtype=object).ravel()
    return ball_max(*(abs(arbmod.exact(v)) for v in vals))


_ABOVE_ONE = math.nextafter(1.0, math.inf)


def as_tol(bnd) -> Tol:
    """The :class:`Tol` of a sub-check's bound (a plain number or ball ``b``: ``Tol(b, t(b))``)."""
    return bnd if isinstance(bnd, Tol) else Tol(bnd, tightness(abs(bnd), ARB_DPS))


def ball_verdict(dev, bnd) -> tuple[float, str]:
    """(ratio, verdict) of the sub-check ``dev ≤ bnd`` on balls (module docstring). The ratio
    is ≤ 1 exactly for "certified" (0) and "non-refuted" (the excess over ``a`` relative to
    ``t``); "undecided" and "refuted" give a ratio > 1 (∞ when nothing is tolerated)."""
    tol = as_tol(bnd)
    D = arbmod.exact(tol.a) - dev
    if not D.is_finite():
        return math.inf, "undecided"
    if (D > 0) if tol.strict else (D >= 0):
        return 0.0, "certified"
    if (D <= 0) if tol.strict else (D < 0):
        return math.inf, "refuted"
    excess = upper_float(-D)          # how far below 0 the ball of a − dev reaches
    if tol.t > 0 and not tol.strict and excess <= tol.t:
        return min(max(excess / tol.t, 0.0), 1.0), "nonrefuted"
    return (max(excess / tol.t, _ABOVE_ONE) if tol.t > 0 else math.inf), "undecided"


def tally_of(kinds) -> str | None:
    """The example's verdict from its sub-checks' (None when there are none): refuted if any is,
    else undecided if any is, else non-refuted if any is, else certified."""
    ks = list(kinds)
    if not ks:
        return None
    for v in ("refuted", "undecided", "nonrefuted"):
        if v in ks:
            return v
    return "certified"
