"""``pyref.losses`` evaluated from its definitions: the matrix exponential and the DAG loss
(``Formal/Structure/Dag.lean``), and the masked cross-entropy of spec C.

Lean sources: ``Formal/Structure/Dag.lean`` (``fact``, ``expTracePartial`` S_K = Σ_{k≤K}
tr(N^k)/k!, ``ConvergesTo``, and the DAG loss log(T/d) of ``dagLoss_nonneg`` /
``dagLoss_ge_log_one_add_sq`` with T the limit of S_K), ``Formal/Data/Matrix.lean`` (``Mat.pow``,
``Mat.trace``, ``Mat.hadamard``), ``Formal/Attention/Softmax.lean`` (``softmax``: the
log-softmax here is log of it). Spec C (``PLGA_SPEC.md``): ℒ_CE = Σ_{b,t} m_bt CE_bt / Σ m_bt
with m = [y ≠ pad]; DL(M) = mean over (l, b, h) of |log(tr expm(M ⊙ M)/d_k)|;
ℒ_DAG = c_A DL(A_LM) + c_P DL(A_P) + c_G DL(G_LM), a term added only if its c > 0; block loss =
one call on tok[:, :−1] whose row t scores tok[:, t+1]; sequential = one call per prefix
tok[:, :t+1], reading the final row.

Nested lists of ``mpmath.mpf``; call inside ``mpmath.workdps(dps)``. The exponential series are
summed term by term (no scaling and squaring, no Padé: nothing shared with pyref's
``_expm_float`` or ``mpmath.expm``), at extra working precision covering the cancellation
e^{‖N‖}/‖e^N‖ of signed N.
"""

from __future__ import annotations

import math

import mpmath

from ._scalar import eye, fsum, matmul
from .analysis import hadamard, trace


# -------------------------------------------------------------- Formal/Structure/Dag.lean
def fact(k):
    """``fact`` (Dag.lean): k!."""
    return math.factorial(k)


def expTracePartial(N, K):
    """``expTracePartial`` (Dag.lean): S_K = Σ_{k ≤ K} tr(N^k)/k!."""
    P, S = eye(len(N)), mpmath.mpf(0)
    for k in range(K + 1):
        if k:
            P = matmul(P, N)
        S += trace(P) / fact(k)
    return S


def _norm_inf(N):
    return max((fsum(abs(x) for x in row) for row in N), default=mpmath.mpf(0))


def matExp(N):
    """e^N = Σ_k N^k/k! summed until a term is below 10^-(dps+10) of the partial sum's norm and
    k > ‖N‖_∞ (then the tail is below that term times Σ_j (‖N‖/(k+1))^j ≤ 2× it). Evaluated with
    extra digits 2‖N‖_∞·log₁₀e + 10: the terms reach e^{‖N‖} while the sum can be as small as
    e^{−‖N‖}."""
    dps = mpmath.mp.dps
    n = len(N)
    nrm = _norm_inf(N)
    with mpmath.workdps(dps + int(2 * float(nrm) * 0.4343) + 10):
        E, T = eye(n), eye(n)
        k = 0
        tol = mpmath.mpf(10) ** (-(dps + 10))
        while True:
            k += 1
            T = [[x / k for x in row] for row in matmul(T, N)]
            E = [[e + t for e, t in zip(re, rt)] for re, rt in zip(E, T)]
            if k > nrm and _norm_inf(T) <= tol * _norm_inf(E):
                break
    return [[+x for x in row] for row in E]


def traceExp(N):
    """T = lim_K ``expTracePartial`` N K (Dag.lean's ``ConvergesTo (expTracePartial N) T``):
    the trace of :func:`matExp`."""
    return trace(matExp(N))


def dagLoss(M):
    """The DAG term of one head (spec C, Dag.lean): |log(T/d)| with T = tr e^{M⊙M}."""
    return abs(mpmath.log(traceExp(hadamard(M, M)) / len(M)))


def _heads(X):
    """The d×d matrices of a nested list [..., d, d], in row-major order of the leading axes."""
    if not isinstance(X[0][0], list):
        return [X]
    return [m for x in X for m in _heads(x)]


def dagLossMean(Ms):
    """Spec C: DL(M) = mean over all leading axes of :func:`dagLoss` (M nested [..., d, d])."""
    terms = [dagLoss(m) for m in _heads(Ms)]
    return fsum(terms) / len(terms)


def dagRegularizer(deductive, coeffs):
    """Spec C: Σ over (c, key) ∈ zip(coeffs, (A_LM, A_P, G_LM)) with c > 0 of c·DL(stack of the
    layers' ``key`` tensors); 0 when every c is 0."""
    total = mpmath.mpf(0)
    for c, key in zip(coeffs, ("A_LM", "A_P", "G_LM")):
        if c > 0:
            total += c * dagLossMean([d[key] for d in deductive])
    return total


# --------------------------------------------------------------------- spec C, softmax
def logSoftmax(x):
    """log ``softmax`` (Softmax.lean): x_i − log Σ_j e^{x_j} (no shift: mpmath does not
    overflow)."""
    lse = mpmath.log(fsum(mpmath.exp(t) for t in x))
    return [t - lse for t in x]


def maskedCrossEntropy(logits, targets, pad_id=0):
    """Spec C (``masked_loss_function``): logits [B][S][V], integer targets [B][S];
    lp_bt = logSoftmax(logits_bt)[y_bt], m_bt = [y_bt ≠ pad_id], loss = −Σ m lp/Σ m
    (None if Σ m = 0). Returns (loss, lp, mask)."""
    lp = [[logSoftmax(row)[y] for row, y in zip(rows, ys)] for rows, ys in zip(logits, targets)]
    mask = [[y != pad_id for y in ys] for ys in targets]
    n = sum(sum(1 for m in ms if m) for ms in mask)
    tot = fsum(v for vs, ms in zip(lp, mask) for v, m in zip(vs, ms) if m)
    return (-tot / n if n else None), lp, mask


def blockCrossEntropy(forward, tokens):
    """Spec C block loss: ``forward`` (a callable: token rows -> logits [B][S'][V]) is called
    once on tok[:, :−1]; row t scores tok[:, t+1]; pad id 0."""
    logits = forward([row[:-1] for row in tokens])
    return maskedCrossEntropy(logits, [row[1:] for row in tokens], 0)


def sequentialNll(forward, tokens):
    """Spec D (S1) sequential NLL: for t = 0 … S−2 one call on tok[:, :t+1], reading the final
    row's log-probability of tok[:, t+1]; masked mean over targets ≠ 0."""
    S = len(tokens[0])
    cols = []
    for t in range(S - 1):
        logits = forward([row[:t + 1] for row in tokens])
        cols.append([logSoftmax(rows[-1])[row[t + 1]] for rows, row in zip(logits, tokens)])
    lp = [[cols[t][b] for t in range(S - 1)] for b in range(len(tokens))]
    mask = [[y != 0 for y in row[1:]] for row in tokens]
    n = sum(sum(1 for m in ms if m) for ms in mask)
    tot = fsum(v for vs, ms in zip(lp, mask) for v, m in zip(vs, ms) if m)
    return (-tot / n if n else None), lp, mask
