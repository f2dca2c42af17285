"""Helpers shared by the property modules of :mod:`crosscheck.properties.variants` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...spec_eval._scalar import mat, to_float

#: float64 majorants are evaluated in float64 (relative error < 1e-12 here)
SLACK = 1 + 1e-6


# ============================================================================ strategies
#: a numpy Generator from a drawn seed: the source of *generic* inputs (no Hypothesis edge
#: values such as 0, ±1 or equal entries, which hide transposes, swapped factors and dropped
#: terms); special values enter only as explicit examples (``prop(examples=...)``)
RNG = st.integers(0, 2 ** 32 - 1).map(np.random.default_rng)

SCALE = st.sampled_from([1.0, 0.1, 10.0, 1e-3])

STATE_SCALE = st.sampled_from([1.0, 0.1, 10.0])

#: generic gates: decays in (0, 1) away from the no-decay (1) and wipe (0) special cases, which
#: the properties run as explicit examples
ALPHA = st.floats(0.02, 0.98, width=64)

ETA = st.floats(0.05, 1.0, width=64)

#: ε = 0 is the hypothesis of kla_residual_eps_zero / the projection theorems
EPS = st.sampled_from([0.0, 1e-6, 0.25])


def _entries(rng, shape):
    """Uniform entries in (−1, 1); every |x| < 1e-4 moved to ±(0.5 + |x|) (no tiny entries)."""
    x = rng.uniform(-1.0, 1.0, shape)
    return np.where(np.abs(x) < 1e-4, np.copysign(0.5 + np.abs(x), x), x)


@st.composite
def arr(draw, shape, scale=SCALE):
    """A generic float64 array of ``shape``: uniform entries (:func:`_entries`) times a drawn
    magnitude."""
    return _entries(draw(RNG), shape) * draw(scale)


def _nonzero_rows(M):
    """Replace zero rows by e_1 (query rows must be nonzero for the read-out)."""
    M = np.array(M, dtype=np.float64)
    z = ~M.any(axis=-1)
    M[z, 0] = 1.0
    return M


# ============================================================================ helpers
def _bk(backend, dps):
    return pyref.get_backend(backend, dps)


def _f(x):
    """to float64 (works on mpf scalars and arrays)."""
    return to_float64(np.asarray(x, dtype=object) if not isinstance(x, np.ndarray) else x)


# ============================================================================ spec evaluator
def _shape(x):
    return (len(x),) + _shape(x[0]) if isinstance(x, list) and x else (
        (0,) if isinstance(x, list) else ())


def _flat(x):
    if isinstance(x, list):
        for y in x:
            yield from _flat(y)
    else:
        yield x


def gap(got, ref, dps=50):
    """max |got − ref| of a pyref result (array or scalar, any backend) and an evaluator value
    (nested lists of mpf), formed exactly at ``dps`` digits (the float64 entries of ``got``
    converted exactly); ∞ when the shapes differ."""
    with mpmath.workdps(dps):
        g = mat(got)
        if _shape(g) != _shape(ref):
            return math.inf
        return max((abs(a - b) for a, b in zip(_flat(g), _flat(ref))), default=mpmath.mpf(0))


def fl(ref, dps=50):
    """An evaluator value (nested lists of mpf) as a float64 array (for majorants)."""
    with mpmath.workdps(dps):
        return np.array(to_float(ref), dtype=np.float64)
