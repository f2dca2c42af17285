"""Helpers shared by the property modules of :mod:`crosscheck.properties.variants` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

#: float64 majorants are evaluated in float64 (relative error < 1e-12 here)
SLACK = 1 + 1e-6


# ============================================================================ strategies
ENTRY = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False, width=64).map(
    lambda x: x if abs(x) >= 1e-4 or x == 0 else math.copysign(0.5 + abs(x), x))

SCALE = st.sampled_from([1.0, 0.1, 10.0, 1e-3])

STATE_SCALE = st.sampled_from([1.0, 0.1, 10.0])

ALPHA = st.one_of(st.just(1.0), st.just(0.0), st.floats(0.0, 1.0, width=64))

ETA = st.one_of(st.just(1.0), st.floats(0.01, 1.0, width=64))

EPS = st.sampled_from([0.0, 1e-6, 0.25])


@st.composite
def arr(draw, shape, scale=SCALE):
    """A float64 array of ``shape`` with ENTRY values times a drawn magnitude."""
    s = draw(scale)
    n = int(np.prod(shape))
    return np.array(draw(st.lists(ENTRY, min_size=n, max_size=n)),
                    dtype=np.float64).reshape(shape) * s


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
