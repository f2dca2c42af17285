"""An evaluation of the ``Formal/Spec`` operator chain that shares no code with ``pyref``.

Written from the Lean definitions (``Formal/Spec/Operator.lean``, ``Structure/RowMap.lean``,
``Structure/LayerNorm.lean``, ``Metric.lean``) as plainly as possible: mpmath scalars in
nested lists, explicit loops, no numpy arithmetic and no import from :mod:`pyref`, so a wrong
formula in pyref cannot cancel against the same formula here. Weights are read from the
state dict by their v510 key names and converted exactly (binary floats keep their value);
scalar constants (ε, Θ) are taken from their decimal repr, as the model's configuration
states them. Call inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

import mpmath


def mat(a):
    """A nested list of exact mpf values from an array-like (any depth)."""
    if hasattr(a, "tolist"):
        a = a.tolist()
    if isinstance(a, (list, tuple)):
        return [mat(x) for x in a]
    return mpmath.mpf(a)


def const(c):
    """A configuration constant, from its decimal repr."""
    return mpmath.mpf(repr(float(c)))


def sigmoid(u):
    return 1 / (1 + mpmath.exp(-u))


def affine(X, W, bias):
    """Rows of X times Wᵀ plus the bias (torch ``Linear`` layout W[out][in])."""
    return [[mpmath.fsum(x[k] * w[k] for k in range(len(x))) + bo for w, bo in zip(W, bias)]
            for x in X]


def layer_norm(X, gamma, beta, eps):
    """Lean ``lnEps`` on every row: γ·(r − mean r)/√(var r + ε) + β (biased variance)."""
    out = []
    for r in X:
        n = len(r)
        mu = mpmath.fsum(r) / n
        var = mpmath.fsum((x - mu) ** 2 for x in r) / n
        s = mpmath.sqrt(var + eps)
        out.append([g * (x - mu) / s + be for x, g, be in zip(r, gamma, beta)])
    return out


def swiglu(X, W1, b1, W2, b2, W3, b3):
    """Lean ``swigluMat``: (silu(x W1ᵀ + b1) ⊙ (x W2ᵀ + b2)) W3ᵀ + b3 on every row."""
    gate, val = affine(X, W1, b1), affine(X, W2, b2)
    hidden = [[g * sigmoid(g) * v for g, v in zip(gr, vr)] for gr, vr in zip(gate, val)]
    return affine(hidden, W3, b3)


def rope(Q, base):
    """Interleaved RoPE of the rows of Q at positions 0, 1, …: the pair (2j, 2j+1) of row t
    rotates by t·θ_j, θ_j = Θ^{−2j/d_k}."""
    dk = len(Q[0])
    out = []
    for t, q in enumerate(Q):
        r = [mpmath.mpf(0)] * dk
        for j in range(dk // 2):
            ang = t * mpmath.power(base, mpmath.mpf(-2 * j) / dk)
            c, s = mpmath.cos(ang), mpmath.sin(ang)
            r[2 * j] = q[2 * j] * c - q[2 * j + 1] * s
            r[2 * j + 1] = q[2 * j + 1] * c + q[2 * j] * s
        out.append(r)
    return out


def density(Q):
    """Lean ``density``: D = Q̂ᵀQ̂, D_ij = Σ_t Q̂_ti Q̂_tj."""
    dk = len(Q[0])
    return [[mpmath.fsum(q[i] * q[j] for q in Q) for j in range(dk)] for i in range(dk)]


def phi_res(D, ln_A, units, eps):
    """Lean ``phiResMat``: LN_A, then per unit A ← LN_u(A + g_n(…g_1(A)))."""
    A = layer_norm(D, ln_A[0], ln_A[1], eps)
    for blocks, gamma, beta in units:
        h = A
        for blk in blocks:
            h = swiglu(h, *blk)
        A = layer_norm([[x + y for x, y in zip(hr, ar)] for hr, ar in zip(h, A)], gamma, beta, eps)
    return A


def matmul(X, Y):
    return [[mpmath.fsum(x[k] * Y[k][j] for k in range(len(x))) for j in range(len(Y[0]))]
            for x in X]


def operator(A, W, b, P, a, b_a, eps):
    """Lean ``opALM``/``opAP``/``opG``: A_LM = iSwiGLU(W A + b) + ε entrywise (iSwiGLU(u) =
    u²σ(u)), A_P = exp(P·log A_LM) (``ExpLog.rpow``), G_LM = a·A_P + b_a."""
    U = matmul(W, A)
    A_LM = [[(u + bb) ** 2 * sigmoid(u + bb) + eps for u, bb in zip(ur, br)]
            for ur, br in zip(U, b)]
    A_P = [[mpmath.exp(p * mpmath.log(x)) for x, p in zip(xr, pr)] for xr, pr in zip(A_LM, P)]
    G = [[g + c for g, c in zip(gr, cr)] for gr, cr in zip(matmul(a, A_P), b_a)]
    return A_LM, A_P, G


def scores(Q, G, K):
    """E = (Q̂ G) K̂ᵀ / √d_k."""
    QG = matmul(Q, G)
    s = mpmath.sqrt(len(G))
    return [[mpmath.fsum(x * y for x, y in zip(qr, kr)) / s for kr in K] for qr in QG]
