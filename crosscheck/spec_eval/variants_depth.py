"""The depth-mixing variants of ``Formal/Variants``: mHC residual mixing and Attention Residuals.

One function per Lean definition of ``Formal/Variants/Mhc.lean`` (``rowSum``, ``colSum``,
``normSq``, ``rowStep``, ``colStep``, ``transfer``) and ``Formal/Variants/AttnRes.lean``
(``partition``, ``dwts``, ``depthRead``, ``rmsNorm``, ``scores``, ``attnRes``, ``gZ``,
``gNum``, ``gRead``, ``gLse``, ``merge``, ``deltaInput``, ``gatedInput``, ``withZero``). Plus
the definitions the Lean files leave to ``VARIANTS.md`` §3-4: the Sinkhorn rounds from
``M⁽⁰⁾ = exp Z`` (:func:`sinkhornRounds`, :func:`sinkhorn`), the doubly-stochastic defect read
off the definition ``DoublyStochastic`` (:func:`dsDefect`), the log-partition of a merge
(:func:`mergeLse`) and the Delta Block candidates (:func:`blockDifferences`).

The Lean files take ``exp``/``log``/``√`` as hypothesis structures (``ExpLog``, ``SqrtFn``);
here they are mpmath's, at the working precision. Matrices are nested lists of mpf, vectors
lists, a group ``g : Fin N → Bool`` a list of booleans. Nothing here imports :mod:`pyref` or
numpy; call inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

import mpmath

from ._scalar import fsum, matmul


# ============================================================================ Mhc.lean
def rowSum(M, i):
    """``Mhc.rowSum``: ``Σ_j M i j``."""
    return fsum(M[i])


def colSum(M, j):
    """``Mhc.colSum``: ``Σ_i M i j``."""
    return fsum(M[i][j] for i in range(len(M)))


def normSq(v):
    """``Mhc.normSq``: ``‖v‖² = Σ_i v i * v i``."""
    return fsum(x * x for x in v)


def colStep(M):
    """``Mhc.colStep``: ``M i j / colSum M j``."""
    return [[M[i][j] / colSum(M, j) for j in range(len(M[0]))] for i in range(len(M))]


def rowStep(M):
    """``Mhc.rowStep``: ``M i j / rowSum M i``."""
    return [[M[i][j] / rowSum(M, i) for j in range(len(M[0]))] for i in range(len(M))]


def sinkhornRounds(M, n, order):
    """``n`` Sinkhorn rounds (VARIANTS.md §3, "alternate row and column normalization"): a
    round is ``colStep ∘ rowStep`` (``order = "row-first"``, as in ``sinkhorn_round_row_sum``)
    or ``rowStep ∘ colStep`` (``"col-first"``)."""
    for _ in range(n):
        M = colStep(rowStep(M)) if order == "row-first" else rowStep(colStep(M))
    return M


def sinkhorn(Z, n, order):
    """Sinkhorn from ``M⁽⁰⁾ = exp Z`` (VARIANTS.md §3): :func:`sinkhornRounds` of
    ``exp(Z i j)``."""
    return sinkhornRounds([[mpmath.exp(z) for z in row] for row in Z], n, order)


def dsDefect(B):
    """How far ``B`` is from the sum conditions of ``Mhc.DoublyStochastic``:
    ``(max_i |rowSum B i − 1|, max_j |colSum B j − 1|)``."""
    r = max(abs(rowSum(B, i) - 1) for i in range(len(B)))
    c = max(abs(colSum(B, j) - 1) for j in range(len(B[0])))
    return r, c


def transfer(B, A, C, F, X):
    """``Mhc.transfer``: ``(i, k) ↦ (B X) i k + C i * F (k' ↦ Σ_i' A i' * X i' k') k`` (``A``,
    ``C`` vectors of length n; ``F`` maps a list of length d to a list of length d)."""
    n, d = len(X), len(X[0])
    BX = matmul(B, X)
    y = F([fsum(A[i] * X[i][k] for i in range(n)) for k in range(d)])
    return [[BX[i][k] + C[i] * y[k] for k in range(d)] for i in range(n)]


# ============================================================================ AttnRes.lean
def partition(s):
    """``AttnRes.partition``: ``Σ_j e^{s_j}``."""
    return fsum(mpmath.exp(x) for x in s)


def dwts(s):
    """``AttnRes.dwts``: ``i ↦ e^{s_i}/partition s`` (all N weights)."""
    Z = partition(s)
    return [mpmath.exp(x) / Z for x in s]


def depthRead(s, V):
    """``AttnRes.depthRead``: ``k ↦ Σ_i dwts s i * V i k``."""
    w = dwts(s)
    return [fsum(w[i] * V[i][k] for i in range(len(V))) for k in range(len(V[0]))]


def rmsNorm(eps, v):
    """``AttnRes.rmsNorm``: ``v k/√(ε + Σ_l v l * v l/d)``."""
    d = len(v)
    r = mpmath.sqrt(eps + fsum(x * x for x in v) / d)
    return [x / r for x in v]


def scores(eps, w, V):
    """``AttnRes.scores``: ``s_i = Mat.dot w (rmsNorm ε (V i))``."""
    return [fsum(a * b for a, b in zip(w, rmsNorm(eps, v))) for v in V]


def attnRes(eps, w, V):
    """``AttnRes.attnRes``: ``depthRead (scores ε w V) V``."""
    return depthRead(scores(eps, w, V), V)


def gZ(s, g, c):
    """``AttnRes.gZ``: ``Σ_{i ∈ G} e^{s_i − c}``."""
    return fsum(mpmath.exp(s[i] - c) if g[i] else mpmath.mpf(0) for i in range(len(s)))


def gNum(s, V, g, c):
    """``AttnRes.gNum``: ``k ↦ Σ_{i ∈ G} e^{s_i − c} V i k``."""
    return [fsum(mpmath.exp(s[i] - c) * V[i][k] if g[i] else mpmath.mpf(0)
                 for i in range(len(s))) for k in range(len(V[0]))]


def gRead(s, V, g, c):
    """``AttnRes.gRead``: ``k ↦ gNum k / gZ``."""
    Z = gZ(s, g, c)
    return [x / Z for x in gNum(s, V, g, c)]


def gLse(s, g, c):
    """``AttnRes.gLse``: ``c + log (gZ s g c)``."""
    return c + mpmath.log(gZ(s, g, c))


def mergeLse(LA, LB):
    """The log-partition inside ``AttnRes.merge``: ``L = log(e^{L_A} + e^{L_B})``."""
    return mpmath.log(mpmath.exp(LA) + mpmath.exp(LB))


def merge(hA, hB, LA, LB):
    """``AttnRes.merge``: ``k ↦ e^{L_A − L} hA k + e^{L_B − L} hB k``."""
    L = mergeLse(LA, LB)
    return [mpmath.exp(LA - L) * a + mpmath.exp(LB - L) * b for a, b in zip(hA, hB)]


def deltaInput(eps, w, V, ht):
    """``AttnRes.deltaInput``: ``k ↦ ht k + attnRes ε w V k``."""
    return [x + r for x, r in zip(ht, attnRes(eps, w, V))]


def gatedInput(g, r, ht):
    """``AttnRes.gatedInput``: ``k ↦ ht k + g * r k``."""
    return [x + g * y for x, y in zip(ht, r)]


def withZero(V):
    """``AttnRes.withZero``: append the zero-vector candidate."""
    return [list(v) for v in V] + [[mpmath.mpf(0)] * len(V[0])]


def blockDifferences(H):
    """Delta Block candidates (VARIANTS.md §4): ``Δ_b = h̃_{τ_{b+1}} − h̃_{τ_b}`` from the
    boundary states ``H`` (scalars or vectors)."""
    if H and isinstance(H[0], list):
        return [[a - b for a, b in zip(H[i + 1], H[i])] for i in range(len(H) - 1)]
    return [H[i + 1] - H[i] for i in range(len(H) - 1)]
