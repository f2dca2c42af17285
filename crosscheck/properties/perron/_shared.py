"""Helpers shared by the property modules of :mod:`crosscheck.properties.perron` (strategies,
reference computations and constants used by more than one of them)."""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.analysis import perron

from ...registry import Checks, Outcome
from ...strategies import UNIT, matrix, positive_square
from .._arith import bound, conv, ctx, gamma

NS = "PLGA.Perron."

DPS = 50

MP = 1e-40          # _arith.mp_bound's factor

EPS_CHOICES = [1e-9, 1e-6, 1e-3, 0.1]

KPOW = 5            # powers A^1 .. A^KPOW checked for mpow_pos

KMAX = 300          # power-iteration steps at most

ETA = 2.0 ** -1074   # float64 underflow: fl(x·y) = xy(1 + δ) + η, |η| ≤ 2^-1075 (Higham §2.1)


def fbound(backend: str, k: int, T, amp: float = 1.0) -> float:
    """``_arith.bound`` plus, for float64, the gradual-underflow term ``k·amp·2^-1074``
    (Hypothesis draws subnormal entries; γ_k alone is relative): each of the ``k`` roundings
    may commit an absolute error ≤ 2^-1075, and an error in a vector entry is multiplied by
    at most ``amp = 1 + n·max|A|`` in a following matrix–vector product."""
    return bound(backend, k, T) + (k * amp * ETA if backend not in ("mp", "arb") else 0.0)


def _T(*names: str) -> list[str]:
    return [NS + s for s in names]


# ============================================================================ inputs
@dataclass(eq=False)
class Case:
    """One input: a matrix recipe plus test vectors.

    ``kind``: "pipeline" | "random" | "positive"; ``eps``: the metric ε (or the entry floor of
    a positive matrix); ``parts``: the recipe; ``xs``: nonnegative nonzero (sparse) vectors;
    ``zs``: signed vectors; ``ps``: strictly positive vectors; ``k``: an index."""

    kind: str
    n: int
    eps: float
    parts: tuple
    xs: list = field(default_factory=list)
    zs: list = field(default_factory=list)
    ps: list = field(default_factory=list)
    k: int = 0

    def __repr__(self):
        return f"Case({self.kind}, n={self.n}, eps={self.eps:g})"


_SMALL = st.floats(-0.5, 0.5, allow_nan=False, allow_infinity=False, width=64)

_POSV = st.floats(1e-3, 1.0, allow_nan=False, width=64)


def _vec(draw, n, elems):
    return np.array(draw(st.lists(elems, min_size=n, max_size=n)), dtype=np.float64)


@st.composite
def _pipeline_parts(draw, n):
    S = draw(st.integers(1, 8))
    Q = draw(matrix(S, n))
    gam, bet = 1 + _vec(draw, n, _SMALL), _vec(draw, n, _SMALL)
    units = []
    for _ in range(draw(st.integers(0, 1))):
        dff = draw(st.integers(1, 4))
        mag = st.sampled_from([0.5, 1.0, 2.0])
        blk = (draw(matrix(dff, n, mag, False)), _vec(draw, dff, _SMALL),
               draw(matrix(dff, n, mag, False)), _vec(draw, dff, _SMALL),
               draw(matrix(n, dff, mag, False)), _vec(draw, n, _SMALL))
        units.append({"blocks": [blk], "gamma": 1 + _vec(draw, n, _SMALL),
                      "beta": _vec(draw, n, _SMALL)})
    W = draw(matrix(n, n, structure=False))
    b = draw(matrix(n, n, structure=False))
    return Q, gam, bet, units, W, b


@st.composite
def perron_case(draw, kinds=("pipeline", "pipeline", "random", "positive"), lo=1, hi=6):
    """A :class:`Case` (dimension ``lo..hi``; pipeline drawn twice as often)."""
    kind = draw(st.sampled_from(list(kinds)))
    if kind == "positive":
        A, eps = draw(positive_square(lo, hi))
        n, parts = A.shape[0], (A,)
    else:
        n = draw(st.integers(lo, hi))
        eps = draw(st.sampled_from(EPS_CHOICES))
        if kind == "random":
            parts = (draw(matrix(n, n)), draw(matrix(n, n, structure=False)),
                     draw(matrix(n, n, structure=False)))
        else:
            parts = draw(_pipeline_parts(n))
    xs = []
    for _ in range(2):
        vals = _vec(draw, n, _POSV)
        keep = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
        keep[draw(st.integers(0, n - 1))] = True
        xs.append(np.where(keep, vals, 0.0) * draw(st.sampled_from([1.0, 1e-3, 1e3])))
    k = draw(st.integers(0, n - 1))
    xs.append(np.eye(n)[k])                                    # a unit vector: the sparsest case
    zs = [_vec(draw, n, UNIT) for _ in range(2)]
    ps = [_vec(draw, n, _POSV) * draw(st.sampled_from([1.0, 1e-3, 1e3])) for _ in range(2)]
    return Case(kind, n, eps, parts, xs, zs, ps, k)


def build_matrix(case: Case, backend: str, dps: int = DPS):
    """The case's matrix computed by pyref in ``backend`` (object array of mpf for mp)."""
    kw = dict(backend=backend, dps=dps)
    if case.kind == "positive":
        with ctx(backend, dps):
            return conv(backend, dps, case.parts[0])[0]
    if case.kind == "random":
        Ain, W, b = case.parts
        return pyref.plga.metric_tensor(Ain, W, b, eps=case.eps, **kw)
    Q, gam, bet, units, W, b = case.parts
    D = pyref.plga.density(Q, **kw)
    A = pyref.layers.layer_norm(D, gam, bet, eps=1e-6, **kw)
    if units:
        A = pyref.plga.residual_metric_learner(A, units, eps=1e-6, **kw)
    return pyref.plga.metric_tensor(A, W, b, eps=case.eps, **kw)


def nonpositive(A):
    """An Outcome failing the property if pyref's matrix has an entry ≤ 0 (for A_LM this
    contradicts the proved ``metricTensor_entry_pos``: a pyref bug, not an unmet hypothesis),
    else None."""
    bad = sum(1 for t in np.asarray(A).ravel() if not t > 0)
    if bad:
        return Outcome(math.inf, 1.0, True,
                       f"matrix has {bad} entries ≤ 0: pyref's A_LM is not entrywise "
                                            "positive (contradicts metricTensor_entry_pos)")
    return None


# ============================================================================ 50-digit analysis
def _mv(a, x):
    """Matrix–vector product of object (or float) arrays, as an object/float array."""
    return np.asarray(a).dot(np.asarray(x))


def _f(x) -> float:
    """A (possibly mpf) real as float64, ±inf beyond range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf if x > 0 else -math.inf


class Analysis:
    """50-digit reference data of an entrywise-positive square matrix ``A`` (float64 or
    object array of mpf, converted exactly). Expensive parts (spectrum, SVD) are lazy."""

    def __init__(self, A):
        a = np.asarray(A)
        self.n = a.shape[0]
        with mpmath.workdps(DPS):
            self.a = pyref.to_mp(a, DPS)
            flat = list(self.a.ravel())
            self.eps = min(flat)
            self.K = max(flat)
            self.S = mpmath.fsum(flat)
            self.fro = mpmath.sqrt(mpmath.fsum(x * x for x in flat))
            pr, pl = perron(self.a, dps=DPS), perron(self.a.T, dps=DPS)
            self.r, self.v = pr.root, np.array(list(pr.vector), dtype=object)
            self.rl, self.y = pl.root, np.array(list(pl.vector), dtype=object)
            self.res_r = max(abs(t) for t in _mv(self.a, self.v) - self.r * self.v)
            self.res_l = max(abs(t) for t in _mv(self.a.T, self.y) - self.rl * self.y)
            self.cw_lo, self.cw_hi, self.err_r = self._cw(self.a, self.v, self.r)
            _, _, self.err_rl = self._cw(self.a.T, self.y, self.rl)
        self._eig = None

    @staticmethod
    def _cw(a, v, r):
        q = [s / t for s, t in zip(_mv(a, v), v)]
        lo, hi = min(q), max(q)
        return lo, hi, max(hi - r, r - lo, mpmath.mpf(0)) + MP * abs(r)

    # ------------------------------------------------------------------ spectrum
    @property
    def eig(self):
        """(E, L, R, tol, jstar): eigenvalues, left rows, right columns, per-eigenvalue
        tolerance 2κ_j·MP·‖A‖_F, and the index of the Perron root."""
        if self._eig is None:
            with mpmath.workdps(DPS):
                M = mpmath.matrix(self.a.tolist())
                E, EL, ER = mpmath.eig(M, left=True, right=True)
                n = self.n
                E = [mpmath.mpc(e) for e in E]
                L = [[mpmath.mpc(EL[j, i]) for i in range(n)] for j in range(n)]
                R = [[mpmath.mpc(ER[i, j]) for i in range(n)] for j in range(n)]
                tol = []
                for j in range(n):
                    nl = mpmath.sqrt(mpmath.fsum(abs(t) ** 2 for t in L[j]))
                    nr = mpmath.sqrt(mpmath.fsum(abs(t) ** 2 for t in R[j]))
                    d = abs(mpmath.fsum(L[j][i] * R[j][i] for i in range(n)))
                    kap = nl * nr / d if d > 0 else mpmath.inf
                    tol.append(2 * kap * MP * self.fro)
                jstar = min(range(n), key=lambda j: abs(E[j] - self.r))
            self._eig = (E, L, R, tol, jstar)
        return self._eig

    @property
    def kappa(self):
        """Condition number ‖y‖‖v‖/(yᵀv) of the Perron root."""
        with mpmath.workdps(DPS):
            ny = mpmath.sqrt(mpmath.fsum(t * t for t in self.y))
            nv = mpmath.sqrt(mpmath.fsum(t * t for t in self.v))
            return ny * nv / mpmath.fsum(s * t for s, t in zip(self.y, self.v))

    @property
    def tau(self):
        """Birkhoff's contraction coefficient (1 − √φ)/(1 + √φ),
        φ = min_{i,j,k,l} a_ik a_jl / (a_jk a_il), at 50 digits (0 for n = 1)."""
        if self.n == 1:
            return mpmath.mpf(0)
        with mpmath.workdps(DPS):
            a, n = self.a, self.n
            phi = None
            for i in range(n):
                for j in range(n):
                    if i == j:
                        continue
                    q = [a[i, k] / a[j, k] for k in range(n)]
                    c = min(q) / max(q)
                    phi = c if phi is None or c < phi else phi
            s = mpmath.sqrt(phi)
            return (1 - s) / (1 + s)

    def svals(self, B):
        with mpmath.workdps(DPS):
            s = mpmath.svd_r(mpmath.matrix(B.tolist()), compute_uv=False)
            return sorted((s[i] for i in range(len(s))), reverse=True)


_CACHE: "OrderedDict[tuple, Analysis]" = OrderedDict()


def analyse(A) -> Analysis:
    """:class:`Analysis` of ``A``, memoized on its exact entries (properties drawing the same
    examples share the 50-digit work)."""
    with mpmath.workdps(DPS):
        key = tuple(mpmath.mpf(x)._mpf_ for x in np.asarray(A).ravel()) + (np.asarray(A).shape,)
    if key in _CACHE:
        _CACHE.move_to_end(key)
        return _CACHE[key]
    an = Analysis(A)
    _CACHE[key] = an
    if len(_CACHE) > 64:
        _CACHE.popitem(last=False)
    return an


# ============================================================================ checks
def _scale(a, x):
    """max_i (|A||x|)_i, the absolute-value expression of a product (an mpf for object
    arrays: no float underflow)."""
    return max(_mv(np.abs(a), np.abs(x))) if np.size(x) else 0.0


def check_positive_image(ch: Checks, A, xs, backend, dps=DPS):
    """Step 1 (``mulVec_pos``, ``eps_mul_fsum_le_mulVec``, ``single_le_mulVec``,
    ``mulVec_nonneg``, ``fsum_pos``) for each nonnegative nonzero x, ε := min A."""
    n = A.shape[0]
    with ctx(backend, dps):
        eps = min(np.asarray(A).ravel())
        amp = 1 + n * _f(max(np.asarray(A).ravel()))
        for x in xs:
            (xb,) = conv(backend, dps, x)
            Ax = _mv(A, xb)
            s = sum(xb)
            T = _scale(A, xb)
            ch.exact("Ax > 0", sum(1 for t in Ax if not t > 0) + (0 if s > 0 else 1))
            ch.le("ε Σx ≤ (Ax)_i", max(eps * s - t for t in Ax), fbound(backend, n + 1, T, amp))
            single = max(A[i, k] * xb[k] - Ax[i] for i in range(n) for k in range(n))
            ch.le("A_ik x_k ≤ (Ax)_i", single, fbound(backend, n + 1, T, amp))


def check_pow_pos(ch: Checks, A, backend, dps=DPS, kmax=KPOW):
    """Step 1 (``mpow_pos``): A^1..A^kmax entrywise > 0 (exact: no underflow for ε ≥ 1e-9,
    k ≤ 5 — the entries are ≥ n^{k−1} ε^k ≥ 1e-45 — and sums of positives are positive)."""
    with ctx(backend, dps):
        P = A
        bad = 0
        for _ in range(kmax):
            bad += sum(1 for t in np.asarray(P).ravel() if not t > 0)
            P = np.asarray(A).dot(P)
        ch.exact("A^k > 0", bad)


def check_pair(ch: Checks, an: Analysis, left: bool = True):
    """Step 2 on pyref's Perron pairs (``eigvec_pos_of_nonneg``, ``eps_le_eigenvalue``,
    ``eps_mul_fsum_le_eigenvalue_mul``, ``eigenvalue_mul_max_ge``) and step 5
    (``left_right_root_eq``)."""
    with mpmath.workdps(DPS):
        pairs = [("right", an.a, an.r, an.v, an.res_r, an.err_r)]
        if left:
            pairs.append(("left", an.a.T, an.rl, an.y, an.res_l, an.err_rl))
        for side, a, r, v, res, err in pairs:
            T = _scale(a, v)
            ch.exact(f"{side} Perron vector > 0, root > 0",
                     sum(1 for t in v if not t > 0) + (0 if r > 0 else 1))
            # pyref's perron promises 50 digits: residual at the unit round-off level
            ch.le(f"{side} residual ‖Av − rv‖", res, MP * T)
            ch.le(f"{side} root ≥ ε", an.eps - r, err)
            # ε Σv̂ ≤ (Av̂)_i = r̂ v̂_i + res_i exactly: a violation is bounded by the residual
            s = mpmath.fsum(v)
            ch.le(f"{side} ε Σv ≤ r v_i", max(an.eps * s - r * t for t in v), res + MP * T)
            ch.le(f"{side} n ε min v ≤ r max v", an.n * an.eps * min(v) - r * max(v), res + MP * T)
        if left:
            ch.le("left root = right root", abs(an.r - an.rl), an.err_r + an.err_rl)


def _ratios(a, x):
    return [s / t for s, t in zip(_mv(a, x), x)]


def check_collatz(ch: Checks, an: Analysis, ps, ws, backend="mp", A=None, dps=DPS):
    """Step 3 (``collatz_wielandt_min_le``/``le_max``, ``collatz_lower``/``upper``,
    ``collatz_le``). mp: ratios at 50 digits; float64: ratios of the float64 ``A`` and x
    in float64 (relative error ≤ γ_{n+1} per ratio), against the 50-digit root of the same
    matrix. The root's error is not taken from Collatz–Wielandt here: the comparisons
    ``min ratio(x) ≤ max ratio(x')`` (collatz_le) need no root at all, and the root comparisons
    use ``err_r`` only as the final tolerance."""
    n = an.n
    if backend == "mp":
        a = an.a
        with mpmath.workdps(DPS):
            xs = [conv("mp", dps, p)[0] for p in ps]
            # near-eigenvector probes: x = v̂ ⊙ (1 + δ z), δ = 1e-30 and 1e-8
            z = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
            for dl in (mpmath.mpf(10) ** -30, mpmath.mpf(10) ** -8):
                xs.append(np.array([an.v[i] * (1 + dl * mpmath.mpf(float(z[i]))) for i in range(n)],
                                   dtype=object))
            rq = [_ratios(a, x) for x in xs]
            mM = [(min(q), max(q)) for q in rq]

            def tolr(M):
                return an.err_r + MP * abs(M)

            for m, M in mM:
                ch.le("min (Ax)_i/x_i ≤ r", m - an.r, tolr(M))
                ch.le("r ≤ max (Ax)_i/x_i", an.r - M, tolr(M))
            wl = [conv("mp", dps, w)[0] for w in ws]
            for w in wl:
                Aw = _mv(a, w)
                s = min(Aw[i] / w[i] for i in range(n) if w[i] > 0)
                ch.le("collatz_lower: s ≤ r (s w ≤ Aw, w ≥ 0)", s - an.r, tolr(s))
                for m, M in mM:
                    ch.le("collatz_le: s ≤ M", s - M, MP * abs(M))
            for m, _ in mM:
                for _, M in mM:
                    ch.le("collatz_le: min ratio(x) ≤ max ratio(x')", m - M, MP * abs(M))
        return
    # float64
    Af = np.asarray(A, dtype=np.float64)
    vf = pyref.to_float64(an.v)
    z = np.linspace(-1, 1, n) if n > 1 else np.zeros(1)
    xs = [np.asarray(p, dtype=np.float64) for p in ps] + [vf * (1 + 1e-8 * z)]
    with mpmath.workdps(DPS):
        _collatz_f64(ch, an, Af, xs, ws, n, an.r)


def _collatz_f64(ch, an, Af, xs, ws, n, r):
    mM = []
    for x in xs:
        q = (Af @ x) / x
        mM.append((float(np.min(q)), float(np.max(q))))
    for m, M in mM:
        tol = 2 * gamma(n + 1) * abs(M) + _f(an.err_r)
        ch.le("min (Ax)_i/x_i ≤ r", _f(mpmath.mpf(m) - r), tol)
        ch.le("r ≤ max (Ax)_i/x_i", _f(r - mpmath.mpf(M)), tol)
    for w in ws:
        w = np.asarray(w, dtype=np.float64)
        Aw = Af @ w
        s = float(np.min(Aw[w > 0] / w[w > 0]))
        ch.le("collatz_lower: s ≤ r", _f(mpmath.mpf(s) - r),
              2 * gamma(n + 1) * abs(s) + _f(an.err_r))
        for m, M in mM:
            ch.le("collatz_le: s ≤ M", s - M, 2 * gamma(n + 1) * max(abs(s), abs(M)))


def _phase_align(w):
    """w / (w_k/|w_k|) / |w_k| with k = argmax |w_k|: the real representative, ‖·‖∞ = 1."""
    k = max(range(len(w)), key=lambda i: abs(w[i]))
    c = w[k]
    return [t / c for t in w]


def check_one_signed(ch: Checks, an: Analysis):
    """Steps 2/4 (``eigenvalue_eq_of_nonneg_eigvecs``, ``eigvec_pos_of_nonneg``): among the
    real eigenvalues of mpmath's spectrum, only the Perron root has a one-signed eigenvector
    (right and left). Threshold: a real eigenvector of λ ≠ r, normalized to ‖w‖∞ = 1, has
    entries of both signs of size ≥ μ = ε/r (``yᵀw = 0``, ``y_i ≥ εΣy/r``); it is called
    one-signed when its smaller side is < μ/2."""
    E, L, R, tol, js = an.eig
    with mpmath.workdps(DPS):
        ch.le("mpmath Perron eigenvalue = pyref root", abs(E[js] - an.r), tol[js] + an.err_r)
        mu = an.eps / an.r
        for side, vecs in (("right", R), ("left", L)):
            for j in range(an.n):
                if abs(E[j].imag) > tol[j]:
                    continue              # not real: no real eigenvector at all
                w = _phase_align(vecs[j])
                pos = max(t.real for t in w)
                neg = max(-t.real for t in w)
                if j == js:
                    ch.exact(f"{side} Perron eigenvector of mpmath is > 0",
                             sum(1 for t in w if not t.real > 0))
                else:
                    ch.margin(f"{side} eigenvector of λ ≠ r has both signs", mu / 2, min(pos, neg))


def check_ranks(ch: Checks, an: Analysis):
    """Steps 4, 5, 7 (``eq_smul_of_eigvec``, ``eq_smul_of_left_eigvec``,
    ``no_generalized_eigvec``): rank(A − rI) = n − 1 = rank((A − rI)²) on both sides, from the
    smallest two singular values at 50 digits. With ``B̂ = A − r̂I``: Weyl gives
    ``|σ_i(B̂) − σ_i(B)| ≤ τ₁ = err_r + MP‖B‖_F`` and for the square
    ``τ₂ = 2‖B‖_F err_r + err_r² + MP·n‖B‖_F²``; σ_n must be ≤ τ and σ_{n−1} > τ."""
    n = an.n
    with mpmath.workdps(DPS):
        for side, a, r, err in (("right", an.a, an.r, an.err_r),
                                ("left", an.a.T, an.rl, an.err_rl)):
            B = a - r * pyref.get_backend("mp", DPS).eye(n)
            nB = mpmath.sqrt(mpmath.fsum(t * t for t in B.ravel()))
            t1 = err + MP * nB
            s = an.svals(B)
            ch.le(f"{side} σ_n(A − rI) = 0", s[-1], t1)
            B2 = B.dot(B)
            t2 = 2 * nB * err + err * err + MP * n * nB * nB
            s2 = an.svals(B2)
            ch.le(f"{side} σ_n((A − rI)²) = 0", s2[-1], t2)
            if n >= 2:
                ch.margin(f"{side} σ_(n−1)(A − rI) > 0 (geometric simplicity)", t1, s[-2])
                ch.margin(f"{side} σ_(n−1)((A − rI)²) > 0 (no Jordan block)", t2, s2[-2])


def check_dominance(ch: Checks, an: Analysis):
    """Step 6 on mpmath's spectrum: ``|λ| ≤ r``; the disc ``|λ − ε| ≤ r − ε``; real λ in
    ``[2ε − r, r]``; ``|λ| < r`` strictly for λ ≠ r; and the proof's key inequalities on each
    (complex) eigenvector z: ``|(Az)_i| ≤ (A|z|)_i`` (``cmod_fsum_le``), ``|λ||z_i| ≤ (A|z|)_i``
    and, for the shifted matrix ``A − εI ≥ 0``, ``|λ − ε||z_i| ≤ ((A − εI)|z|)_i`` (each up to the
    eigen-residual)."""
    E, L, R, tol, js = an.eig
    n, a, r, eps = an.n, an.a, an.r, an.eps
    with mpmath.workdps(DPS):
        Ash = a - eps * pyref.get_backend("mp", DPS).eye(n)
        for j in range(n):
            lam, t = E[j], tol[j] + an.err_r
            ch.le("|λ| ≤ r", abs(lam) - r, t)
            ch.le("|λ − ε| ≤ r − ε (disc)", abs(lam - eps) - (r - eps), t)
            if abs(lam.imag) <= tol[j]:
                ch.le("real λ ∈ [2ε − r, r]", max(2 * eps - r - lam.real, lam.real - r), t)
            if j != js:
                ch.margin("|λ| < r for λ ≠ r", t, r - abs(lam))
            z = np.array(R[j], dtype=object)
            az = np.array([abs(s) for s in z], dtype=object)
            Az = _mv(a, z)
            Aaz = _mv(a, az)
            res = max(abs(s) for s in Az - lam * z)
            T = MP * max(Aaz)
            ch.le("|(Az)_i| ≤ (A|z|)_i", max(abs(s) - u for s, u in zip(Az, Aaz)), T)
            ch.le("|λ||z_i| ≤ (A|z|)_i", max(abs(lam) * s - u for s, u in zip(az, Aaz)), res + T)
            Sz = _mv(Ash, az)
            ch.le("|λ − ε||z_i| ≤ ((A − εI)|z|)_i",
                  max(abs(lam - eps) * s - u for s, u in zip(az, Sz)),
                  res + T)


def power_iteration(an: Analysis, kmax=KMAX):
    """The Lean iteration at 50 digits: ``p₀ = 𝟙``, ``p_{k+1} = A p_k / m_k``; returns the
    list of (p_k, A p_k, m_k, M_k), stopping once ``M_k − m_k ≤ 1e-45 M_k`` (round-off level)."""
    a, n = an.a, an.n
    seq = []
    with mpmath.workdps(DPS):
        p = np.array([mpmath.mpf(1)] * n, dtype=object)
        for k in range(kmax + 1):
            y = _mv(a, p)
            q = [s / t for s, t in zip(y, p)]
            m, M = min(q), max(q)
            seq.append((p, y, m, M))
            if M - m <= mpmath.mpf(10) ** -45 * M:
                break
            p = y / m
    return seq
