"""Scalars and nested lists for the spec evaluator: exact conversion in, plain loops.

Matrices are lists of rows of ``mpmath.mpf``; vectors are lists. Weights are converted
exactly (a binary float keeps its value); configuration constants (ε, Θ) from their
decimal repr, as the model's configuration states them.
"""

from __future__ import annotations

import mpmath


def mat(a):
    """A nested list of exact mpf values from an array-like or scalar (any depth)."""
    if hasattr(a, "tolist"):
        a = a.tolist()
    if isinstance(a, (list, tuple)):
        return [mat(x) for x in a]
    return mpmath.mpf(a)


def const(c):
    """A configuration constant, from its decimal repr."""
    return mpmath.mpf(repr(float(c)))


def sigmoid(u):
    """σ(u) = 1/(1 + e^{-u})."""
    return 1 / (1 + mpmath.exp(-u))


def fsum(xs):
    """Σ xs (mpmath's correctly accumulated sum)."""
    return mpmath.fsum(xs)


def zeros(m, n):
    return [[mpmath.mpf(0)] * n for _ in range(m)]


def eye(n):
    return [[mpmath.mpf(1 if i == j else 0) for j in range(n)] for i in range(n)]


def transpose(X):
    return [list(col) for col in zip(*X)]


def matmul(X, Y):
    """(X Y)_ij = Σ_k X_ik Y_kj."""
    return [[fsum(x[k] * Y[k][j] for k in range(len(x))) for j in range(len(Y[0]))] for x in X]


def add(X, Y):
    return [[x + y for x, y in zip(xr, yr)] for xr, yr in zip(X, Y)]


def to_float(X):
    """Nested lists of mpf -> nested lists of float (for reporting)."""
    if isinstance(X, list):
        return [to_float(x) for x in X]
    return float(X)
