"""Properties for ``Formal/Perron`` (namespace ``PLGA.Perron``): Perron–Frobenius for
entrywise-positive matrices, the paper's Thm 3.8, and ``metricTensor_perron_frobenius``
for ``A_LM = iSwiGLU(W A + b) + ε``.

**Matrices.** Every property draws a :class:`Case` of one of three kinds:

* ``pipeline`` — pyref's own chain: ``D = pyref.plga.density(Q̂)``, the row LayerNorm
  ``pyref.layers.layer_norm`` (learned γ, β), zero or one unit of the residual metric learner
  ``pyref.plga.residual_metric_learner`` (a SwiGLU block + LN), then
  ``A_LM = pyref.plga.metric_tensor(A, W, b, ε)`` (sigmoid gate, ``iSwiGLU(u) = u²σ(u)``);
* ``random`` — ``pyref.plga.metric_tensor`` on random ``A``, ``W``, ``b`` (rank-deficient and
  large-magnitude inputs included, so many entries sit at exactly ``ε``);
* ``positive`` — the harness' ``positive_square`` strategy (entries in ``[ε, 1 + ε]``).

The metric ``ε`` is drawn from ``{1e-9, 1e-6, 1e-3, 0.1}``. With ``ε = 1e-9`` and entries up to
~1e13, ``A_LM`` is *nearly reducible* (``min A / max A`` down to ~1e-22); that regime is kept on
purpose.

**Instantiation.** The Lean statements quantify over any ``ε`` with ``ε ≤ A_ij`` (and any
``K ≥ A_ij``). The properties instantiate them at the sharpest admissible constants
``ε := min_ij A_ij`` (``≥`` the metric ε) and ``K := max_ij A_ij``: every conclusion is
monotone in ``ε`` and ``K`` (the discs ``|λ − ε| ≤ r − ε`` are nested, ``θ = ε²/(K²n)`` grows
with ``ε``), so this implies the instance at the drawn metric ``ε``.

**References at 50 digits** (the ``mp`` backend, ``u = 10^-49``): the Perron pairs of ``A``
and ``Aᵀ`` from ``pyref.analysis.perron(·, dps=50)``; the spectrum with left and right
eigenvectors from ``mpmath.eig``; singular values from ``mpmath.svd_r``.

**Tolerances** (derived, never tuned; ``MP = 1e-40`` is ``_util.mp_bound``'s factor, more
than ``10^4`` times any chain of roundings used here, see ``_util``). mp tolerances are purely
relative, ``MP·T`` without ``mp_bound``'s absolute floor ``max(1, T)``: mpmath has no underflow,
so a tiny probe vector keeps 49 significant digits, and an absolute floor would swamp the
margins of the strict checks below (Hypothesis found exactly that with a 1e-45-sized probe).

* *root error* ``err_r``: by the Collatz–Wielandt theorem the true root lies in
  ``[min_i (Av̂)_i/v̂_i, max_i (Av̂)_i/v̂_i]`` for pyref's positive ``v̂``, so
  ``|r̂ − r| ≤ err_r :=`` the distance from ``r̂`` to the ends of that interval ``+ MP·r``
  (``~1e-49·r`` in practice). The Collatz–Wielandt property itself does not lean on this.
* *eigenvalues of* ``mpmath.eig``: backward stable, ``‖E‖ ≤ p(n)·u·‖A‖_F ≤ MP·‖A‖_F``
  (``p(n) ≤ 10^9`` for ``n ≤ 8``); first-order perturbation ``|δλ_j| ≤ κ_j ‖E‖`` with
  ``κ_j = ‖l_j‖‖r_j‖/|l_jᴴ r_j|`` from the computed left/right vectors, doubled for the
  second-order term: ``tol_j = 2 κ_j · MP · ‖A‖_F``.
* *singular values*: Weyl (``|σ_i(B + F) − σ_i(B)| ≤ ‖F‖₂``) with ``F`` the root error times
  ``I`` plus the 50-digit backward error ``MP·‖B‖_F``.
* *float64*: Higham's ``γ_k`` bounds (``_util.fp_bound``) plus the gradual-underflow term
  ``k·(1 + n·max A)·2^-1074`` (Hypothesis draws subnormal vector entries; an absolute underflow
  error in ``fl(c·x)`` is then multiplied by ``A``); for the float64 Perron root the
  a-priori perturbation bound ``2 κ · 10n² · u · ‖A‖_F`` with ``κ = ‖y‖‖v‖/(yᵀv)`` the condition
  number of the Perron root (left/right Perron vectors, computed at 50 digits) and ``10n²·u·‖A‖_F``
  a generous form of the LAPACK backward error ``p(n)·u·‖A‖`` of the Hessenberg-QR algorithm
  (Golub–Van Loan §7.5.6, ``‖E‖₂ ≈ u‖A‖₂``).

*Strict* claims (``σ_{n−1} > 0``, ``|λ| < r``, mixed signs) are checked as "the resolution
stays below the margin": the property fails if a margin the theorem says is positive is not
above the numerical resolution. The proved margins are far above it: Hopf gives
``r − |λ| ≥ r(1 − τ) ≳ r·min A/max A ≥ 1e-22·r``, and an eigenvector of an eigenvalue ``≠ r``
has an entry of the opposite sign of relative size ``≥ min_i y_i/Σy ≥ ε/r`` (``yᵀw = 0`` with the
left Perron vector ``y``), against a resolution of ``~1e-40``.

**Certificates.** ``crosscheck.certificates.perron_certificate`` is called inside a 50-digit
mpmath context: it converts entries with ``mpmath.mpf(·)`` at the *ambient* precision, so on
mpf input at the default 53 bits it certifies the rounded matrix, whose enclosure can miss
the true root of the given one by ~1e-17 relative.

**Composite outcomes.** A property that checks several sub-statements reports
``dev = max_k dev_k / bound_k`` and ``bound = 1`` (a sub-check with bound 0 contributes 0 if
exact, ∞ otherwise); the note names the worst sub-check.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.analysis import perron

from ..certificates import perron_certificate
from ..registry import Outcome, prop
from ..strategies import UNIT, matrix, positive_square
from ._util import U64, bound, conv, ctx, gamma

NS = "PLGA.Perron."
DPS = 50
MP = 1e-40          # _util.mp_bound's factor
EPS_CHOICES = [1e-9, 1e-6, 1e-3, 0.1]
KPOW = 5            # powers A^1 .. A^KPOW checked for mpow_pos
KMAX = 300          # power-iteration steps at most


ETA = 2.0 ** -1074   # float64 underflow: fl(x·y) = xy(1 + δ) + η, |η| ≤ 2^-1075 (Higham §2.1)


def fbound(backend: str, k: int, T, amp: float = 1.0) -> float:
    """``_util.bound`` plus, for float64, the gradual-underflow term ``k·amp·2^-1074``
    (Hypothesis draws subnormal entries; γ_k alone is relative): each of the ``k`` roundings
    may commit an absolute error ≤ 2^-1075, and an error in a vector entry is multiplied by
    at most ``amp = 1 + n·max|A|`` in a following matrix–vector product."""
    return bound(backend, k, T) + (k * amp * ETA if backend != "mp" else 0.0)


def _T(*names: str) -> list[str]:
    return [NS + s for s in names]


#: theorems of Formal/Perron with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    # Positivity.lean
    NS + "exists_min_index": "a function on a finite nonempty index set attains its minimum; pure order fact used inside proofs",
    NS + "exists_max_index": "a function on a finite nonempty index set attains its maximum; pure order fact used inside proofs",
    NS + "exists_max_ratio": "cross-multiplied form of a finite argmax; order helper whose instances are the checked Collatz–Wielandt bounds",
    NS + "exists_min_ratio": "cross-multiplied form of a finite argmin; order helper whose instances are the checked Collatz–Wielandt bounds",
    NS + "fsum_const": "a sum of n copies of c is n·c (the field's n = 1 + ⋯ + 1); definitional, nothing numeric to measure",
    NS + "dimA_pos": "n > 0 as a field element; holds trivially for every dimension drawn",
    # Completeness.lean
    NS + "exists_half": "every field element has a half; algebraic helper with no computation behind it",
    NS + "le_of_forall_pos_mul": "order principle (Y ≤ X + δC for all δ > 0 ⇒ Y ≤ X) used only inside the existence proof",
    NS + "exists_seq_sup": "least upper bounds of bounded sequences (Dedekind completeness); a property of ℝ, not of any computation",
    NS + "exists_seq_inf": "greatest lower bounds of bounded sequences (completeness); a property of ℝ, not of any computation",
    NS + "mono_of_succ": "a sequence increasing step by step is monotone; induction lemma used inside proofs (the steps are checked by lo_le_lo_succ)",
    NS + "anti_of_succ": "a sequence decreasing step by step is antitone; induction lemma used inside proofs (the steps are checked by hi_succ_le_hi)",
    NS + "mono_of_succ_le": "j ≤ k form of mono_of_succ; sequence lemma used only inside proofs",
    NS + "anti_of_succ_le": "j ≤ k form of anti_of_succ; sequence lemma used only inside proofs",
    # Dominance.lean: the absolute value on an ordered field
    NS + "absv_of_nonneg": "definition of |x| for x ≥ 0; exact in IEEE and mpmath arithmetic",
    NS + "absv_of_neg": "definition of |x| for x < 0; exact in IEEE and mpmath arithmetic",
    NS + "absv_nonneg": "|x| ≥ 0; exact in every arithmetic (sign-bit operation)",
    NS + "le_absv": "x ≤ |x|; exact order fact",
    NS + "neg_le_absv": "−x ≤ |x|; exact order fact",
    NS + "absv_le": "−b ≤ x ≤ b ⇒ |x| ≤ b; exact order fact",
    NS + "absv_ne_zero": "x ≠ 0 ⇒ |x| ≠ 0; exact",
    NS + "absv_mul": "|xy| = |x||y|; exact in IEEE arithmetic (the sign is handled exactly, the magnitude rounds identically)",
    # DominanceComplex.lean: squares, square roots and the complex modulus
    NS + "mul_self_nonneg'": "a² ≥ 0; exact order fact (rounding preserves sign)",
    NS + "mul_self_pos'": "a ≠ 0 ⇒ a² > 0; order fact about exact reals",
    NS + "le_of_mul_self_le": "a² ≤ b², b ≥ 0 ⇒ a ≤ b; order helper used inside proofs",
    NS + "mul_self_le_mul_self": "0 ≤ a ≤ b ⇒ a² ≤ b²; order helper used inside proofs",
    NS + "sqrt_eq_of": "uniqueness of the nonnegative square root, from the SqrtFn hypothesis; no computation",
    NS + "sqrt_le_of": "monotonicity of the square root from the SqrtFn hypothesis; order helper",
    NS + "sumsq_nonneg": "p² + q² ≥ 0; exact order fact",
    NS + "cmod_nonneg": "|z| ≥ 0 for the complex modulus; immediate from SqrtFn",
    NS + "cmod_mul_self": "|z|² = p² + q²; the definition of the modulus via SqrtFn",
    NS + "cmod_ne_zero": "z ≠ 0 ⇒ |z| ≠ 0; exact fact about the modulus",
    NS + "cmod_smul": "|c z| = c|z| for c ≥ 0; algebraic law of the modulus used inside proofs",
    NS + "cmod_mul": "|λz| = |λ||z|; algebraic law of the complex modulus used inside proofs",
    NS + "cmod_add_le": "triangle inequality of the complex modulus; exercised entrywise by perron_dominance through cmod_fsum_le",
    NS + "cmod_zero": "|0| = 0; definitional",
    # Iteration.lean: field and min/max helpers
    NS + "div_pos'": "a, b > 0 ⇒ a/b > 0; field order helper",
    NS + "le_div_of_mul_le": "a c ≤ b, c > 0 ⇒ a ≤ b/c; field order helper",
    NS + "div_le_of_le_mul": "b ≤ a c, c > 0 ⇒ b/c ≤ a; field order helper",
    NS + "cancel_left": "cancelling a positive factor in ≤; field order helper",
    NS + "minRatio_spec": "minRatio is a lower bound of the ratios and attained; the definition of a finite minimum",
    NS + "maxRatio_spec": "maxRatio is an upper bound of the ratios and attained; the definition of a finite maximum",
    NS + "le_minRatio": "c x ≤ y ⇒ c ≤ min y/x; min helper whose instance is the checked lo_le_lo_succ",
    NS + "maxRatio_le": "y ≤ c x ⇒ max y/x ≤ c; max helper whose instance is the checked hi_succ_le_hi",
    NS + "piter_succ": "definitional unfolding p_{k+1} = A p_k / m_k (the identity itself is checked as mulVec_piter)",
}


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
        units.append({"blocks": [blk], "gamma": 1 + _vec(draw, n, _SMALL), "beta": _vec(draw, n, _SMALL)})
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
            parts = (draw(matrix(n, n)), draw(matrix(n, n, structure=False)), draw(matrix(n, n, structure=False)))
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
        return Outcome(math.inf, 1.0, True, f"matrix has {bad} entries ≤ 0: pyref's A_LM is not entrywise "
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
class Checks:
    """Sub-checks "dev ≤ bound", aggregated as max dev/bound (see the module docstring)."""

    def __init__(self):
        self.items: list[tuple[str, float, float, float]] = []  # label, dev, bound, ratio

    def le(self, label: str, dev, bnd):
        # the ratio is formed before any float conversion (mp values may be below 1e-308)
        self.items.append((label, _f(dev), _f(bnd), _f(self._ratio(dev, bnd))))

    def margin(self, label: str, resolution, margin):
        """A strict claim ``margin > 0``: the resolution must stay below the margin."""
        self.le(label, resolution, margin)

    def exact(self, label: str, count):
        self.le(label, count, 0.0)

    @staticmethod
    def _ratio(dev, bnd):
        if not dev > 0:
            return 0.0
        if not bnd > 0:
            return math.inf
        return dev / bnd

    def outcome(self, met: bool = True, note: str = "") -> Outcome:
        if not self.items:
            return Outcome(0.0, 1.0, met, note or "no sub-check applied")
        worst = max(self.items, key=lambda t: t[3])
        w = worst[3]
        msg = (f"worst: {worst[0]}" if w > 0 else "every sub-check exact") + (f"; {note}" if note else "")
        if w > 1:
            msg += f" (dev {worst[1]:.3e} > bound {worst[2]:.3e})"
        return Outcome(w, 1.0, met, msg)


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
            ch.exact(f"{side} Perron vector > 0, root > 0", sum(1 for t in v if not t > 0) + (0 if r > 0 else 1))
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
                xs.append(np.array([an.v[i] * (1 + dl * mpmath.mpf(float(z[i]))) for i in range(n)], dtype=object))
            rq = [_ratios(a, x) for x in xs]
            mM = [(min(q), max(q)) for q in rq]
            tolr = lambda M: an.err_r + MP * abs(M)  # noqa: E731
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
        ch.le("collatz_lower: s ≤ r", _f(mpmath.mpf(s) - r), 2 * gamma(n + 1) * abs(s) + _f(an.err_r))
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


def check_not_subinvariant(ch: Checks, an: Analysis, zs):
    """Step 4 (``eq_smul_of_mulVec_le``/``_ge``), contrapositive: a real x that is not a
    multiple of v has ``Ax − r x`` of both signs. Probes: the drawn signed vectors and the
    near-multiple ``v̂ + δ e_k`` with ``k = argmin v̂``, ``δ = 10^-10 max v̂``, whose margins are
    proved: ``δ a_ik ≥ δε`` (i ≠ k) and ``−δ(r − a_kk) ≤ −δε(n − 1)``
    (``r − a_kk = Σ_{j≠k} a_kj v_j/v_k``
    and ``v_j ≥ v_k``), i.e. ``≥ 10^-10 ε max v̂``, against a resolution ``≤ 2·10^-40 r max v̂``
    (``r ≤ 1e14`` here). Vectors within ``10^-12`` (relative) of span(v) are skipped: their
    sign margins are not resolvable in general. Tolerance: ``err_r·|x| + MP·(|A||x| + r|x|)``."""
    n = an.n
    if n == 1:
        return
    with mpmath.workdps(DPS):
        xs = [conv("mp", DPS, z)[0] for z in zs]
        t = an.v.copy()
        k = min(range(n), key=lambda i: t[i])
        t[k] += mpmath.mpf(10) ** -10 * max(an.v)
        xs.append(t)
        vv = mpmath.fsum(s * s for s in an.v)
        for x in xs:
            xm = max(abs(s) for s in x)
            c = mpmath.fsum(s * u for s, u in zip(x, an.v)) / vv
            if xm == 0 or max(abs(s - c * u) for s, u in zip(x, an.v)) <= mpmath.mpf(10) ** -12 * xm:
                continue                  # x (nearly) ∝ v: nothing resolvable to refute
            d = _mv(an.a, x) - an.r * x
            res = an.err_r * xm + MP * (_scale(an.a, x) + an.r * xm)
            ch.margin("Ax − rx has both signs unless x ∝ v", res, min(max(d), -min(d)))


def check_ranks(ch: Checks, an: Analysis):
    """Steps 4, 5, 7 (``eq_smul_of_eigvec``, ``eq_smul_of_left_eigvec``,
    ``no_generalized_eigvec``): rank(A − rI) = n − 1 = rank((A − rI)²) on both sides, from the
    smallest two singular values at 50 digits. With ``B̂ = A − r̂I``: Weyl gives
    ``|σ_i(B̂) − σ_i(B)| ≤ τ₁ = err_r + MP‖B‖_F`` and for the square
    ``τ₂ = 2‖B‖_F err_r + err_r² + MP·n‖B‖_F²``; σ_n must be ≤ τ and σ_{n−1} > τ."""
    n = an.n
    with mpmath.workdps(DPS):
        for side, a, r, err in (("right", an.a, an.r, an.err_r), ("left", an.a.T, an.rl, an.err_rl)):
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
            ch.le("|λ − ε||z_i| ≤ ((A − εI)|z|)_i", max(abs(lam - eps) * s - u for s, u in zip(az, Sz)),
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


def _hilbert(x, y):
    """Hilbert's projective distance log max(x/y) − log min(x/y) of positive vectors."""
    q = [s / t for s, t in zip(x, y)]
    return mpmath.log(max(q)) - mpmath.log(min(q))


def check_iteration(ch: Checks, an: Analysis, seq):
    """Iteration.lean and Existence.lean on the computed sequence (see perron_power_iteration)."""
    a, n, eps, K = an.a, an.n, an.eps, an.K
    with mpmath.workdps(DPS):
        theta = eps * eps / (K * K * n)
        ch.exact("θ = ε²/(K²n) > 0", 0 if theta > 0 else 1)
        tolr = lambda M: an.err_r + MP * abs(M)  # noqa: E731
        for k, (p, y, m, M) in enumerate(seq):
            rb = MP * max(y)
            ch.exact("p_k > 0, A p_k > 0, m_k > 0",
                     sum(1 for t in p if not t > 0) + sum(1 for t in y if not t > 0) + (0 if m > 0 else 1))
            ch.le("m_k p_k ≤ A p_k ≤ M_k p_k", max(max(m * s - t, t - M * s) for s, t in zip(p, y)), rb)
            ch.le("y_i = m_k p_i attained (exists_minRatio_eq)", min(abs(t - m * s) for s, t in zip(p, y)), rb)
            ch.le("m_k ≤ M_k", m - M, MP * abs(M))
            ch.le("ε p_l ≤ K p_j (balance)", eps * max(p) - K * min(p), MP * K * max(p))
            ch.le("m_k ≤ r ≤ M_k (sequences meet at r)", max(m - an.r, an.r - M), tolr(M))
            # weights of the contraction: θ (A p)_i ≤ A_ij p_j
            ch.le("θ (A p)_i ≤ A_ij p_j", max(theta * y[i] - a[i, j] * p[j] for i in range(n) for j in range(n)), rb)
            z = _mv(a, y)
            c = M - theta * (M - m)
            ch.le("A(A p) ≤ (M − θ(M − m)) A p", max(s - c * t for s, t in zip(z, y)), MP * max(z))
            if k + 1 < len(seq):
                p1, _, m1, M1 = seq[k + 1]
                ch.le("A p_k = m_k p_{k+1}", max(abs(t - m * s) for s, t in zip(p1, y)), rb)
                ch.le("p_k ≤ p_{k+1}", max(s - t for s, t in zip(p, p1)), MP * max(p1))
                ch.le("m_k ≤ m_{k+1}", m - m1, MP * abs(M))
                ch.le("M_{k+1} ≤ M_k", M1 - M, MP * abs(M))
                ch.le("M_{k+1} ≤ M_k − θ(M_k − m_k)", M1 - c, MP * abs(M))
        # convergence to pyref's Perron vector (Birkhoff: d_H(Ax, Av) ≤ τ d_H(x, v), hence
        # d_H(x, v) ≤ d_H(x, Ax)/(1 − τ) = log(M/m)/(1 − τ) for any positive x)
        p, _, m, M = seq[-1]
        one_minus_tau = 1 - an.tau
        if one_minus_tau > 0:
            lim = (mpmath.log(M / m) + mpmath.log(an.cw_hi / an.cw_lo)) / one_minus_tau
            ch.le("d_H(p_K, v̂) ≤ (log(M_K/m_K) + log(CW(v̂)))/(1 − τ)", _hilbert(p, an.v), lim + MP * n)


# ============================================================================ properties
@prop(theorems=_T("eps_mul_fsum_le_mulVec", "mulVec_pos", "mpow_pos", "fsum_pos", "mulVec_nonneg",
                  "single_le_mulVec"),
      paper="Thm 3.8 step 1 (positivity propagation: Ax > 0 for x ≥ 0, x ≠ 0; A^k > 0)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_positivity_propagation(ex, backend, dps):
    """On pyref's A_LM (and positive matrices): for nonnegative nonzero, sparse x (and unit
    vectors), ``(Ax)_i ≥ ε Σx > 0`` with ε = min A, each term ``A_ik x_k ≤ (Ax)_i``, and
    ``A^k > 0`` for k ≤ 5. float64: ``fl(Σ)`` of nonnegative terms is ≥ ``(1 − γ_n)·Σ``, so both
    inequalities may be violated by at most ``2γ_{n+1}·max(A|x|)``; positivity is exact (products
    of normal positive floats ≥ 1e-12 are positive, sums of positives are positive)."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    ch = Checks()
    check_positive_image(ch, A, ex.xs, backend, dps)
    check_pow_pos(ch, A, backend, dps)
    return ch.outcome()


@prop(theorems=_T("mulVec_add", "mulVec_sub", "mulVec_smul", "mulVec_neg", "mulVec_le_mulVec",
                  "absv_mulVec_le", "mulVec_shiftMat", "shiftMat_nonneg", "transpose_entry_ge",
                  "dot_mulVec_eq_dot_transpose", "mulVec_le_mul_fsum", "le_entrySum"),
      paper="Thm 3.8 (matrix–vector helpers of the proof, on A_LM)", strategy=perron_case,
      backends=("mp", "float64"))
def perron_matvec_helpers(ex, backend, dps):
    """The linear-algebra facts the proof runs on, evaluated on pyref's A_LM: linearity of
    ``x ↦ Ax``; monotonicity for ``A ≥ 0``; ``|(Aw)_i| ≤ (A|w|)_i``; ``(A − εI)x = Ax − εx`` and
    ``A − εI ≥ 0``; ``Aᵀ ≥ ε``; ``yᵀ(Ax) = (Aᵀy)ᵀx``; ``(Ax)_i ≤ K Σx``; ``A_ij ≤ Σ A``. Bounds:
    ``2γ_k·T`` (float64) / ``MP·T`` (mp) with T the absolute-value expression and k the longest
    chain (n + 2 for products, n² for the entry sum); exact facts (signs) have bound 0."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    n = ex.n
    ch = Checks()
    with ctx(backend, dps):
        bk = pyref.get_backend(backend, dps)
        x, y = conv(backend, dps, ex.zs[0], ex.zs[1])
        (c,) = conv(backend, dps, np.float64(-0.75))
        eps = min(np.asarray(A).ravel())
        K = max(np.asarray(A).ravel())
        absA = np.abs(A)
        amp = 1 + n * _f(K)
        T2 = _scale(A, np.abs(x) + np.abs(y))
        ch.le("A(x + y) = Ax + Ay", _maxabs(_mv(A, x + y) - (_mv(A, x) + _mv(A, y))),
              fbound(backend, n + 2, T2, amp))
        ch.le("A(x − y) = Ax − Ay", _maxabs(_mv(A, x - y) - (_mv(A, x) - _mv(A, y))),
              fbound(backend, n + 2, T2, amp))
        ch.le("A(cx) = c Ax", _maxabs(_mv(A, c * x) - c * _mv(A, x)), fbound(backend, n + 2, 0.75 * _scale(A, x), amp))
        ch.le("A(−x) = −Ax", _maxabs(_mv(A, -x) + _mv(A, x)), fbound(backend, n + 1, _scale(A, x), amp))
        z = x + np.abs(y)                       # z ≥ x entrywise (exactly: |y| ≥ 0 and rounding is monotone)
        ch.le("x ≤ z ⇒ Ax ≤ Az", _maxpos(_mv(A, x) - _mv(A, z)), fbound(backend, n + 2, T2, amp))
        ch.le("|(Aw)_i| ≤ (A|w|)_i", _maxpos(np.abs(_mv(A, x)) - _mv(A, np.abs(x))),
              fbound(backend, n + 1, _scale(A, x), amp))
        Sh = A - eps * bk.eye(n)
        ch.le("(A − εI)x = Ax − εx", _maxabs(_mv(Sh, x) - (_mv(A, x) - eps * x)),
              fbound(backend, n + 2, T2 + _f(eps), amp))
        ch.exact("A − εI ≥ 0, Aᵀ ≥ ε", sum(1 for t in np.asarray(Sh).ravel() if t < 0)
                 + sum(1 for t in np.asarray(A).T.ravel() if t < eps))
        lhs = sum(y * _mv(A, x))
        rhs = sum(_mv(np.asarray(A).T, y) * x)
        ch.le("yᵀ(Ax) = (Aᵀy)ᵀx", abs(lhs - rhs),
              fbound(backend, 2 * n + 2, _f(sum(np.abs(y) * _mv(absA, np.abs(x)))), amp))
        for w in ex.xs:
            (wb,) = conv(backend, dps, w)
            s = sum(wb)
            ch.le("(Ax)_i ≤ K Σx", _maxpos(_mv(A, wb) - K * s), fbound(backend, n + 2, _f(K * s), amp))
        S = sum(np.asarray(A).ravel())
        ch.le("A_ij ≤ Σ A", _f(K - S), fbound(backend, n * n + 1, _f(S), amp))
    return ch.outcome()


def _maxabs(d) -> float:
    return float(np.max(pyref.to_float64(np.abs(np.asarray(d))))) if np.size(d) else 0.0


def _maxpos(d) -> float:
    return max(0.0, float(np.max(pyref.to_float64(np.asarray(d))))) if np.size(d) else 0.0


@prop(theorems=_T("eigvec_pos_of_nonneg", "eps_mul_fsum_le_eigenvalue_mul", "eps_le_eigenvalue",
                  "eigenvalue_mul_max_ge", "exists_perron_pair", "exists_left_perron_pair",
                  "exists_perron_pairs", "left_right_root_eq"),
      paper="Thm 3.8 steps 2, 5, 8 (positive Perron pairs, r ≥ ε, n ε min v ≤ r max v, left = right)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_pair_positive(ex, backend, dps):
    """mp: pyref's Perron pairs of A and Aᵀ (``pyref.analysis.perron(dps=50)``) witness the
    existence statements: both vectors strictly positive, residuals at the 50-digit level,
    ``r ≥ ε``, ``ε Σv ≤ r v_i``, ``n ε min v ≤ r max v`` (violations bounded by the residual:
    ``ε Σv̂ ≤ (Av̂)_i`` holds exactly), and the left and right roots agree within their
    Collatz–Wielandt errors.

    float64: the Perron root as a float64 user computes it (largest real part of
    ``np.linalg.eigvals`` of pyref's float64 A_LM) against the exact root of the same matrix:
    ``|λ̂ − r| ≤ 2κ·10n²·u·‖A‖_F`` with ``κ = ‖y‖‖v‖/(yᵀv)`` (50 digits), and ``λ̂ ≥ ε``
    within
    that bound."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    if backend == "mp":
        check_pair(ch, an)
        return ch.outcome()
    Af = np.asarray(A, dtype=np.float64)
    ev = np.linalg.eigvals(Af)
    k = int(np.argmax(ev.real))
    lam = ev[k]
    fro = float(np.linalg.norm(Af))
    bnd = 2 * _f(an.kappa) * 10 * ex.n ** 2 * U64 * fro
    with mpmath.workdps(DPS):
        dev = abs(mpmath.mpf(float(lam.real)) - an.r) + abs(float(lam.imag))
        ch.le("float64 Perron root vs exact", dev, bnd + _f(an.err_r))
        ch.le("float64 root ≥ ε", an.eps - mpmath.mpf(float(lam.real)), bnd + _f(an.err_r))
    return ch.outcome(note=f"κ ≤ 1e{math.ceil(math.log10(max(1.0, _f(an.kappa))))}")


@prop(theorems=_T("collatz_le", "collatz_lower", "collatz_upper", "collatz_wielandt_min_le",
                  "collatz_wielandt_le_max"),
      paper="Thm 3.8 step 3 (Collatz–Wielandt: min (Ax)_i/x_i ≤ r ≤ max (Ax)_i/x_i)",
      strategy=perron_case, backends=("mp", "float64"))
def perron_collatz_wielandt(ex, backend, dps):
    """For random positive x (three decades of scale) and near-Perron probes
    ``x = v̂ ⊙ (1 + δz)`` (δ = 1e-30 at mp, 1e-8 both), ``min_i (Ax)_i/x_i ≤ r ≤ max_i (Ax)_i/x_i``
    with r the 50-digit root of the same matrix; the general comparison ``collatz_le``
    (``s w ≤ Aw`` for sparse w ≥ 0 and ``Ax ≤ Mx`` give ``s ≤ M``) needs no root at all.
    float64: each computed ratio has relative error ≤ γ_{n+1}."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_collatz(ch, an, ex.ps, ex.xs, backend, A, dps)
    return ch.outcome()


@prop(theorems=_T("eq_smul_of_mulVec_le", "eq_smul_of_mulVec_ge", "eq_smul_of_eigvec",
                  "eigenvalue_eq_of_nonneg_eigvecs", "no_generalized_eigvec", "left_right_root_eq",
                  "eq_smul_of_left_eigvec"),
      paper="Thm 3.8 steps 4, 5, 7 (uniqueness, geometric and algebraic simplicity, left = right)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_uniqueness_simplicity(ex, backend, dps):
    """At 50 digits (mp only: these are exact-equality / rank statements that float64 cannot
    resolve for nearly reducible A_LM): exactly one real eigenvalue (the Perron root, equal to
    pyref's) has a one-signed eigenvector, on the right and on the left; ``Ax − rx`` has both
    signs unless x ∝ v (``Ax ≤ rx`` or ``≥`` forces x ∝ v); ``rank(A − rI) = n − 1 =
    rank((A − rI)²)`` for the right and for the left root (σ_n below, σ_{n−1} above the Weyl
    resolution); left and right roots agree."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_one_signed(ch, an)
    check_not_subinvariant(ch, an, ex.zs)
    check_ranks(ch, an)
    ch.le("left root = right root", abs(an.r - an.rl), an.err_r + an.err_rl)
    return ch.outcome()


@prop(theorems=_T("absv_eigenvalue_le_of_nonneg", "real_eigenvalue_bounds", "real_eigenvalue_dominated",
                  "cmod_eigenvalue_le_of_nonneg", "complex_eigenvalue_shifted_bound",
                  "complex_eigenvalue_dominated", "cmod_fsum_le", "absv_mulVec_le"),
      paper="Thm 3.8 step 6 (dominance: |λ| < r for λ ≠ r; spectrum in the disc |λ − ε| ≤ r − ε)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_dominance(ex, backend, dps):
    """Every eigenvalue of pyref's A_LM (mpmath, 50 digits, tolerance 2κ_j·MP·‖A‖_F plus the
    root error): ``|λ| ≤ r``, ``|λ − ε| ≤ r − ε``, real ones in ``[2ε − r, r]``, and ``r − |λ|``
    above the resolution for λ ≠ r; on each eigenvector the triangle inequalities the proof
    uses (for A and for A − εI). mp only: float64 eigenvalues of a nearly reducible A_LM are
    perturbations of size κ_j·u·‖A‖, which says nothing about the exact spectrum the theorem
    is about; at 50 digits the same perturbation is 10^-33 below the margins."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    ch = Checks()
    check_dominance(ch, an)
    return ch.outcome()


@prop(theorems=_T("piter_pos", "mulVec_piter_pos", "lo_pos", "lo_mul_le", "le_hi_mul", "mulVec_piter",
                  "lo_le_hi", "piter_le_succ", "lo_le_lo_succ", "hi_succ_le_hi", "piter_balanced",
                  "mulVec_mulVec_le_contract", "contractRate_pos", "hi_succ_le_contract",
                  "minRatio_mul_le", "le_maxRatio_mul", "exists_minRatio_eq",
                  "collatz_sequences_meet", "power_iteration_converges", "exists_perron_pair"),
      paper="Thm 3.8 step 8 (existence by the normalized power iteration; Collatz–Wielandt squeeze)",
      strategy=lambda: perron_case(hi=8), backends=("mp",), cost=0.5)
def perron_power_iteration(ex, backend, dps):
    """The Lean iteration ``p₀ = 𝟙, p_{k+1} = A p_k / m_k`` run at 50 digits on pyref's A_LM
    until ``M_k − m_k ≤ 1e-45 M_k`` (≤ 300 steps): ``p_k, A p_k, m_k > 0``;
    ``m_k p_k ≤ A p_k ≤ M_k p_k`` with the minimum attained; ``A p_k = m_k p_{k+1}``;
    ``p_k ≤ p_{k+1}``; ``m_k ↑``, ``M_k ↓``, ``m_k ≤ M_k``; balance ``ε p_l ≤ K p_j``; the weights
    ``θ (A p)_i ≤ A_ij p_j`` and the contraction ``A(Ap) ≤ (M − θ(M − m)) Ap``,
    ``M_{k+1} ≤ M_k − θ(M_k − m_k)`` with ``θ = ε²/(K²n)``; ``m_k ≤ r ≤ M_k`` for pyref's root (the
    sequences meet there); and convergence of ``p_k`` to pyref's Perron vector in Hilbert's
    metric, ``d_H(p_K, v̂) ≤ (log(M_K/m_K) + log(max/min CW ratio of v̂))/(1 − τ)`` (Birkhoff's
    contraction τ at 50 digits). mp only: the monotonicity steps are differences far below
    float64 resolution once the sequences have converged."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    seq = power_iteration(an)
    ch = Checks()
    check_iteration(ch, an, seq)
    p, _, m, M = seq[-1]
    conv_ok = _f((M - m) / M) <= 1e-40
    return ch.outcome(note="converged to 1e-40 within 300 steps" if conv_ok
                      else "not converged to 1e-40 within 300 steps (slow: |λ₂|/r near 1)")


@prop(theorems=_T("piter_telescope", "piter_bounded"),
      paper="Thm 3.8 step 8 (the iterates stay bounded: telescoping estimate)",
      strategy=lambda: perron_case(hi=8), backends=("mp",), cost=0.5)
def perron_iterates_bounded(ex, backend, dps):
    """With θ = ε²/(S²n), S the entry sum (the Lean instance ``contractRate ε (entrySum A) n``),
    ``h = θ m₀/2`` and J the first step with ``M_J < r + h`` (using ``r̂ − err_r`` so the
    hypothesis holds for the true r): ``p_{J+d,i}(θm₀ − (M_J − M_{J+d})) ≤ θm₀ p_{J,i}`` for every
    computed d, and the proof's bound ``p_k ≤ 2 p_J`` for every computed k. Inputs whose
    iteration does not reach such a J within 300 steps do not meet the hypothesis."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    seq = power_iteration(an)
    ch = Checks()
    with mpmath.workdps(DPS):
        th = an.eps * an.eps / (an.S * an.S * an.n)
        m0 = seq[0][2]
        h = th * m0 / 2
        J = next((k for k, s in enumerate(seq) if s[3] < an.r - an.err_r + h), None)
        if J is None:
            return Outcome(0.0, 1.0, met=False, note="no J with M_J < r + θm₀/2 within 300 steps")
        pJ, MJ = seq[J][0], seq[J][3]
        for d in range(len(seq) - J):
            p, M = seq[J + d][0], seq[J + d][3]
            lhs = [s * (th * m0 - (MJ - M)) for s in p]
            rhs = [th * m0 * s for s in pJ]
            ch.le("telescope p_{J+d}(θm₀ − (M_J − M_{J+d})) ≤ θm₀ p_J",
                  max(u - w for u, w in zip(lhs, rhs)),
                  MP * max(rhs))
        for p, _, _, _ in seq:
            ch.le("p_k ≤ 2 p_J", max(s - 2 * t for s, t in zip(p, pJ)), MP * max(pJ))
    return ch.outcome()


#: certificate statistics of this process (kind, metric ε) -> [certified, total]
CERT_STATS: dict[tuple[str, float], list[int]] = {}


@prop(theorems=_T("collatz_wielandt_min_le", "collatz_wielandt_le_max", "complex_eigenvalue_dominated",
                  "real_eigenvalue_dominated", "metricTensor_perron_frobenius"),
      paper="Thm 3.8 (interval certificate: Perron root enclosure, Hopf bound on the other eigenvalues)",
      strategy=lambda: perron_case(hi=6), backends=("mp",), cost=1.0)
def perron_certificate_plga(ex, backend, dps):
    """``crosscheck.certificates.perron_certificate`` on pyref's A_LM (called at 50-digit mp
    precision, so the mpf entries are converted exactly): its rigorous claims are checked
    against the 50-digit spectrum — the enclosure ``root_lo ≤ r ≤ root_hi`` (Collatz–Wielandt),
    every other eigenvalue ``|λ| ≤ other_radius`` (Hopf: τ·ρ_hi), and
    ``min v/max v ≥ vector_ratio_lb`` (the exact vector's ratio bounded through Hilbert's metric,
    ``d_H(v̂, v) ≤ log(CW(v̂))/(1 − τ)``). These claims hold whether or not the certificate is
    conclusive (``τ·ρ_hi < ρ_lo``); the note says which. Nearly reducible A_LM (ε = 1e-9,
    entries at ε) make φ tiny and τ ≈ 1: there the certificate is honestly inconclusive."""
    A = build_matrix(ex, backend, dps)
    if (bad := nonpositive(A)) is not None:
        return bad
    an = analyse(A)
    with mpmath.workdps(DPS):
        cert = perron_certificate(an.a)
    stats = CERT_STATS.setdefault((ex.kind, ex.eps), [0, 0])
    stats[0] += int(cert.certified)
    stats[1] += 1
    E, L, R, tol, js = an.eig
    ch = Checks()
    with mpmath.workdps(DPS):
        ch.le("root_lo ≤ r", mpmath.mpf(cert.root_lo) - an.r, an.err_r)
        ch.le("r ≤ root_hi", an.r - mpmath.mpf(cert.root_hi), an.err_r)
        for j in range(an.n):
            if j != js:
                ch.le("other |λ| ≤ τ·ρ_hi", abs(E[j]) - mpmath.mpf(cert.other_radius), tol[j])
        if cert.certified:
            # the claim "simple and strictly dominant", against the 50-digit spectrum (the
            # float fields cannot show it when Hopf's separation is below float64 resolution)
            for j in range(an.n):
                if j != js:
                    ch.margin("certified ⇒ other |λ| < r", tol[j] + an.err_r, an.r - abs(E[j]))
        ratio = min(an.v) / max(an.v)
        omt = 1 - an.tau
        if omt > 0:
            dh = mpmath.log(an.cw_hi / an.cw_lo) / omt
            ch.le("min v/max v ≥ vector_ratio_lb", mpmath.mpf(cert.vector_ratio_lb) - ratio,
                  ratio * (mpmath.exp(dh) - 1) + MP * ratio)
    return ch.outcome(note="certificate conclusive" if cert.certified
                      else f"certificate inconclusive (kind {ex.kind}, ε={ex.eps:g})")


@prop(theorems=_T("metricTensor_perron_frobenius", "metricTensor_isPerronFrobenius_of_pairs",
                  "perron_frobenius", "isPerronFrobenius_of_pairs"),
      paper="Thm 3.8 (Perron–Frobenius for A_LM = iSwiGLU(WA + b) + ε, every conclusion)",
      strategy=lambda: perron_case(kinds=("pipeline", "pipeline", "random", "positive"), hi=6),
      backends=("mp",), cost=1.0)
def perron_frobenius_metric_tensor(ex, backend, dps):
    """Every field of ``IsPerronFrobenius`` at once, on pyref's A_LM (pipeline with the sigmoid
    gate; random W, A, b), each drawn pipeline evaluated at the metric ε = 1e-9 (nearly
    reducible), at the drawn ε and at ε = 0.1, plus the hypothesis ``A_LM ≥ ε`` at the metric ε
    itself; and on positive matrices
    (``perron_frobenius``): root > 0; v, y > 0 with ``Av = rv``, ``Aᵀy = ry`` (pyref's pairs, which
    witness the existence in ``perron_frobenius``/``metricTensor_perron_frobenius``);
    positive image and positive powers; nonnegative eigenvectors belong to r (one-signed
    count); Collatz–Wielandt; geometric simplicity on both sides; no Jordan block; real and
    complex dominance. Same tolerances as the single-topic properties (module docstring)."""
    ch = Checks()
    eps_list = [ex.eps] if ex.kind == "positive" else sorted({1e-9, ex.eps, 0.1})
    for eps in eps_list:
        case = Case(ex.kind, ex.n, eps, ex.parts, ex.xs, ex.zs, ex.ps, ex.k)
        A = build_matrix(case, backend, dps)
        if (bad := nonpositive(A)) is not None:
            return bad
        an = analyse(A)
        if ex.kind != "positive":
            # the hypothesis metricTensor_perron_frobenius takes from metricTensor_entry_ge:
            # A_LM ≥ ε entrywise at the *metric* ε (pyref's mp constant for it), exactly
            with ctx("mp", dps):
                e = pyref.get_backend("mp", dps).const(eps)
                ch.exact("A_LM ≥ metric ε (hypothesis via metricTensor_entry_ge)",
                         sum(1 for t in an.a.ravel() if t < e))
        check_positive_image(ch, an.a, ex.xs, "mp", dps)
        check_pow_pos(ch, an.a, "mp", dps)
        check_pair(ch, an)
        check_collatz(ch, an, ex.ps, ex.xs)
        check_one_signed(ch, an)
        check_ranks(ch, an)
        check_dominance(ch, an)
    return ch.outcome()
