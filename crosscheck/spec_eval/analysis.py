"""``pyref.analysis`` evaluated from its definitions: the Perron data of a positive matrix, the
Laplace determinant, singular values, the RoPE eigenbasis and commutant tools, and the audit
statistics of spec D.

Lean sources: ``Formal/Data/Matrix.lean`` (``Mat.mulVec``, ``Mat.trace``, ``Mat.hadamard``,
``Mat.pow``), ``Formal/Perron/Existence.lean`` (``entrySum``), ``Formal/Perron/Iteration.lean``
(``minRatio``, ``maxRatio``), ``Formal/Structure/RankOne.lean`` (``det``, ``skip``,
``rowClone``), ``Formal/Rope/Rotation.lean`` (``ropeMat``), ``Formal/Rope/Commutant.lean``
(``commEmbed``), ``Formal/Rope/Projection.lean`` (``proj``), ``Formal/Structure/LayerNorm.lean``
(``rowMean``, ``rowVar``, ``lnEps``). The audit statistics without a Lean definition (the
second eigenvalue modulus, σ₂/σ₁, the numerical rank, the commutant residual in the complex RoPE
eigenbasis, the order parameter, the row-variance ratio, the ε-LN scale error) follow
``PLGA_SPEC.md`` §D word for word.

Matrices are lists of rows of ``mpmath.mpf`` (``_scalar.mat`` converts exactly); every function
works at the ambient ``mpmath`` precision, so call it inside ``mpmath.workdps(dps)`` with ``dps``
above the precision of what it is compared with. Eigen- and singular values come from
``mpmath.eig`` / ``mpmath.eigsy`` (QR iterations at the working precision, nothing of pyref's);
everything else is an explicit loop.
"""

from __future__ import annotations

import mpmath

from ._scalar import eye, fsum, matmul, transpose, zeros


# ------------------------------------------------------------ Formal/Data/Matrix.lean
def mulVec(A, v):
    """``Mat.mulVec``: (A v)_i = Σ_j A_ij v_j."""
    return [fsum(a * x for a, x in zip(row, v)) for row in A]


def trace(A):
    """``Mat.trace``: Σ_i A_ii."""
    return fsum(A[i][i] for i in range(len(A)))


def hadamard(A, B):
    """``Mat.hadamard``: (A ⊙ B)_ij = A_ij B_ij."""
    return [[a * b for a, b in zip(ra, rb)] for ra, rb in zip(A, B)]


def matPow(A, k):
    """``Mat.pow``: A^0 = 1, A^(k+1) = A^k A."""
    P = eye(len(A))
    for _ in range(k):
        P = matmul(P, A)
    return P


def frobNorm(X):
    """‖X‖_F = √(Σ |x_ij|²) (complex entries allowed)."""
    return mpmath.sqrt(fsum(abs(x) ** 2 for row in X for x in row))


# ------------------------------------------------------------------ Formal/Perron
def entrySum(A):
    """``entrySum`` (Existence.lean): Σ_ij A_ij."""
    return fsum(fsum(row) for row in A)


def minRatio(y, x):
    """``minRatio`` (Iteration.lean): min_i y_i/x_i (0 for n = 0)."""
    return min((a / b for a, b in zip(y, x)), default=mpmath.mpf(0))


def maxRatio(y, x):
    """``maxRatio`` (Iteration.lean): max_i y_i/x_i (0 for n = 0)."""
    return max((a / b for a, b in zip(y, x)), default=mpmath.mpf(0))


def collatzWielandt(A, x):
    """(minRatio(Ax, x), maxRatio(Ax, x)): for A > 0 and x > 0 the Perron root lies between
    them (``collatz_wielandt_min_le``, ``collatz_wielandt_le_max``, Collatz.lean)."""
    y = mulVec(A, x)
    return minRatio(y, x), maxRatio(y, x)


def spectrum(A):
    """(λ, L, R): the eigenvalues of A (``mpmath.eig``), the left eigenvectors as rows ``L[j]``
    and the right ones as lists ``R[j]``, all as ``mpc``."""
    n = len(A)
    E, EL, ER = mpmath.eig(mpmath.matrix(A), left=True, right=True)
    lam = [mpmath.mpc(e) for e in E]
    L = [[mpmath.mpc(EL[j, i]) for i in range(n)] for j in range(n)]
    R = [[mpmath.mpc(ER[i, j]) for i in range(n)] for j in range(n)]
    return lam, L, R


def perronIndex(lam):
    """Index of the eigenvalue of largest real part (the Perron root of a positive matrix,
    Theorem38.lean: it is real, simple and strictly dominant)."""
    return max(range(len(lam)), key=lambda j: lam[j].real)


def perronPair(A):
    """(r, v, λ, L, R): the Perron root r, its right eigenvector normalized to Σ v = 1, and the
    spectrum it was read from (:func:`spectrum`)."""
    lam, L, R = spectrum(A)
    k = perronIndex(lam)
    s = fsum(R[k])
    return lam[k].real, [(x / s).real for x in R[k]], lam, L, R


def secondModulus(lam):
    """max_{j ≠ k} |λ_j| for the Perron index k (spec D: ``|λ₂|``; 0 for n = 1)."""
    k = perronIndex(lam)
    return max((abs(lam[j]) for j in range(len(lam)) if j != k), default=mpmath.mpf(0))


def eigenvalueConditions(L, R):
    """κ_j = ‖l_j‖‖r_j‖/|l_jᴴ r_j| (the condition number of the simple eigenvalue λ_j; first-order
    perturbation |δλ_j| ≤ κ_j‖E‖₂, Golub–Van Loan §7.2.2)."""
    out = []
    for lj, rj in zip(L, R):
        nl = mpmath.sqrt(fsum(abs(t) ** 2 for t in lj))
        nr = mpmath.sqrt(fsum(abs(t) ** 2 for t in rj))
        d = abs(fsum(a * b for a, b in zip(lj, rj)))
        out.append(nl * nr / d if d > 0 else mpmath.inf)
    return out


def hilbertDistance(x, y):
    """Hilbert's projective distance log max_i(x_i/y_i) − log min_i(x_i/y_i) of positive
    vectors."""
    return mpmath.log(maxRatio(x, y)) - mpmath.log(minRatio(x, y))


def birkhoffContraction(A):
    """Birkhoff's contraction coefficient τ = (1 − √φ)/(1 + √φ) of a positive A,
    φ = min_{i,j,k,l} A_ik A_jl/(A_jk A_il) (0 for n = 1): d_H(Ax, Ay) ≤ τ d_H(x, y)."""
    n = len(A)
    if n == 1:
        return mpmath.mpf(0)
    phi = None
    for i in range(n):
        for j in range(n):
            if i != j:
                q = [A[i][k] / A[j][k] for k in range(n)]
                c = min(q) / max(q)
                phi = c if phi is None or c < phi else phi
    s = mpmath.sqrt(phi)
    return (1 - s) / (1 + s)


def perronVectorRadius(A, v, tau):
    """A bound on d_H(v, v*) for the exact Perron vector v*: d_H(v, Av) = log(max/min of the
    Collatz–Wielandt ratios) and d_H(Av, v*) ≤ τ d_H(v, v*) give d_H(v, v*) ≤ d_H(v, Av)/(1 − τ)
    (∞ if τ = 1)."""
    lo, hi = collatzWielandt(A, v)
    return mpmath.log(hi / lo) / (1 - tau) if tau < 1 else mpmath.inf


# -------------------------------------------------------- Formal/Structure/RankOne.lean
def skip(i, a):
    """``skip`` (``Fin.succAbove``): the a-th index of {0..n} skipping i."""
    return a if a < i else a + 1


def det(A):
    """``det`` (RankOne.lean): Laplace expansion along the first column,
    det A = Σ_i (−1)^i A_i0 det(A without row i and column 0); det of the 0×0 matrix is 1."""
    n = len(A)
    if n == 0:
        return mpmath.mpf(1)
    terms = []
    for i in range(n):
        minor = [[A[skip(i, a)][b + 1] for b in range(n - 1)] for a in range(n - 1)]
        terms.append((-1) ** i * A[i][0] * det(minor))
    return fsum(terms)


def rowClone(a):
    """``rowClone`` (RankOne.lean): the matrix 𝟙aᵀ whose every row is a."""
    return [list(a) for _ in a]


# ----------------------------------------------------------------- singular values
def singularValues(A):
    """σ_1 ≥ … ≥ σ_min(m,n) of A: √λ_i(AᵀA) (or of AAᵀ, the smaller one), with the Gram matrix
    formed and diagonalized by ``mpmath.eigsy`` at 2·dps + 10 digits (exact Gram; |δλ| ~
    10^-(2dps+9)‖A‖², so σ is good to ~10^-(dps+4)‖A‖ even at σ = 0)."""
    m, n = len(A), len(A[0])
    dps = mpmath.mp.dps
    with mpmath.workdps(2 * dps + 10):
        X = A if n <= m else transpose(A)
        G = matmul(transpose(X), X)
        lam = mpmath.eigsy(mpmath.matrix(G), eigvals_only=True)
        s = sorted((mpmath.sqrt(max(lam[i], 0)) for i in range(len(G))), reverse=True)
    return [+x for x in s]


def singularRatio(A):
    """σ₂/σ₁ (spec D: rank-one statistics)."""
    s = singularValues(A)
    return s[1] / s[0]


def numericalRank(A, rtol):
    """#{σ_i > rtol·σ₁} (spec D: numerical rank; 0 for the zero matrix)."""
    s = singularValues(A)
    return sum(1 for x in s if x > rtol * s[0])


# ------------------------------------------------------------------------- Formal/Rope
def ropeTheta(j, dk, base):
    """θ_j = Θ^{−2j/d_k} (spec A.4, the real RoPE family of Rotation.lean)."""
    return mpmath.power(base, mpmath.mpf(-2 * j) / dk)


def ropeFrequencies(dk, base):
    """ω of the complex RoPE eigenbasis (spec D2): ω_{2a} = +θ_a, ω_{2a+1} = −θ_a."""
    out = []
    for a in range(dk // 2):
        t = ropeTheta(a, dk, base)
        out += [t, -t]
    return out


def ropeEigenbasis(dk):
    """U of spec D2: column 2a = (e_{2a} − i e_{2a+1})/√2, column 2a+1 = (e_{2a} + i e_{2a+1})/√2
    (so R_n U = U diag(e^{i n ω}))."""
    r = 1 / mpmath.sqrt(2)
    U = [[mpmath.mpc(0)] * dk for _ in range(dk)]
    for a in range(dk // 2):
        U[2 * a][2 * a], U[2 * a + 1][2 * a] = mpmath.mpc(r), mpmath.mpc(0, -r)
        U[2 * a][2 * a + 1], U[2 * a + 1][2 * a + 1] = mpmath.mpc(r), mpmath.mpc(0, r)
    return U


def rot(a, b):
    """``M2.rot a b`` (Block.lean): [[a, −b], [b, a]]."""
    return [[a, -b], [b, a]]


def bdiag(blocks):
    """``BMat.bdiag`` in flat interleaved coordinates 2j + r (Flat.lean)."""
    dk = 2 * len(blocks)
    X = zeros(dk, dk)
    for j, B in enumerate(blocks):
        for r in range(2):
            for s in range(2):
                X[2 * j + r][2 * j + s] = B[r][s]
    return X


def ropeMat(n, dk, base):
    """``ropeMat``/``flatRope`` (Rotation.lean, Flat.lean): blockdiag_j rot(cos nθ_j, sin nθ_j)."""
    blocks = []
    for j in range(dk // 2):
        ang = n * ropeTheta(j, dk, base)
        blocks.append(rot(mpmath.cos(ang), mpmath.sin(ang)))
    return bdiag(blocks)


def commEmbed(a, b):
    """``commEmbed a b`` (Commutant.lean): blockdiag_j rot(a_j, b_j)."""
    return bdiag([rot(x, y) for x, y in zip(a, b)])


def proj(G):
    """``proj`` (Projection.lean): commEmbed of a_j = (G_{j0,j0} + G_{j1,j1})/2,
    b_j = (G_{j1,j0} − G_{j0,j1})/2 (flat indices 2j + r)."""
    m = len(G) // 2
    a = [(G[2 * j][2 * j] + G[2 * j + 1][2 * j + 1]) / 2 for j in range(m)]
    b = [(G[2 * j + 1][2 * j] - G[2 * j][2 * j + 1]) / 2 for j in range(m)]
    return commEmbed(a, b)


def _cmatmul(X, Y):
    return [[fsum(x[k] * Y[k][j] for k in range(len(x))) for j in range(len(Y[0]))] for x in X]


def _conjT(X):
    return [[mpmath.conj(X[i][j]) for i in range(len(X))] for j in range(len(X[0]))]


def commutantProjectionSpec(G, base, tol=mpmath.mpf("1e-12")):
    """Spec D2's Π in the real coordinates: U Π_ω(U*GU) U* with Π_ω keeping the entries
    (j, k) with |ω_j − ω_k| < tol (real part of the result)."""
    dk = len(G)
    U, w = ropeEigenbasis(dk), ropeFrequencies(dk, base)
    Gc = _cmatmul(_cmatmul(_conjT(U), G), U)
    kept = [[Gc[j][k] if abs(w[j] - w[k]) < tol else mpmath.mpc(0) for k in range(dk)]
            for j in range(dk)]
    P = _cmatmul(_cmatmul(U, kept), _conjT(U))
    return [[x.real for x in row] for row in P]


def commutantResidual(G, base, tol=mpmath.mpf("1e-12")):
    """Spec D2: ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F, G_c = U*GU, Π keeping |ω_j − ω_k| < tol."""
    dk = len(G)
    U, w = ropeEigenbasis(dk), ropeFrequencies(dk, base)
    Gc = _cmatmul(_cmatmul(_conjT(U), G), U)
    off = [[Gc[j][k] if not abs(w[j] - w[k]) < tol else 0 for k in range(dk)] for j in range(dk)]
    return frobNorm(off) / frobNorm(Gc)


def leanCommutantResidual(G):
    """‖G − proj G‖_F/‖G‖_F with the Lean ``proj`` (equal to :func:`commutantResidual` for a
    non-resonant spectrum: U is unitary and U Π_ω U* = proj)."""
    P = proj(G)
    return frobNorm([[g - p for g, p in zip(rg, rp)] for rg, rp in zip(G, P)]) / frobNorm(G)


def commutatorResidual(G, base, positions):
    """max_p ‖G R_p − R_p G‖_F/‖G‖_F over ``positions`` (R_p = :func:`ropeMat`)."""
    dk, nG = len(G), frobNorm(G)
    best = mpmath.mpf(0)
    for p in positions:
        R = ropeMat(p, dk, base)
        GR, RG = matmul(G, R), matmul(R, G)
        C = [[x - y for x, y in zip(r1, r2)] for r1, r2 in zip(GR, RG)]
        best = max(best, frobNorm(C) / nG)
    return best


# ------------------------------------------------------------ spec D audit statistics
def flatten(X):
    """The entries of a nested list, in row-major order."""
    if isinstance(X, list):
        return [y for x in X for y in flatten(x)]
    return [X]


def _mean(xs):
    return fsum(xs) / len(xs)


def _rms(xs):
    return mpmath.sqrt(_mean([x * x for x in xs]))


def orderParameter(X1, X2):
    """Spec D order parameter of two same-shape arrays: rmse = RMS(X₁ − X₂);
    m_rms = rmse/(½(RMS X₁ + RMS X₂)); m_signed = rmse/(½(|mean X₁| + |mean X₂|)) (∞ if the means
    cancel); m_first = rmse/|mean X₁| (the SOC paper's one-sided form; ∞ if mean X₁ = 0); all
    three 0 when rmse = 0. Returns a dict with these four keys."""
    a, b = flatten(X1), flatten(X2)
    rmse = _rms([x - y for x, y in zip(a, b)])
    if rmse == 0:
        return {"rmse": rmse, "m_rms": rmse, "m_signed": rmse, "m_first": rmse}

    def ratio(p, q):
        return p / q if q > 0 else mpmath.inf

    ma, mb = abs(_mean(a)), abs(_mean(b))
    return {"rmse": rmse, "m_rms": ratio(rmse, (_rms(a) + _rms(b)) / 2),
            "m_signed": ratio(rmse, (ma + mb) / 2), "m_first": ratio(rmse, ma)}


def rowVarianceParts(A):
    """(num, den) of spec D's row-variance ratio: num = mean((A − 𝟙āᵀ)²) with ā the mean row,
    den = mean((A − mean A)²)."""
    m, n = len(A), len(A[0])
    abar = [fsum(A[i][j] for i in range(m)) / m for j in range(n)]
    mu = _mean(flatten(A))
    num = _mean([(A[i][j] - abar[j]) ** 2 for i in range(m) for j in range(n)])
    den = _mean([(A[i][j] - mu) ** 2 for i in range(m) for j in range(n)])
    return num, den


def rowVarianceRatio(A):
    """Spec D: mean((A − 𝟙āᵀ)²)/mean((A − mean A)²) (0 for a ``rowClone``)."""
    num, den = rowVarianceParts(A)
    return num / den


def rowMean(r):
    """``rowMean`` (LayerNorm.lean): (Σ_i r_i)/d."""
    return fsum(r) / len(r)


def rowVar(r):
    """``rowVar`` (LayerNorm.lean): (Σ_i (r_i − μ)²)/d (biased)."""
    mu = rowMean(r)
    return fsum((x - mu) * (x - mu) for x in r) / len(r)


def lnEps(eps, gamma, beta, r):
    """``lnEps`` (LayerNorm.lean): γ_i (r_i − μ)/√(var + ε) + β_i."""
    mu, s = rowMean(r), mpmath.sqrt(rowVar(r) + eps)
    return [g * (x - mu) / s + b for g, b, x in zip(gamma, beta, r)]


def lnScaleError(D, gamma, beta, S, eps):
    """Spec D/C ε-LN scale error, per row r of D: abs_l2 = ‖LN(r) − LN(r/S)‖₂,
    rel_l2 = abs_l2/‖LN(r)‖₂ (0 if LN(r) = 0), proxy = ε/(2 var(r/S)) (∞ if the variance is 0).
    Returns a dict of three lists."""
    out = {"abs_l2": [], "rel_l2": [], "proxy": []}
    for r in D:
        l1 = lnEps(eps, gamma, beta, r)
        rs = [x / S for x in r]
        l2 = lnEps(eps, gamma, beta, rs)
        a = mpmath.sqrt(fsum((x - y) ** 2 for x, y in zip(l1, l2)))
        nrm = mpmath.sqrt(fsum(x * x for x in l1))
        v = rowVar(rs)
        out["abs_l2"].append(a)
        out["rel_l2"].append(a / nrm if nrm > 0 else mpmath.mpf(0))
        out["proxy"].append(eps / (2 * v) if v > 0 else mpmath.inf)
    return out


def cacheDeviation(cached, uncached, G_prompt, G_steps):
    """Spec D/G cache deviation from its ingredients: per step t the cached last-row logits
    ``cached[t]`` [V] and the uncached ones ``uncached[t]`` [V], the prompt's per-layer operators
    ``G_prompt[l]`` and the uncached ones ``G_steps[t][l]`` (nested lists of any shape):
    d_t = max|ℓ_c − ℓ_u|, margin_t = top1 − top2 of ℓ_c (∞ for V = 1),
    ε_G(t, l) = RMS(G_u − G_prompt)/RMS(G_u) (0 if RMS(G_u) = 0), max|ΔG|(t, l), and
    sufficient = 2 max d < min margin (True with no steps). Returns a dict."""
    d, margin, eps, mx = [], [], [], []
    for lc, lu, Gs in zip(cached, uncached, G_steps):
        d.append(max(abs(x - y) for x, y in zip(lc, lu)))
        top = sorted(lc, reverse=True)
        margin.append(top[0] - top[1] if len(top) > 1 else mpmath.inf)
        row_e, row_m = [], []
        for Gu, Gp in zip(Gs, G_prompt):
            u, p = flatten(Gu), flatten(Gp)
            diff = [x - y for x, y in zip(u, p)]
            ru = _rms(u)
            row_e.append(_rms(diff) / ru if ru > 0 else mpmath.mpf(0))
            row_m.append(max(abs(x) for x in diff))
        eps.append(row_e)
        mx.append(row_m)
    suff = (not d) or 2 * max(d) < min(margin)
    return {"d": d, "margin": margin, "eps_G": eps, "max_dG": mx, "sufficient": suff}
