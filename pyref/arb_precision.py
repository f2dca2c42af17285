"""Automatic working precision for the ``"arb"`` backend: demand an accuracy, get the digits.

Ball arithmetic bounds every operation for the worst case over its input box, so a long
computation loses a number of decimal digits that depends on the model and the input but
hardly on the precision: the radii scale like 10^-dps (measured on the paper configuration:
about 35 digits per decoder layer, 27 of them in the residual metric learner Φ_res; see
``benchmarks/README.md`` §6).  The loss measured in one run therefore predicts the precision
another run needs.  :func:`run_to_accuracy` runs a computation at ``dps`` digits and, when its
result is less accurate than demanded (or the run stopped with
:class:`pyref.arb.ArbWidthError`), once more at ``accuracy + lost + MARGIN_DIGITS`` digits;
usually one retry suffices.  Every result it returns is still a rigorous enclosure: the
precision changes how wide the balls are, never whether they enclose.

* :func:`digits_lost` -- the digits a tensor of balls has lost at a working precision;
* :func:`accuracy_digits` -- its relative accuracy in decimal digits;
* :func:`run_to_accuracy` -- the retry loop (``PLDRModel.forward(..., accuracy=k)`` uses it).
"""
from __future__ import annotations

import math

import numpy as np

from .arb import ArbWidthError, mid_rad, working_digits

MARGIN_DIGITS = 5   # added to the predicted need: the loss moves by a digit or two between
                    # precisions (balls near a function's singularity, e.g. log near 0)
MAX_ATTEMPTS = 4    # runs before giving up (the second normally succeeds)
MAX_DPS = 4000      # the default ceiling on the working digits


def accuracy_digits(x) -> float:
    """Relative accuracy of the balls ``x`` in decimal digits: -log10(largest radius / largest
    |midpoint|) (inf for exact balls, -inf for a non-finite ball or an all-zero tensor with a
    nonzero radius)."""
    mid, rad = mid_rad(np.asarray(x, dtype=object))
    if not mid.size:
        return math.inf
    worst, scale = float(np.max(rad)), float(np.max(np.abs(mid)))
    if not math.isfinite(worst) or not math.isfinite(scale):
        return -math.inf
    if worst == 0:
        return math.inf
    return -math.inf if scale == 0 else -math.log10(worst / scale)


def digits_lost(x, dps: int) -> float:
    """Working digits (:func:`pyref.arb.working_digits`) minus :func:`accuracy_digits`: how
    many digits the computation of ``x`` at ``dps`` lost (at least 0)."""
    return max(working_digits(dps) - accuracy_digits(x), 0.0)


def check_accuracy(accuracy, max_dps: int = MAX_DPS) -> int:
    """``accuracy`` as an int in [1, max_dps], or ValueError."""
    if isinstance(accuracy, bool) or not isinstance(accuracy, (int, np.integer)) \
            or not 1 <= accuracy <= max_dps:
        raise ValueError(f"accuracy: expected an int number of decimal digits in [1, {max_dps}], "
                         f"got {accuracy!r}")
    return int(accuracy)


def run_to_accuracy(run, dps: int, accuracy: int, result_of, max_dps: int = MAX_DPS):
    """``run(d)`` at d = ``dps`` digits and, while ``result_of(out)`` (balls) has fewer than
    ``accuracy`` digits of relative accuracy or the run raised :class:`ArbWidthError`, again at
    the digits the measured loss predicts (at least 10 more each time).  Returns the first
    accurate enough ``out``; ValueError when that would take more than ``max_dps`` digits or
    ``MAX_ATTEMPTS`` runs.  Other errors of ``run`` propagate."""
    accuracy = check_accuracy(accuracy, max_dps)
    d, history = int(dps), []
    for _ in range(MAX_ATTEMPTS):
        try:
            out = run(d)
        except ArbWidthError as exc:
            lost = exc.lost_total()
        else:
            got = accuracy_digits(result_of(out))
            if got >= accuracy:
                return out
            lost = working_digits(d) - got
        if not math.isfinite(lost):   # e.g. an all-zero result with a nonzero radius
            lost = 2 * working_digits(d)
        history.append(f"{d} digits lost {lost:.0f}")
        need = max(math.ceil(accuracy + lost + MARGIN_DIGITS), d + 10)
        if need > max_dps:
            raise ValueError(f"arb: {accuracy} digits of accuracy need about {need} working "
                             f"digits ({'; '.join(history)}), more than max_dps={max_dps}")
        d = need
    raise ValueError(f"arb: {accuracy} digits of accuracy not reached in {MAX_ATTEMPTS} runs "
                     f"({'; '.join(history)})")
