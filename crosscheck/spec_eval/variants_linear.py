"""The delta-rule recurrences of ``Formal/Variants``: Gated DeltaNet / KDA, KLA, the KLA chunk.

One function per Lean definition of ``Formal/Variants/DeltaNet.lean`` (``outer``, ``readout``,
``Token``, ``step``, ``Aff`` and its ``apply``/``comp``/``id``, ``Token.aff``, ``run``,
``trace``, ``chunkAff``, ``chunkTrace``, ``chunkedTrace``, ``chunkedRun``, ``corr``),
``Formal/Variants/Kla.lean`` (``sqNorm``, ``residual``, ``write``, ``klaBeta``, ``klaStep``,
``frob``, ``sqLoss``, ``proxObj``) and ``Formal/Variants/KlaChunk.lean`` (``Stream``,
``Stream.tok``, ``state``, ``cum``, ``wvec``, ``Kc``/``Qc``/``Vc``, ``gam``, ``Amat``,
``Aminus``, ``Bd``, ``sysMat``, ``sysRhs``, ``outMat``, ``stateOut``, ``Urec``), with dotted
Lean names written with an underscore (``Aff.comp`` -> ``Aff_comp``). Plus two definitions the
Lean files leave to ``VARIANTS.md`` §1-2: the KLA read-out with the normalized query
(:func:`klaReadout`) and a contiguous chunking of a token list (:func:`chunkLengths`,
:func:`chunksOf`).

States are ``d_k × d_v`` nested lists of mpf (rows indexed by key channels), vectors are
lists; a ``Fin n → α`` argument of Lean is a list of length n. Nothing here imports
:mod:`pyref` or numpy; call inside ``mpmath.workdps(dps)``.
"""

from __future__ import annotations

from typing import NamedTuple

import mpmath

from ._scalar import add, eye, fsum, matmul, transpose, zeros


# ============================================================================ Formal/Data/Matrix
def diag(d):
    """``Mat.diag d``: ``(i, j) ↦ if i = j then d i else 0``."""
    return [[d[i] if i == j else mpmath.mpf(0) for j in range(len(d))] for i in range(len(d))]


def sub(A, B):
    """``Mat.sub``: entrywise ``A i j − B i j``."""
    return [[a - b for a, b in zip(ar, br)] for ar, br in zip(A, B)]


def smul(c, A):
    """``Mat.smul c A``: entrywise ``c * A i j``."""
    return [[c * a for a in row] for row in A]


def hadamard(A, B):
    """``Mat.hadamard``: entrywise ``A i j * B i j``."""
    return [[a * b for a, b in zip(ar, br)] for ar, br in zip(A, B)]


def mulVec(A, v):
    """``Mat.mulVec A v``: ``i ↦ Σ_j A i j * v j``."""
    return [fsum(row[j] * v[j] for j in range(len(v))) for row in A]


def dot(u, v):
    """``Mat.dot u v = Σ_i u i * v i``."""
    return fsum(u[i] * v[i] for i in range(len(u)))


# ============================================================================ DeltaNet.lean
def outer(u, v):
    """``DeltaNet.outer``: ``u vᵀ``, ``(i, j) ↦ u i * v j``."""
    return [[ui * vj for vj in v] for ui in u]


def readout(S, q):
    """``DeltaNet.readout``: ``Sᵀ q = Mat.mulVec (Mat.transpose S) q``."""
    return mulVec(transpose(S), q)


class Token(NamedTuple):
    """``DeltaNet.Token``: the diagonal ``gate`` of ``D_t``, ``beta``, ``key``, ``val``,
    ``query``."""

    gate: list
    beta: object
    key: list
    val: list
    query: list


def step(t, S):
    """``DeltaNet.step``: ``X = Mat.mul (Mat.diag gate) S``, ``S' = X + β k (v − Xᵀk)ᵀ``."""
    X = matmul(diag(t.gate), S)
    Xk = readout(X, t.key)
    r = [t.val[j] - Xk[j] for j in range(len(t.val))]
    return add(X, smul(t.beta, outer(t.key, r)))


class Aff(NamedTuple):
    """``DeltaNet.Aff``: the affine map ``S ↦ P S + R``."""

    P: list
    R: list


def Aff_apply(a, S):
    """``Aff.apply``: ``Mat.add (Mat.mul a.P S) a.R``."""
    return add(matmul(a.P, S), a.R)


def Aff_comp(a2, a1):
    """``Aff.comp a₂ a₁`` (first ``a₁``): ``⟨P₂ P₁, P₂ R₁ + R₂⟩``."""
    return Aff(matmul(a2.P, a1.P), add(matmul(a2.P, a1.R), a2.R))


def Aff_id(dk, dv):
    """``Aff.id``: ``⟨Mat.one d_k, Mat.zero d_k d_v⟩``."""
    return Aff(eye(dk), zeros(dk, dv))


def Token_aff(t):
    """``Token.aff``: ``P = (I − β k kᵀ) Diag(gate)``, ``R = β k vᵀ``."""
    n = len(t.key)
    P = matmul(sub(eye(n), smul(t.beta, outer(t.key, t.key))), diag(t.gate))
    return Aff(P, smul(t.beta, outer(t.key, t.val)))


def run(ts, S):
    """``DeltaNet.run``: ``run [] S = S``, ``run (t :: ts) S = run ts (step t S)``."""
    return S if not ts else run(ts[1:], step(ts[0], S))


def trace(g, ts, S):
    """``DeltaNet.trace``: ``g t S_t`` recorded after every token."""
    if not ts:
        return []
    S1 = step(ts[0], S)
    return [g(ts[0], S1)] + trace(g, ts[1:], S1)


def chunkAff(c, dk, dv):
    """``DeltaNet.chunkAff``: ``[] ↦ Aff.id``, ``t :: ts ↦ Aff.comp (chunkAff ts) t.aff``."""
    return Aff_id(dk, dv) if not c else Aff_comp(chunkAff(c[1:], dk, dv), Token_aff(c[0]))


def chunkTrace(g, acc, c, S0):
    """``DeltaNet.chunkTrace``: token i's state is ``(Aff.comp t.aff acc).apply S₀`` (prefix
    maps accumulated from the chunk start, no token-to-token state passing)."""
    if not c:
        return []
    acc1 = Aff_comp(Token_aff(c[0]), acc)
    return [g(c[0], Aff_apply(acc1, S0))] + chunkTrace(g, acc1, c[1:], S0)


def chunkedTrace(g, cs, S):
    """``DeltaNet.chunkedTrace``: ``chunkTrace g Aff.id c S ++ chunkedTrace g cs
    ((chunkAff c).apply S)``."""
    if not cs:
        return []
    dk, dv = len(S), len(S[0])
    return (chunkTrace(g, Aff_id(dk, dv), cs[0], S)
            + chunkedTrace(g, cs[1:], Aff_apply(chunkAff(cs[0], dk, dv), S)))


def chunkedRun(cs, S):
    """``DeltaNet.chunkedRun``: ``chunkedRun cs ((chunkAff c).apply S)``."""
    if not cs:
        return S
    return chunkedRun(cs[1:], Aff_apply(chunkAff(cs[0], len(S), len(S[0])), S))


def corr(beta, k):
    """``DeltaNet.corr``: ``I − β k kᵀ``."""
    return sub(eye(len(k)), smul(beta, outer(k, k)))


def chunkLengths(T, chunks):
    """A contiguous chunking of T tokens (VARIANTS.md §1), as the chunk lengths: a chunk size C
    gives chunks ``[sC, min((s+1)C, T))``; a list of lengths is itself (it must flatten to the
    T tokens: positive lengths summing to T, else ``None``)."""
    if isinstance(chunks, int):
        lengths, start = [], 0
        while start < T:
            lengths.append(min(chunks, T - start))
            start += chunks
        return lengths
    lengths = list(chunks)
    ok = all(n >= 1 for n in lengths) and sum(lengths) == T
    return lengths if ok else None


def chunksOf(ts, lengths):
    """The list of chunks ``cs`` with ``cs.flatten = ts`` and the given chunk lengths."""
    cs, start = [], 0
    for n in lengths:
        cs.append(ts[start:start + n])
        start += n
    return cs


# ============================================================================ Kla.lean
def sqNorm(x):
    """``Kla.sqNorm``: ``‖x‖² = Σ_i x i * x i``."""
    return fsum(xi * xi for xi in x)


def residual(X, k, v):
    """``Kla.residual``: ``e = v − Xᵀk``."""
    Xk = readout(X, k)
    return [v[j] - Xk[j] for j in range(len(v))]


def write(X, beta, k, v):
    """``Kla.write``: ``Mat.add X (Mat.smul β (outer k (residual X k v)))``."""
    return add(X, smul(beta, outer(k, residual(X, k, v))))


def klaBeta(eta, eps, k):
    """``Kla.klaBeta``: ``β = η/(‖k‖² + ε)``."""
    return eta / (sqNorm(k) + eps)


def klaStep(a, eta, eps, k, v, S):
    """``Kla.klaStep``: ``write (Mat.smul a S) (klaBeta η ε k) k v``."""
    return write(smul(a, S), klaBeta(eta, eps, k), k, v)


def frob(M, N):
    """``Kla.frob``: ``⟨M, N⟩_F = Σ_ij M i j * N i j``."""
    return fsum(fsum(m * n for m, n in zip(mr, nr)) for mr, nr in zip(M, N))


def sqLoss(S, k, v):
    """``Kla.sqLoss``: ``‖Sᵀk − v‖²``."""
    Sk = readout(S, k)
    return sqNorm([Sk[j] - v[j] for j in range(len(v))])


def proxObj(mu, X, k, v, S):
    """``Kla.proxObj``: ``‖S − S̃‖_F² + μ ‖Sᵀk − v‖²``."""
    D = sub(S, X)
    return frob(D, D) + mu * sqLoss(S, k, v)


def klaReadout(S, q):
    """The KLA read-out ``Sᵀ q/‖q‖`` (VARIANTS.md §2; ``Kla.lean`` treats the normalization as
    a change of query): ``readout S q̂`` with ``q̂ = q/√(sqNorm q)``."""
    n = mpmath.sqrt(sqNorm(q))
    return readout(S, [qi / n for qi in q])


# ============================================================================ KlaChunk.lean
class Stream(NamedTuple):
    """``KlaChunk.Stream``: per token ``a`` (decay), ``b`` (write strength), ``k``, ``v``,
    ``q`` (lists indexed by the token)."""

    a: list
    b: list
    k: list
    v: list
    q: list


def klaStream(K, V, Q, alpha, eta, eps):
    """The KLA instance of a ``Stream`` (``KlaChunk.lean``, implementation notes):
    ``b_t = klaBeta η_t ε k_t`` and the normalized queries ``q_t/‖q_t‖``."""
    b = [klaBeta(eta[t], eps, K[t]) for t in range(len(K))]
    qn = [[x / mpmath.sqrt(sqNorm(q)) for x in q] for q in Q]
    return Stream(list(alpha), b, K, V, qn)


def Stream_tok(s, t):
    """``Stream.tok``: token t as a GDN token with the scalar gate ``α_t 𝟙``."""
    return Token([s.a[t]] * len(s.k[t]), s.b[t], s.k[t], s.v[t], s.q[t])


def state(s, S0, t):
    """``KlaChunk.state``: ``state 0 = S₀``, ``state (t+1) = step (s.tok t) (state t)``."""
    S = S0
    for r in range(t):
        S = step(Stream_tok(s, r), S)
    return S


def cum(s, n):
    """``KlaChunk.cum``: ``cum n = α_0 ⋯ α_{n−1}``."""
    c = mpmath.mpf(1)
    for r in range(n):
        c = c * s.a[r]
    return c


def wvec(s, S0, t):
    """``KlaChunk.wvec``: ``u_t = β_t (v_t − (α_t S_t)ᵀ k_t)``."""
    X = readout(smul(s.a[t], state(s, S0, t)), s.k[t])
    return [s.b[t] * (s.v[t][y] - X[y]) for y in range(len(s.v[t]))]


def Kc(s, C):
    """``KlaChunk.Kc``: rows ``k_0, …, k_{C−1}``."""
    return [s.k[i] for i in range(C)]


def Qc(s, C):
    """``KlaChunk.Qc``: rows ``q_0, …, q_{C−1}``."""
    return [s.q[i] for i in range(C)]


def Vc(s, C):
    """``KlaChunk.Vc``: rows ``v_0, …, v_{C−1}``."""
    return [s.v[i] for i in range(C)]


def gam(s, C):
    """``KlaChunk.gam``: ``γ_i = cum (i+1)``."""
    return [cum(s, i + 1) for i in range(C)]


def Amat(s, C):
    """``KlaChunk.Amat``: ``A_ij = γ_i/γ_j`` for ``j ≤ i``, else 0."""
    g = gam(s, C)
    return [[g[i] / g[j] if j <= i else mpmath.mpf(0) for j in range(C)] for i in range(C)]


def Aminus(s, C):
    """``KlaChunk.Aminus``: ``γ_i/γ_j`` for ``j < i``, else 0."""
    g = gam(s, C)
    return [[g[i] / g[j] if j < i else mpmath.mpf(0) for j in range(C)] for i in range(C)]


def Bd(s, C):
    """``KlaChunk.Bd``: ``Mat.diag β``."""
    return diag([s.b[i] for i in range(C)])


def sysMat(s, C):
    """``KlaChunk.sysMat``: ``I + B(A⁻ ⊙ K Kᵀ)``."""
    K = Kc(s, C)
    return add(eye(C), matmul(Bd(s, C), hadamard(Aminus(s, C), matmul(K, transpose(K)))))


def sysRhs(s, C, S0):
    """``KlaChunk.sysRhs``: ``B(V − D_γ K S₀)``."""
    return matmul(Bd(s, C), sub(Vc(s, C), matmul(diag(gam(s, C)), matmul(Kc(s, C), S0))))


def outMat(s, C, S0, U):
    """``KlaChunk.outMat``: ``O = D_γ Q S₀ + (A ⊙ Q Kᵀ) U``."""
    Q = Qc(s, C)
    return add(matmul(diag(gam(s, C)), matmul(Q, S0)),
               matmul(hadamard(Amat(s, C), matmul(Q, transpose(Kc(s, C)))), U))


def stateOut(s, C, S0, U):
    """``KlaChunk.stateOut``: ``S_out = γ_C S₀ + Kᵀ Diag(γ_C/γ_j) U``."""
    g = gam(s, C)
    ratios = diag([cum(s, C) / g[j] for j in range(C)])
    return add(smul(cum(s, C), S0), matmul(transpose(Kc(s, C)), matmul(ratios, U)))


def Urec(s, C, S0):
    """``KlaChunk.Urec``: the recurrence's write vectors as a ``C × d_v`` matrix."""
    return [wvec(s, S0, i) for i in range(C)]
