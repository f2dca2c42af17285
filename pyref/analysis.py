"""Analysis tools (spec D): Perron root/vector of entrywise-positive operators, singular
value statistics, the RoPE commutant projection and residual, commutators with RoPE,
the order parameter, high-precision determinants, a few audit statistics, and certified
error bounds of float forward passes (:func:`certified_error`, from one arb pass).

Inputs may be float arrays or object arrays of mpf; every function validates its input
and raises ``ValueError`` (never returns NaN) on malformed data.

The high-precision paths run on Arb (python-flint, :mod:`pyref.arb_linalg`): :func:`perron`
iterates in floating-point arithmetic at dps + 10 digits on Arb matrices (an approximation,
certified separately by ``crosscheck.certificates``); :func:`det` with ``backend="arb"``
returns a rigorous enclosure of the exact determinant, and ``backend="mp"`` its midpoint.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import flint
import mpmath
import numpy as np
from flint import acb_mat, arb, arb_mat

from .arb import abs_err_bound, mid_rad
from .arb_linalg import arb_matrix, det_enclosure, mid_mpf, prec_bits
from .backend import Backend, to_float64
from .layers import layer_norm
from .rope import rope_matrix

F32_EPS = float(np.finfo(np.float32).eps)


def _as_float_matrix(name, M, square=False, min_ndim=2):
    a = np.asarray(M)
    if a.dtype == object:
        a = to_float64(a)
    if a.dtype.kind not in "fiu" or a.dtype == bool:
        raise ValueError(f"{name}: expected a real numeric array, got dtype {a.dtype}")
    a = a.astype(np.float64)
    if a.ndim < min_ndim:
        raise ValueError(f"{name}: expected a matrix [..., m, n], got shape {a.shape}")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: expected square matrices, got shape {a.shape}")
    return a


def _require_finite(name, a, what="input"):
    if not np.all(np.isfinite(a)):
        idx = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        raise ValueError(f"{name}: {what} contains non-finite values (first at index {idx}: "
                         f"{a[idx]})")


def _pow2_normalize(a, axes=(-2, -1)):
    """a·2^-e with e the binary exponent of max|a| over ``axes`` (per slice), so each slice's
    largest |entry| lies in [0.5, 1).  Scaling by a power of two is exact (bar entries below
    ~2^-1022 of the maximum, which become subnormal and lose low bits), so scale-invariant
    statistics computed from the result equal the unscaled ones to rounding but cannot
    overflow or underflow.
    All-zero slices are left unchanged (e = 0).  Returns (normalized array, e with kept dims)."""
    if a.size == 0:
        return a, np.zeros(np.sum(a, axis=axes, keepdims=True).shape, dtype=int)
    _, e = np.frexp(np.max(np.abs(a), axis=axes, keepdims=True))
    return np.ldexp(a, -e), e


# ----------------------------------------------------------------------------- Perron
@dataclass
class PerronResult:
    """``root`` λ₁ (mpf), ``vector`` (object array of mpf, strictly positive, Σ = 1),
    ``second_modulus`` |λ₂| (largest modulus among the other eigenvalues, from a float64
    eigen-decomposition -- or, if ``full_spectrum_mp``, from Arb's QR eigenvalues at the working
    precision), ``gap`` λ₁ - |λ₂|, ``ratio`` |λ₂|/λ₁, ``residual`` ‖Av - λ₁v‖_∞ at the working
    precision."""

    root: object
    vector: np.ndarray
    second_modulus: float
    gap: float
    ratio: float
    residual: object


def _require_positive(name, M):
    """ValueError unless every entry of the arb_mat M is certainly > 0."""
    n = M.nrows()
    for k, x in enumerate(M.entries()):
        if not x > 0:
            raise ValueError(f"{name}: matrix must be entrywise positive; entry ({k // n}, "
                             f"{k % n}) = {x.str(8, radius=False)}")


def _rnd(x):
    """The midpoint of an Arb result: the rounded value of a floating-point operation at the
    working precision (``flint.ctx.prec``)."""
    return x.mid()


def _vsum(w):
    """Σ_i w_i of a column arb_mat, rounded to the working precision."""
    return _rnd(sum(w.entries(), arb(0)))


def _shifted(Am, shift):
    """Am − shift·I (entries rounded to the working precision)."""
    M = arb_mat(Am)
    for i in range(Am.nrows()):
        M[i, i] = _rnd(Am[i, i] - shift)
    return M


def _solve(M, v):
    """M⁻¹v by LU with partial pivoting in floating-point arithmetic at the working precision
    plus 10 bits (``arb_mat.solve(algorithm="approx")``; the 10 guard bits as in mpmath's
    ``lu_solve``: they keep the Perron vector of a nearly degenerate λ₂ accurate to dps digits).
    ValueError if M is numerically singular."""
    with flint.ctx.workprec(flint.ctx.prec + 10):
        try:
            return M.solve(v, algorithm="approx")
        except ZeroDivisionError:
            raise ValueError("perron: the shifted matrix is numerically singular "
                             "(ill-conditioned input)") from None


def _cw_shift(Am, v):
    """Just above the Collatz–Wielandt bound max_i (Av)_i/v_i ≥ λ₁ of a positive v (times
    1 + 2^-(prec/2), prec the working precision, so that A − σI stays clear of singular): a
    shift σ > λ₁ of inverse iteration toward the Perron pair, since every other eigenvalue has
    Re λ < λ₁."""
    eps = arb(2) ** -flint.ctx.prec
    return _rnd(max(_rnd(x / y) for x, y in zip((Am * v).entries(), v.entries()))
                * (1 + eps.sqrt()))


def _second_modulus(Am, others, full_spectrum_mp):
    """|λ₂|: from the float64 eigenvalues ``others``, or from Arb's approximate QR eigenvalues of
    Am at the working precision (``full_spectrum_mp``)."""
    n = Am.nrows()
    if full_spectrum_mp and n > 1:
        mods = sorted((float(abs(e)) for e in acb_mat(Am).eig(algorithm="approx")), reverse=True)
        return mods[1]
    if full_spectrum_mp:
        return 0.0
    return float(np.max(np.abs(others))) if n > 1 else 0.0


def perron(A, dps=50, full_spectrum_mp=False, max_iter=60):
    """Perron root and strictly positive eigenvector of an entrywise-positive square
    matrix A, computed at ``dps`` digits (float64 eigen-estimate refined by shifted
    inverse iteration in Arb at dps + 10 digits -- each step an LU solve in floating-point
    arithmetic at that precision plus 10 guard bits, :func:`_solve` -- the shift kept
    above λ₁ and lowered to the Collatz–Wielandt bound as the vector converges; root and
    vector then rounded to dps digits by mpmath), plus the spectral gap λ₁ - |λ₂|.  The entries
    are converted exactly (float, int, mpf; Arb balls by their midpoints).  The result is an
    approximation; ``crosscheck.certificates.perron_certificate`` encloses it rigorously.

    Raises ValueError if A is not square, not finite, or has an entry ≤ 0, and if the
    iteration does not converge in ``max_iter`` steps (the float64 estimate does not separate
    λ₁ from the other eigenvalues: an ill-conditioned λ₁, or λ₂ within float64 resolution)."""
    Am = arb_matrix("perron", A).mid()
    n = Am.nrows()
    _require_positive("perron", Am)
    Af = np.array([float(x) for x in Am.entries()]).reshape(n, n)
    ev, evec = np.linalg.eig(Af)
    k = int(np.argmax(ev.real))
    lam0 = float(ev[k].real)
    v0 = np.abs(evec[:, k].real)
    others = np.delete(ev, k)
    with flint.ctx.workprec(prec_bits(dps + 10)):
        v = arb_mat([[_rnd(arb(float(x)) + arb(1e-300))] for x in v0])
        lam = arb(lam0)
        shift = _rnd(lam * (1 + arb(2) ** -40))  # avoid an exactly singular shift
        target = _rnd(arb(10) ** -(dps + 2))
        M = _shifted(Am, shift)
        for _ in range(max_iter):
            w = _solve(M, v)
            s = _vsum(w)
            w = _rnd(w / s)
            lam_new = _rnd(_vsum(_rnd(Am * w)) / _vsum(w))  # exact for the eigenvector
            delta = max(abs(x) for x in _rnd(w - v).entries())
            v, lam = w, lam_new
            if delta < target:
                break
            cw = _cw_shift(Am, v) if min(v.entries()) > 0 else shift
            if cw < shift:
                # λ₁ ≤ cw < σ: the rate (σ − λ₁)/|σ − λ₂| of inverse iteration falls with v's
                # error (the fixed float64 shift left v and λ₁ wrong far above dps digits after
                # max_iter steps when λ₁ − λ₂ ≲ 1e-12 λ₁)
                shift = cw
                M = _shifted(Am, shift)
        else:
            raise ValueError(f"perron: inverse iteration did not converge in {max_iter} steps "
                             "(ill-conditioned input)")
        res = max(abs(x) for x in _rnd(_rnd(Am * v) - _rnd(v * lam)).entries())
        if not all(x > 0 for x in v.entries()):
            raise ValueError("perron: iteration did not produce a positive vector (ill-conditioned "
                             "input)")
        second = _second_modulus(Am, others, full_spectrum_mp)
    with mpmath.workdps(dps):
        root = +mid_mpf(lam)
        vec = np.empty(n, dtype=object)
        for i, x in enumerate(v.entries()):
            vec[i] = +mid_mpf(x)
        return PerronResult(root=root, vector=vec, second_modulus=float(second),
                            gap=float(root) - float(second), ratio=float(second) / float(root),
                            residual=+mid_mpf(res))


# -------------------------------------------------------------------- singular values
def _svals(name, M):
    """Singular values [..., min(m, n)] (descending) of each matrix normalized by a power of two
    (max |entry| in [0.5, 1)): exact rescaling, so ratios and ranks are scale-invariant over the
    whole float64 range.  Raises ValueError on non-finite entries."""
    a = _as_float_matrix(name, M)
    _require_finite(name, a, "M")
    a, _ = _pow2_normalize(a)
    return np.linalg.svd(a, compute_uv=False)


def singular_ratio(M):
    """σ₂/σ₁ of M [..., m, n] (float64 SVD of M rescaled by a power of two, so any float64
    scale gives the same ratio).  Returns a float (2-D input) or an array over the leading
    axes.  Raises ValueError for non-finite entries, a zero matrix (σ₁ = 0) or a matrix with
    fewer than 2 singular values."""
    s = _svals("singular_ratio", M)
    if s.shape[-1] < 2:
        raise ValueError("singular_ratio: need at least 2 singular values, matrix shape "
                         f"{np.shape(M)}")
    if np.any(s[..., 0] == 0):
        raise ValueError("singular_ratio: a matrix is zero (σ₁ = 0); the ratio is undefined")
    r = s[..., 1] / s[..., 0]
    return float(r) if r.ndim == 0 else r


def numerical_rank(M, rtol=64 * F32_EPS):
    """#{σ > rtol·σ₁} (default rtol = 64·eps_float32 as in the audit); 0 for a zero matrix.
    Scale-invariant (M is rescaled by a power of two first); ValueError on non-finite entries."""
    s = _svals("numerical_rank", M)
    r = np.sum(s > rtol * s[..., :1], axis=-1)
    return int(r) if np.ndim(r) == 0 else r


def det(M, dps=50, backend="mp"):
    """Determinant of a square matrix.  ``backend="arb"``: a rigorous enclosure (``flint.arb``
    ball) of the exact determinant of the given entries (converted exactly; Arb balls as balls),
    relative radius below 10^-dps whenever Arb's determinant or the exact integer determinant
    gives it (exactly 0 for a singular matrix of exact entries; see
    :func:`pyref.arb_linalg.det_enclosure`).  ``backend="mp"`` (default): that enclosure's
    midpoint rounded to ``dps`` digits (mpf).  2-D -> a scalar, [..., n, n] -> object array.
    ``backend="float32"``/``"float64"``: LAPACK in that precision (float32 reproduces the
    underflow to 0 of determinants of 64×64 operators)."""
    a = M if isinstance(M, arb_mat) else np.asarray(M)
    shape = (a.nrows(), a.ncols()) if isinstance(a, arb_mat) else a.shape
    if len(shape) < 2 or shape[-1] != shape[-2]:
        raise ValueError(f"det: expected square matrices [..., n, n], got shape {shape}")
    if backend in ("float32", "float64"):
        f = _as_float_matrix("det", a, square=True).astype(backend)
        _require_finite("det", f, "matrix")
        r = np.linalg.det(f)
        return r if np.ndim(r) else r.dtype.type(r)
    if backend not in ("mp", "arb"):
        raise ValueError("det: backend must be 'mp', 'arb', 'float64' or 'float32', got "
                         f"{backend!r}")
    if len(shape) == 2:
        d = det_enclosure(arb_matrix("det", a), prec_bits(dps))
        if backend == "arb":
            return d
        with mpmath.workdps(dps):
            return +mid_mpf(d)
    flat = a.reshape(-1, a.shape[-1], a.shape[-1])
    out = np.empty(flat.shape[0], dtype=object)
    for i, m in enumerate(flat):
        out[i] = det(m, dps, backend)
    return out.reshape(a.shape[:-2])


# --------------------------------------------------------------------------- RoPE basis
def rope_frequencies(d_k, rope_base=1e4):
    """ω_j of the complex RoPE eigenbasis: ω_{2a} = +θ_a, ω_{2a+1} = -θ_a."""
    if isinstance(d_k, bool) or not isinstance(d_k, (int, np.integer)) or d_k < 2 or d_k % 2:
        raise ValueError(f"rope basis: d_k must be a positive even int, got {d_k!r}")
    th = float(rope_base) ** (-2.0 * np.arange(d_k // 2) / d_k)
    w = np.empty(d_k)
    w[0::2], w[1::2] = th, -th
    return w


def rope_eigenbasis(d_k):
    """Unitary U: column 2a = (e_{2a} - i e_{2a+1})/√2, column 2a+1 = (e_{2a} + i e_{2a+1})/√2;
    R_p U = U diag(e^{i p ω})."""
    U = np.zeros((d_k, d_k), dtype=complex)
    r = 1 / np.sqrt(2)
    for a in range(d_k // 2):
        U[2 * a, 2 * a], U[2 * a + 1, 2 * a] = r, -1j * r
        U[2 * a, 2 * a + 1], U[2 * a + 1, 2 * a + 1] = r, 1j * r
    return U


def _commutant_parts(G, rope_base):
    a = _as_float_matrix("commutant", G, square=True)
    _require_finite("commutant", a, "G")
    return _commutant_basis(a, rope_base)


def _commutant_basis(a, rope_base):
    d_k = a.shape[-1]
    w = rope_frequencies(d_k, rope_base)
    U = rope_eigenbasis(d_k)
    Gc = U.conj().T @ a @ U                                # [..., d_k, d_k]
    keep = np.abs(w[:, None] - w[None, :]) < 1e-12         # ω_j = ω_k
    return a, U, Gc, keep


def commutant_projection(G, rope_base=1e4):
    """Frobenius-orthogonal projection of G [..., d_k, d_k] onto the commutant of the RoPE
    rotations: U Π(U*GU) U* with Π keeping the entries with ω_j = ω_k (|Δ| < 1e-12).  For
    the non-resonant spectrum this keeps, per 2×2 diagonal block, c·1 + s·J with
    c = (B₀₀+B₁₁)/2, s = (B₁₀-B₀₁)/2, and zeroes everything else.  Returns a real array."""
    a, U, Gc, keep = _commutant_parts(G, rope_base)
    P = U @ np.where(keep, Gc, 0) @ U.conj().T
    return P.real


def commutant_residual(G, rope_base=1e4):
    """ρ(G) = ‖G_c - ΠG_c‖_F / ‖G_c‖_F in the complex RoPE eigenbasis (spec D2), in [0, 1];
    0 iff G commutes with every R_p.  Scale-invariant: each G is first rescaled by a power of
    two (exact), so the sums of squares neither underflow nor overflow at any float64 scale.
    Raises ValueError for G = 0."""
    a = _as_float_matrix("commutant_residual", G, square=True)
    _require_finite("commutant_residual", a, "G")
    a, U, Gc, keep = _commutant_basis(_pow2_normalize(a)[0], rope_base)
    num = np.sqrt(np.sum(np.abs(np.where(keep, 0, Gc)) ** 2, axis=(-2, -1)))
    den = np.sqrt(np.sum(np.abs(Gc) ** 2, axis=(-2, -1)))
    if np.any(den == 0):
        raise ValueError("commutant_residual: G is zero; the residual is undefined")
    r = num / den
    return float(r) if r.ndim == 0 else r


def commutator_residual(G, rope_base=1e4, positions=(1,)):
    """max_p ‖G R_p - R_p G‖_F / ‖G‖_F over ``positions`` (default p = 1).  Zero iff G
    commutes with those rotations (for p = 1 and a non-resonant spectrum: iff G is in the
    commutant).  Scale-invariant (G rescaled by a power of two first, as in
    :func:`commutant_residual`).  Raises ValueError for G = 0."""
    a = _as_float_matrix("commutator_residual", G, square=True)
    _require_finite("commutator_residual", a, "G")
    a, _ = _pow2_normalize(a)
    den = np.sqrt(np.sum(a * a, axis=(-2, -1)))
    if np.any(den == 0):
        raise ValueError("commutator_residual: G is zero; the residual is undefined")
    best = np.zeros(a.shape[:-2])
    for p in positions:
        R = rope_matrix(p, a.shape[-1], rope_base)
        C = a @ R - R @ a
        best = np.maximum(best, np.sqrt(np.sum(C * C, axis=(-2, -1))) / den)
    return float(best) if best.ndim == 0 else best


# --------------------------------------------------------------------- order parameter
@dataclass
class OrderParameter:
    """``rmse`` = RMS(X₁-X₂); ``m_rms`` = rmse/(½(RMS X₁ + RMS X₂)); ``m_signed`` =
    rmse/(½(|mean X₁| + |mean X₂|)) (∞ if the means cancel); both 0 if rmse = 0.
    ``m_first`` = rmse/|mean X₁| is the one-sided normalization of the SOC paper's
    definition (not the audit's symmetrized statistic)."""

    rmse: float
    m_rms: float
    m_signed: float
    m_first: float


def order_parameter(X1, X2):
    """Order parameter between two deductive outputs of the same shape (spec D)."""
    a = _as_float_matrix("order_parameter(X1)", X1, min_ndim=0)
    b = _as_float_matrix("order_parameter(X2)", X2, min_ndim=0)
    if a.shape != b.shape:
        raise ValueError(f"order_parameter: shapes differ, {a.shape} vs {b.shape}")
    if a.size == 0:
        raise ValueError("order_parameter: empty input")
    _require_finite("order_parameter", a, "X1")
    _require_finite("order_parameter", b, "X2")
    # Every quantity is kept as (mantissa, binary exponent) from power-of-two normalized data
    # (exact rescaling), so the ratios are right at any float64 scale; only ``rmse`` itself is
    # returned unscaled (inf only if the true RMS exceeds the float64 range).
    def rms(x):
        y, e = _pow2_normalize(x, axes=None)
        return float(np.sqrt(np.mean(y * y))), int(e.item())

    def mean_abs(x):
        y, e = _pow2_normalize(x, axes=None)
        return abs(float(np.mean(y))), int(e.item())

    def half_sum(p, q):  # ½(p + q) of two (mantissa, exponent) pairs
        # the exponent of a zero part (0, 0) must not count: against a subnormal-scale part it
        # would push that part into the subnormals and the ratio to inf
        e = max((x[1] for x in (p, q) if x[0] != 0), default=0)
        return 0.5 * (math.ldexp(p[0], p[1] - e) + math.ldexp(q[0], q[1] - e)), e

    def ratio(p, q):  # inf when the denominator is 0 or the ratio exceeds the float64 range
        try:
            return math.ldexp(p[0] / q[0], p[1] - q[1]) if q[0] > 0 else float("inf")
        except OverflowError:
            return float("inf")

    if np.array_equal(a, b):
        return OrderParameter(0.0, 0.0, 0.0, 0.0)
    with np.errstate(over="ignore"):
        d = a - b  # exact when it does not overflow (differences are exact near underflow)
    if np.all(np.isfinite(d)):
        num = rms(d)
    else:  # overflow: halve first (entries lost to underflow are 2^-2000 of the result)
        num = rms(np.ldexp(a, -1) - np.ldexp(b, -1))
        num = (num[0], num[1] + 1)
    ma = mean_abs(a)
    try:
        rmse = math.ldexp(*num)
    except OverflowError:
        rmse = float("inf")
    return OrderParameter(rmse, ratio(num, half_sum(rms(a), rms(b))),
                          ratio(num, half_sum(ma, mean_abs(b))), ratio(num, ma))


# ------------------------------------------------------------------- audit statistics
def row_variance_ratio(A):
    """mean((A - 𝟙āᵀ)²)/mean((A - mean A)²) per matrix (ā = mean row): 0 for a row clone.
    Scale-invariant (each matrix rescaled by a power of two first).  Raises ValueError for
    non-finite entries or a constant matrix (all entries equal: the ratio is 0/0)."""
    a = _as_float_matrix("row_variance_ratio", A)
    _require_finite("row_variance_ratio", a, "A")
    if a.shape[-1] == 0 or a.shape[-2] == 0:
        raise ValueError(f"row_variance_ratio: empty matrix, shape {a.shape}")
    if np.any(np.max(a, axis=(-2, -1)) == np.min(a, axis=(-2, -1))):
        raise ValueError("row_variance_ratio: a matrix is constant; the ratio is undefined")
    a, _ = _pow2_normalize(a)
    abar = np.mean(a, axis=-2, keepdims=True)
    num = np.mean((a - abar) ** 2, axis=(-2, -1))
    den = np.mean((a - np.mean(a, axis=(-2, -1), keepdims=True)) ** 2, axis=(-2, -1))
    if np.any(den == 0):
        raise ValueError("row_variance_ratio: a matrix is constant; the ratio is undefined")
    r = num / den
    return float(r) if r.ndim == 0 else r


def dag_value(M):
    """|m + log Σ_i e^{λ_i - m} - log d_k| with λ = eig(M⊙M), m = max Re λ (spec D/H),
    per matrix (float64; equals |log(tr expm(M⊙M)/d_k)|)."""
    a = _as_float_matrix("dag_value", M, square=True)
    lam = np.linalg.eigvals(a * a)
    m = np.max(lam.real, axis=-1, keepdims=True)
    s = np.sum(np.exp(lam - m), axis=-1).real
    r = np.abs(m[..., 0] + np.log(s) - np.log(a.shape[-1]))
    return float(r) if r.ndim == 0 else r


def ln_scale_error(D, gamma, beta, S, eps=1e-6):
    """ε-LN scale error (spec D, C): for each row r of D compare LN(r) with LN(r/S).
    Returns dict with ``abs_l2`` and ``rel_l2`` per row and the ``proxy`` ε/(2·var(r/S))."""
    a = _as_float_matrix("ln_scale_error", D)
    _require_finite("ln_scale_error", a, "D")
    if not (isinstance(S, (int, np.integer)) and S >= 1):
        raise ValueError(f"ln_scale_error: S must be a positive int, got {S!r}")
    l1 = layer_norm(a, gamma, beta, eps)
    l2 = layer_norm(a / S, gamma, beta, eps)
    absd = np.sqrt(np.sum((l1 - l2) ** 2, axis=-1))
    nrm = np.sqrt(np.sum(l1 ** 2, axis=-1))
    var = np.var(a / S, axis=-1)
    with np.errstate(divide="ignore"):
        proxy = np.where(var > 0, eps / (2 * np.where(var > 0, var, 1)), np.inf)
    return {"abs_l2": absd, "rel_l2": np.where(nrm > 0, absd / np.where(nrm > 0, nrm, 1), 0.0),
            "proxy": proxy}


@dataclass
class CacheDeviation:
    """Per greedy step t: ``d`` = max|ℓ_cached - ℓ_uncached| (last row), ``margin`` = top1 -
    top2 of the cached logits, ``eps_G`` [steps, L] = RMS(G_uncached(t) - G_prompt)/
    RMS(G_uncached(t)), ``max_dG`` [steps, L]; ``sufficient`` = 2·max d < min margin (then
    the cached greedy tokens are guaranteed to equal the uncached ones)."""

    d: np.ndarray
    margin: np.ndarray
    eps_G: np.ndarray
    max_dG: np.ndarray
    sufficient: bool
    tokens: np.ndarray


def cache_deviation(model, prompt_tokens, steps, backend="float64", dps=50):
    """Cache deviation audit (spec D, G): greedy KV+G-cached decoding from a single prompt,
    each step's last-row logits compared with an uncached forward pass on the same tokens."""
    p = np.asarray(prompt_tokens)
    if p.ndim == 1:
        p = p[None]
    if p.shape[0] != 1:
        raise ValueError(f"cache_deviation: expects one prompt, got batch {p.shape[0]}")
    g = model.generate(p, steps, kvcache=True, gcache=True, backend=backend, dps=dps,
                       return_operators=True)
    G_prompt = [to_float64(G) for G in g.step_G[0]] if g.step_G else []   # steps = 0: no step
    d, margin, epsG, maxdG = [], [], [], []
    for t, lc in enumerate(g.step_logits):
        seq = g.tokens[:, : p.shape[1] + t]
        out = model.forward(seq, backend=backend, dps=dps)
        lu = to_float64(out.logits[:, -1])
        lcf = to_float64(lc)
        d.append(float(np.max(np.abs(lcf - lu))))
        top = np.sort(lcf[0])[::-1]
        margin.append(float(top[0] - top[1]) if top.size > 1 else float("inf"))
        row_e, row_m = [], []
        for li, ded in enumerate(out.deductive):
            Gu = to_float64(ded["G_LM"])
            diff = Gu - G_prompt[li]
            rms_u = float(np.sqrt(np.mean(Gu ** 2)))
            row_e.append(float(np.sqrt(np.mean(diff ** 2))) / rms_u if rms_u > 0 else 0.0)
            row_m.append(float(np.max(np.abs(diff))))
        epsG.append(row_e)
        maxdG.append(row_m)
    d, margin = np.array(d), np.array(margin)
    sufficient = bool(d.size == 0 or 2 * d.max() < margin.min())
    return CacheDeviation(d=d, margin=margin, eps_G=np.array(epsG), max_dG=np.array(maxdG),
                          sufficient=sufficient, tokens=g.tokens)


# ------------------------------------------------------------------ certified float errors
@dataclass
class CertifiedError:
    """Rigorous upper bounds on |computed − exact| of a float forward pass (``backend``), from
    one arb pass at ``dps`` digits (the exact value: the model's real-number output on its
    weights taken as exact binary floats).  ``logits`` [B, S, V] and ``G_LM`` (list over layers
    of [B, H, d_k, d_k]) are float64 arrays of bounds; ``logits_max``, ``G_LM_max`` (per layer)
    their maxima; ``arb_radius_max`` the largest radius of the arb logits (the part of each
    bound that is the enclosure's own width)."""

    backend: str
    dps: int
    logits: np.ndarray
    G_LM: list
    logits_max: float
    G_LM_max: list
    arb_radius_max: float


def certified_error(model, tokens, backend="float64", dps=50) -> CertifiedError:
    """Certified errors of ``model.forward(tokens, backend)`` for ``backend`` "float64" or
    "float32": each bound is |f − mid| + rad of the arb ball [mid ± rad] (``backend="arb"``,
    ``dps`` digits) that encloses the exact value, evaluated in ball arithmetic and rounded up
    (:func:`pyref.arb.abs_err_bound`), so it is ≥ the true error.  Raises ValueError for another
    backend, and (from the arb pass) when the balls are too wide at ``dps`` digits."""
    if backend not in ("float64", "float32"):
        raise ValueError(f"certified_error: backend must be 'float64' or 'float32', got "
                         f"{backend!r}")
    f = model.forward(tokens, backend=backend)
    x = model.forward(tokens, backend="arb", dps=dps)
    with Backend("arb", dps).context():
        logits = abs_err_bound(to_float64(f.logits), x.logits)   # float32 widens exactly
        G = [None if dx["G_LM"] is None else abs_err_bound(to_float64(df["G_LM"]), dx["G_LM"])
             for df, dx in zip(f.deductive, x.deductive)]
        rad = float(np.max(mid_rad(x.logits)[1]))
    return CertifiedError(backend=backend, dps=dps, logits=logits, G_LM=G,
                          logits_max=float(np.max(logits)),
                          G_LM_max=[None if g is None else float(np.max(g)) for g in G],
                          arb_radius_max=rad)
