"""Helpers of the :mod:`crosscheck.properties.spec` modules: running the independent evaluator
(:mod:`crosscheck.spec_eval`) and measuring pyref against it.

The evaluator runs at ``dps + EXTRA`` digits (70 for the harness' 50): its own rounding (fewer
than 10^5 operations of relative size 10^-69 on the sizes used here, amplified by at most 10^6
through LayerNorms and softmaxes) stays below 10^-58·scale, so a comparison measures pyref's
rounding alone, against the harness bound 1e-40·scale (mp, :func:`.._arith.mp_bound`) or a
derived float64 bound. Inputs are converted exactly (binary floats keep their value) on both
sides. Generic inputs are drawn with numpy from a Hypothesis seed: uniform entries, so zero,
identity, symmetric or commuting structure has probability 0.

On ``"arb"`` the evaluator's value is a point ``v`` with ``|v − exact| ≤ EV_ERR·scale`` (the
bound above), and pyref's value a ball containing ``exact``: the comparison is rigorous as
``|ball − v| ≤ EV_ERR·scale`` (:class:`crosscheck.arbcheck.Tol` with that slack), so it is
refuted only when the ball misses ``v`` by more than the evaluator's own error.
"""

from __future__ import annotations

import mpmath
import numpy as np
from flint import arb
from hypothesis import strategies as st

from pyref import arb as arbmod

from ...arbcheck import maxabs_ball
from ...registry import Checks
from .._arith import bound

#: extra digits of the evaluator over the backend under test
EXTRA = 20
#: the evaluator's own error relative to the scale (module docstring: below 10^-58)
EV_ERR = 1e-58


def ev_ctx(dps: int):
    """The evaluator's precision context (``dps + EXTRA`` digits)."""
    return mpmath.workdps(dps + EXTRA)


def _flat(x):
    """The entries of a nested list / array (of mpf or floats), in row-major order."""
    if hasattr(x, "tolist"):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        out = []
        for v in x:
            out.extend(_flat(v))
        return out
    return [x]


def deviation(x, ref):
    """max |x − ref| over all entries, exactly (an mpf at the evaluator's precision: call inside
    :func:`ev_ctx`); mismatched sizes count as an infinite deviation."""
    a, b = _flat(x), _flat(ref)
    if len(a) != len(b):
        return mpmath.inf
    if any(isinstance(u, arb) for u in a):    # a ball containing max |x − ref| (arbcheck)
        return maxabs_ball([arbmod.exact(u) - arbmod.exact(v) for u, v in zip(a, b)])
    return max((abs(mpmath.mpf(u) - mpmath.mpf(v)) for u, v in zip(a, b)), default=mpmath.mpf(0))


def scale(ref) -> float:
    """max |entry| of a nested list / array as a float."""
    return max((abs(float(v)) for v in _flat(ref)), default=0.0)


def exact_count(x, y) -> float:
    """The number of entries where x and y differ (bitwise comparison of mpf / float values;
    arb: the same ball, midpoint and radius, as bitwise identity of the computation; different
    shapes count as one difference)."""
    a, b = _flat(x), _flat(y)
    if len(a) != len(b):
        return 1.0
    return float(sum(1 for u, v in zip(a, b) if not _same(u, v)))


def _same(u, v) -> bool:
    if isinstance(u, arb) or isinstance(v, arb):
        u, v = arbmod.exact(u), arbmod.exact(v)
        return (u.is_exact() and v.is_exact() and u == v) or (
            u.mid() == v.mid() and u.rad() == v.rad())
    return u == v


def cmp(ch: Checks, label, x, ref, backend, k=0, T=None):
    """The sub-check ``|x − ref| ≤ bound(backend, k, T)`` (T defaults to the size of ``ref``;
    call inside :func:`ev_ctx`; arb: plus the evaluator's own error ``EV_ERR·T``)."""
    T = scale(ref) if T is None else T
    b = bound(backend, k, T)
    ch.le(label, deviation(x, ref),
          b + EV_ERR * max(1.0, float(np.max(T))) if backend == "arb" else b)


def ln_scale(X, gamma, beta, eps) -> float:
    """The scale of a LayerNorm comparison: |γ|·(X∞/s)·(4 + 5X∞²/s²) + |β| over the rows of X, with
    X∞ = max|x| and s = √(var + ε) per row (derived in ``dense_layers_match_spec``: the mean, the
    centred entries, the variance and the root each contribute; X∞/s is the conditioning)."""
    T = 0.0
    for r in np.atleast_2d(np.asarray(X, dtype=np.float64)):
        xi = float(np.max(np.abs(r)))
        s = float(np.sqrt(np.var(r) + eps))
        T = max(T, float(np.max(np.abs(gamma))) * xi / s * (4 + 5 * xi * xi / (s * s)))
    return T + float(np.max(np.abs(beta)))


def anchor(ch: Checks, label, backend, dps, x, ref_fn, T=None):
    """A formula anchor on mp and arb: pyref's value ``x`` against the evaluator's ``ref_fn()`` (a
    thunk run at the evaluator's precision), bound 1e-40·scale (arb: :func:`cmp`'s). Properties
    whose theorem compares two pyref values add it so that a wrong formula satisfying the theorem
    (e.g. a symmetric but wrong density) is caught too; float64 has its own bounds in the
    :mod:`.components` / :mod:`.heads` properties."""
    if backend not in ("mp", "arb"):
        return
    with ev_ctx(dps):
        cmp(ch, label + " (= the Lean definition, evaluated independently)", x, ref_fn(), backend,
            0, T)


def gen(rng, shape, lo=-1.0, hi=1.0):
    """A generic float64 array: entries uniform in [lo, hi)."""
    return rng.uniform(lo, hi, shape)


SEED = st.integers(0, 2 ** 32 - 1)

MAG = st.sampled_from([1.0, 0.5, 2.0, 0.1, 10.0])
