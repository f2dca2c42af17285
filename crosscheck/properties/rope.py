"""Properties for ``Formal/Rope`` (namespace ``PLGA.Rope``): the interleaved RoPE convention,
the rotation group law, Prop 4.1 (relative ⇔ commute, the non-resonant commutant, the commutant
projection Π and its kernel, the dimension counts) and the RoPE-aware collapse of Thm 5.4(ii),
evaluated on ``pyref.rope`` (``apply_rope``, ``rope_matrix``), ``pyref.analysis``
(``commutant_projection``, ``commutant_residual``) and ``pyref.plga.attention_scores``.

Correspondence with the Lean objects: ``flatRope ρ n`` is ``rope_matrix(n, d_k)`` (flat interleaved
coordinates ``2j + r``), ``c j n``/``s j n`` are ``cos(n θ_j)``/``sin(n θ_j)`` with
``θ_j = 10⁴^{-2j/d_k}``; ``commEmbed a b`` is :func:`_comm_embed`, ``kerEmbed`` is :func:`_ker_embed`,
``proj`` is :func:`_lean_proj` (the Lean formula) and pyref's ``commutant_projection`` (the spec-D
complex-eigenbasis definition); ``scoreForm ρ G n n'`` is ``R_nᵀ G R_{n'}``; ``plgaRopeScore`` /
``sdpaRopeScore`` are ``√d_k`` times pyref's ``attention_scores`` on ``apply_rope``-rotated rows (the
common ``1/√d_k`` is kept on both sides). Positions are drawn small, large (|n| ≤ 4096, the class
default ``max_seq_len``) and negative; pyref's ``rope_matrix``/``apply_rope`` accept any integer
position, negative ones included.

**Error bounds (derived, not tuned).** Every computed array is carried with float64 entrywise
majorants (:class:`_V`): ``a ≥ |computed|`` and, on the float64 backend, ``e ≥ |computed − exact|``,
propagated by the standard rules (Higham, *Accuracy and Stability*, §3.5): for a product with at
most ``k`` nonzero terms per entry, ``|fl(X'Y') − XY| ≤ |X'||Y'−Y| + |X'−X|(|Y'|+|Y'−Y|) + γ_k|X'||Y'|``
(a product by a RoPE matrix has ``k = 2``: the other terms are exact zeros, and adding an exact zero
is exact); a difference adds ``u(|X'|+|Y'|)``. A comparison of two computed arrays whose exact values
are equal (the theorem) passes when every entry deviates by at most the sum of the two ``e``'s; the
worst entry relative to its own bound is reported. The RoPE entries carry the a-priori bound of
:func:`_eps_rot`: for ``|n| ≤ N``, ``|fl(cos(n θ_j)) − cos(n θ_j)| ≤ ((8 + ln Θ + 2)·N + 8)·u`` (θ_j:
one rounding of the exponent ``-2j/d_k``, amplified by ``ln Θ``, plus ≤ 4 ulp for ``pow``; the angle
``n·θ_j``: one more rounding, ``|fl(nθ) − nθ| ≤ u·|n|θ``; cos/sin: ≤ 4 ulp ≤ 8u of a result in
[−1, 1] — numpy's AVX-512 SVML kernels are documented at ≤ 4 ULP, glibc's at < 1 ULP). At position 0
the angle is exactly 0 and cos 0 = 1, sin 0 = 0 exactly (bound 0, checked by
``rope_group_law_and_orthogonality``). Majorants are themselves evaluated in float64 (relative
error < 1e-12 for these sizes); every float64 bound carries a factor ``1 + 1e-6`` for that. On the
``mp`` backend (50 digits) the bound is :func:`~._util.mp_bound` of the largest majorant: every
chain here has far fewer than 10⁴ roundings, and the angle error ``|n|·u`` with ``|n| ≤ 8192`` is
within that allowance. References for the RoPE values (``cos(nθ_j)`` …) are computed at 80 digits.

``pyref.analysis.commutant_projection``/``commutant_residual`` are float64-only audit tools
(spec D: a complex float64 eigenbasis); the properties built on them run on ``float64`` only (an mp
run would evaluate the same float64 code). Their bounds: every entry of ``U``
(``±1/√2``, ``±i/√2``) has relative error ≤ 2.01u; each of the four complex products
``U*·G``, ``·U``, ``U·D``, ``·U*`` sums 2 nonzero terms (``√2 γ_4`` for complex inner products, Higham
§3.6), and ``|U||U*| = P`` (the 2×2-block ones pattern), so ``|Π'(G) − Π(G)| ≤ β_Π · P|G|P`` with
``β_Π = (1 + 2.01u)^4 (1 + √2 γ_4)^4 − 1`` (≈ 31u).
"""

from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ..certificates import rope_nonresonance
from ..registry import Outcome, prop
from ..strategies import even_dk, matrix
from ._util import U64, conv, ctx, gamma, mp_bound

NS = "PLGA.Rope."
BASE = 1e4
REF_DPS = 80
#: error of the 80-digit references (relative 1e-78); added to every bound against a reference
REF_ERR = 1e-70
#: ulps allowed for numpy's float64 pow/cos/sin (≤ 4 ULP: SVML's documented accuracy; glibc < 1)
TRIG_ULPS = 4
#: float64 majorants are evaluated in float64 (relative error < 1e-12 here): bounds carry 1 + 1e-6
SLACK = 1 + 1e-6
#: relative error of the float64 RoPE angle per unit |n| (θ_j: ln Θ·u from the exponent rounding,
#: 2·TRIG_ULPS·u from pow, 1u second-order slack; the product n·θ: 1u)
ANGLE_COEF = 2 * TRIG_ULPS + math.log(BASE) + 2
#: gradual underflow: a float64 product/quotient landing in the subnormal range errs by ≤ 2^-1075 in
#: absolute terms (sums are exact there), so every propagated float64 bound adds multiples of ETA
ETA = 2.0 ** -1074
#: β_Π of pyref's commutant projection (module docstring)
BETA_PI = (1 + 2.01 * U64) ** 4 * (1 + math.sqrt(2) * gamma(4)) ** 4 - 1
#: same for the two products of the eigenbasis change U* G U (commutant_residual)
BETA_2 = (1 + 2.01 * U64) ** 2 * (1 + math.sqrt(2) * gamma(4)) ** 2 - 1


def SVD_P(m: int, n: int) -> int:
    """LAPACK's singular values satisfy |σ̂_i − σ_i| ≤ p(m, n)·u·‖A‖₂ with "a modestly growing
    p(m, n)" (LAPACK Users' Guide §4.9); we take p = m·n, above the O(max(m, n)) growth of
    Householder bidiagonalization (Golub–Van Loan §8.6)."""
    return m * n


#: theorems of ``Formal/Rope`` with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    # Block.lean: index and 2×2 / pair-indexed infrastructure
    NS + "fin2_cases": "case split of Fin 2 (a pair has two coordinates); no computation",
    NS + "fin2_one_ne_zero": "decidable fact (1 : Fin 2) ≠ 0 about indices; no computation",
    NS + "M2.ext": "extensionality of 2×2 matrices (equal entries give equal matrices); a logical principle, no computation",
    NS + "M2.one_00": "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    NS + "M2.one_01": "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    NS + "M2.one_10": "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    NS + "M2.one_11": "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    NS + "M2.mul_apply": "definitional unfolding of the 2×2 product",
    NS + "M2.mul_assoc": "2×2 instance of PLGA.Mat.mul_assoc (checked by matmul_associative); pyref forms no separate 2×2 products",
    NS + "M2.one_mul": "2×2 instance of PLGA.Mat.one_mul (checked by identity_is_neutral); exact in IEEE and mpmath",
    NS + "M2.mul_one": "2×2 instance of PLGA.Mat.mul_one (checked by identity_is_neutral); exact in IEEE and mpmath",
    NS + "M2.rot_zero_zero": "rot 0 0 = 0 on the Lean definition (a·1 + b·J with a = b = 0); only used to prove commEmbed_zero, no pyref counterpart",
    NS + "psum_congr": "psum algebra used only inside proofs (congruence of sums over pair indices); pyref sums flat arrays",
    NS + "psum_add": "psum algebra used only inside proofs (linearity); the flat counterpart PLGA.fsum_add is checked by matvec_linearity",
    NS + "psum_mul_left": "psum algebra used only inside proofs; the flat counterpart PLGA.fsum_mul_left is checked by matmul_associative",
    NS + "psum_mul_right": "psum algebra used only inside proofs; the flat counterpart PLGA.fsum_mul_right is checked by matmul_associative",
    NS + "psum_zero'": "psum algebra used only inside proofs (a sum of exact zeros is exactly zero in every arithmetic)",
    NS + "psum_comm": "psum algebra used only inside proofs (exchange of sums); the flat counterpart PLGA.fsum_comm is checked by matmul_associative",
    NS + "psum_block": "psum algebra used only inside proofs (terms outside one block vanish); its consequences for RoPE products are checked",
    NS + "psum_single": "psum algebra used only inside proofs (a single nonzero term); no computation",
    NS + "BMat.ext_block": "extensionality (equal 2×2 blocks give equal matrices); a logical principle, no computation",
    NS + "BMat.transpose_transpose": "definitional (rfl) involution of the pair-indexed transpose; exact data movement",
    NS + "BMat.mul_assoc": "pair-indexed restatement of PLGA.Mat.mul_assoc (checked by matmul_associative); pyref has only flat arrays",
    NS + "BMat.transpose_mul": "pair-indexed restatement of PLGA.Mat.transpose_mul (checked by transpose_of_product)",
    NS + "BMat.one_mul": "pair-indexed restatement of PLGA.Mat.one_mul (checked by identity_is_neutral)",
    NS + "BMat.mul_one": "pair-indexed restatement of PLGA.Mat.mul_one (checked by identity_is_neutral)",
    NS + "BMat.transpose_one": "pair-indexed restatement of PLGA.Mat.transpose_one (checked by identity_is_neutral)",
    NS + "BMat.mulVec_mulVec": "pair-indexed restatement of PLGA.Mat.mulVec_mulVec (checked by matvec_linearity)",
    NS + "BMat.mulVec_basis": "A e_l is column l: exact data movement (products by 1 and exact zeros); used only inside proofs",
    NS + "BMat.dot_basis": "u · e_l = u_l: exact (products by 1 and exact zeros); used only inside proofs",
    NS + "BMat.dot_mulVec": "⟨u, Av⟩ = ⟨Aᵀu, v⟩, generic linear algebra used only inside the collapse proofs, whose statements are checked",
    NS + "BMat.ext_mulVec": "extensionality through matrix–vector products; a logical principle, no computation",
    NS + "BMat.ext_dot": "extensionality through dot products; a logical principle, no computation",
    NS + "BMat.mulVec_one": "pair-indexed restatement of PLGA.Mat.mulVec_one (checked by identity_is_neutral)",
    # Commutant.lean: the parametrization (a, b) ↦ commEmbed a b itself
    NS + "commCoords_commEmbed": "reading the entries (a_j, b_j) back out of commEmbed a b is exact data movement; no arithmetic",
    NS + "commEmbed_injective": "injectivity of placing (a_j, b_j) into entries; exact data movement, no arithmetic",
    NS + "commEmbed_add": "linearity of the placement of (a_j, ±b_j) into 2×2 blocks; no pyref counterpart (pyref never builds commEmbed)",
    NS + "commEmbed_smul": "homogeneity of the placement of (a_j, ±b_j) into 2×2 blocks; no pyref counterpart",
    NS + "commEmbed_zero": "commEmbed 0 0 = 0 on the Lean definition; no computation",
    # Projection.lean
    NS + "frob_comm": "symmetry of the Frobenius pairing: termwise commutativity of multiplication, exact in IEEE and mpmath",
    NS + "proj_add_sub": "the ring identity ΠG + (G − ΠG) = G; nothing of pyref's is involved (proj_sub_proj and frob_proj_sub, "
                         "which say what the two parts are, are checked)",
    # Kernel.lean: index bijections and the Nat count at the reference size
    NS + "skipIdx_ne": "index bijection (skipIdx j t ≠ j) of the kernel parametrization; Nat arithmetic, no computation",
    NS + "skipIdx_unskipIdx": "index bijection (skipIdx ∘ unskipIdx = id); Nat arithmetic, no computation",
    NS + "unskipIdx_skipIdx": "index bijection (unskipIdx ∘ skipIdx = id); Nat arithmetic, no computation",
    NS + "kerEmbed_diag": "definitional (dif_pos rfl) diagonal block of kerEmbed; no computation",
    NS + "kerCoords_kerEmbed": "reading the free coordinates back out of kerEmbed p is exact data movement; no arithmetic",
    NS + "kernel_dim_reference": "Nat arithmetic 64² − 64 = 4032 (by decide): the d_k = 64 instance of the count d_k² − d_k that "
                                 "commutant_and_kernel_ranks measures at d_k ≤ 16; measuring it at 64 needs pyref's projection of all "
                                 "4096 basis matrices (~84 s here), too slow for the fuzz profiles",
    # Collapse.lean
    NS + "dot_mulVec_left": "⟨Au, w⟩ = ⟨u, Aᵀw⟩, generic linear algebra used only inside the collapse proofs, whose statements are checked",
    # Flat.lean: the pair index (j, r) ↔ flat 2j + r transport
    NS + "planeOf_flatIdx": "index bijection ((2j + r)/2 = j); Nat arithmetic, no computation",
    NS + "parityOf_flatIdx": "index bijection ((2j + r) % 2 = r); Nat arithmetic, no computation",
    NS + "flatIdx_planeOf_parityOf": "index bijection (2(i/2) + i % 2 = i); Nat arithmetic, no computation",
    NS + "BMat.toFlat_ofFlat": "index transport round trip (flat → pair → flat); exact data movement",
    NS + "BMat.ofFlat_toFlat": "index transport round trip (pair → flat → pair); exact data movement",
    NS + "BVec.toFlat_ofFlat": "index transport round trip for vectors; exact data movement",
    NS + "BMat.toFlat_injective": "injectivity of the index transport; exact data movement",
    NS + "BMat.toFlat_transpose": "definitional (rfl): transport commutes with transpose; exact data movement",
    NS + "fsum_two_mul": "reindexing a flat sum over Fin (2m) as a pair sum; the same terms in another bracketing, used only inside proofs",
    NS + "BMat.toFlat_mul": "the transport preserves products (reindexing of the sum); pyref only has the flat side",
    NS + "BMat.toFlat_mulVec": "the transport preserves matrix–vector products (reindexing); pyref only has the flat side",
    NS + "BMat.dot_toFlat": "the transport preserves dot products (reindexing); pyref only has the flat side",
    NS + "flat_commutes_iff": "transport of Commutes between flat and pair-indexed matrices (no arithmetic); the flat statement "
                              "itself is what the properties evaluate on pyref's flat arrays",
    # Witness.lean: consistency of the hypothesis structures over Rat
    NS + "int_step_induction": "an induction principle on Int used to build the Rat witness; no numeric content",
    NS + "npow_norm": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ipow_norm": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ipow_succ": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ipow_pred": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ipow_add": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ratPairs_norm": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ratWitness_c_one": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ratWitness_s_one": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart",
    NS + "ratWitness_nonResonant": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart "
                                   "(the real frequencies' non-resonance is certified by crosscheck.certificates.rope_nonresonance)",
    NS + "ratWitness_commutes_iff": "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point counterpart "
                                    "(the real-frequency statement is checked by commutant_projection_is_lean_proj)",
}


# ------------------------------------------------------------------------------ strategies
#: positions: small (either sign), the full default RoPE table range and beyond it in
#: the negative direction, and the edges
POSITION = st.one_of(st.integers(-16, 16), st.integers(-4096, 4096),
                     st.sampled_from([0, 1, -1, 1023, 2048, 4095, 4096, -4096]))


def _comm_embed(ab: np.ndarray) -> np.ndarray:
    """Lean ``commEmbed a b`` = blockdiag_j [[a_j, −b_j], [b_j, a_j]] on the interleaved pairs (exact)."""
    dk = 2 * len(ab)
    G = np.zeros((dk, dk))
    for j, (a, b) in enumerate(ab):
        G[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[a, -b], [b, a]]
    return G


def _ker_embed(p: np.ndarray) -> np.ndarray:
    """Lean ``kerEmbed``: off-diagonal 2×2 blocks free (from ``p``), diagonal blocks [[x, y], [y, −x]]."""
    K = p.copy()
    for j in range(p.shape[0] // 2):
        x, y = p[2 * j, 2 * j], p[2 * j, 2 * j + 1]
        K[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[x, y], [y, -x]]
    return K


def _lean_proj(G: np.ndarray) -> np.ndarray:
    """Lean ``proj``: block (j, j) ↦ a·1 + b·J, a = (G00 + G11)/2, b = (G10 − G01)/2; other blocks 0.
    float64: one rounding per sum (halving is exact)."""
    m = G.shape[0] // 2
    ab = np.array([[(G[2 * j, 2 * j] + G[2 * j + 1, 2 * j + 1]) / 2,
                    (G[2 * j + 1, 2 * j] - G[2 * j, 2 * j + 1]) / 2] for j in range(m)])
    return _comm_embed(ab)


def _pattern(dk: int) -> np.ndarray:
    """P: ones on the 2×2 diagonal blocks (majorant of |R_n| and of |U||U*|)."""
    return np.kron(np.eye(dk // 2), np.ones((2, 2)))


def _fro(x) -> float:
    """Frobenius norm scaled by max|x| (an unscaled sum of squares underflows for |x| < 1e-154)."""
    x = np.abs(np.asarray(x, dtype=np.float64))
    mx = float(np.max(x)) if x.size else 0.0
    return 0.0 if mx == 0 else mx * float(np.sqrt(np.sum((x / mx) ** 2)))


def _eps_rot(n: int) -> float:
    """float64 bound on |fl(cos nθ_j) − cos nθ_j| and |fl(sin nθ_j) − sin nθ_j| (module docstring)."""
    n = abs(int(n))
    return 0.0 if n == 0 else (ANGLE_COEF * n + 2 * TRIG_ULPS) * U64


@functools.lru_cache(maxsize=8192)
def _ref_cs(n: int, dk: int):
    """(cos(nθ_j), sin(nθ_j))_j at 80 digits, θ_j = Θ^{-2j/d_k} (the real family of Rotation.lean)."""
    with mpmath.workdps(REF_DPS):
        B = mpmath.mpf(int(BASE))
        th = [mpmath.power(B, mpmath.mpf(-2 * j) / dk) for j in range(dk // 2)]
        return tuple(mpmath.cos(n * t) for t in th), tuple(mpmath.sin(n * t) for t in th)


def _ref_R(n: int, dk: int) -> np.ndarray:
    c, s = _ref_cs(n, dk)
    R = np.empty((dk, dk), dtype=object)
    R[...] = mpmath.mpf(0)
    with mpmath.workdps(REF_DPS):     # mpf negation rounds to the working precision
        for j in range(dk // 2):
            R[2 * j, 2 * j], R[2 * j, 2 * j + 1] = c[j], -s[j]
            R[2 * j + 1, 2 * j], R[2 * j + 1, 2 * j + 1] = s[j], c[j]
    return R


def _ref_rope_rows(X: np.ndarray, pos) -> np.ndarray:
    """Lean flatRope_mulVec_even/_odd at 80 digits: y_{2j} = c x_{2j} − s x_{2j+1}, y_{2j+1} = s x_{2j} + c x_{2j+1}."""
    S, dk = X.shape
    out = np.empty((S, dk), dtype=object)
    with mpmath.workdps(REF_DPS):
        for t, n in enumerate(pos):
            c, s = _ref_cs(int(n), dk)
            for j in range(dk // 2):
                xe, xo = mpmath.mpf(float(X[t, 2 * j])), mpmath.mpf(float(X[t, 2 * j + 1]))
                out[t, 2 * j] = c[j] * xe - s[j] * xo
                out[t, 2 * j + 1] = s[j] * xe + c[j] * xo
    return out


# ------------------------------------------------------------------ error-tracked arrays
class _V:
    """A backend array ``v`` with float64 majorants: ``|v| ≤ a`` and (float64) ``|v − exact| ≤ e``."""

    __slots__ = ("v", "a", "e")

    def __init__(self, v, a, e):
        self.v, self.a, self.e = v, np.asarray(a, dtype=np.float64), np.asarray(e, dtype=np.float64)

    @property
    def T(self) -> "_V":
        return _V(self.v.T, self.a.T, self.e.T)

    def __getitem__(self, idx) -> "_V":
        return _V(self.v[idx], self.a[idx], self.e[idx])


class _Ar:
    """Arithmetic on :class:`_V` in one backend, and the comparisons that become checks."""

    def __init__(self, backend: str, dps: int):
        self.backend, self.dps, self.mp = backend, dps, backend == "mp"
        self.b = pyref.get_backend(backend, dps)

    # -- constructors
    def exact(self, X) -> _V:
        X = np.asarray(X, dtype=np.float64)
        return _V(conv(self.backend, self.dps, X)[0], np.abs(X), np.zeros(X.shape))

    def rot(self, n: int, dk: int) -> _V:
        """pyref's R_n with |R_n| ≤ P and |R_n' − R_n| ≤ ε_n P."""
        P = _pattern(dk)
        return _V(pyref.rope.rope_matrix(int(n), dk, base=BASE, backend=self.backend, dps=self.dps), P, _eps_rot(n) * P)

    def rope_rows(self, X: _V, pos) -> _V:
        """pyref's apply_rope on the rows of X (row t rotated by R_{pos[t]}). Position 0 is exact
        (x·1 − y·0 = x with cos 0 = 1, sin 0 = 0 exactly)."""
        dk = X.v.shape[-1]
        P = _pattern(dk)
        v = pyref.rope.apply_rope(X.v, positions=[int(p) for p in pos], base=BASE, backend=self.backend, dps=self.dps)
        a, e = np.empty(X.a.shape), np.empty(X.a.shape)
        for t, n in enumerate(pos):
            if n == 0:
                a[t], e[t] = X.a[t], X.e[t]
                continue
            # |R'x' − Rx| ≤ |R' − R||x'| + |R||x' − x| + γ_2|R'||x'|, |R| ≤ P, |R' − R| ≤ ε P
            f = (1 + _eps_rot(n)) * (1 + gamma(2))
            xa, xe = X.a[t] @ P, X.e[t] @ P
            a[t] = f * xa + 2 * ETA
            e[t] = (f - 1) * xa + xe + 4 * ETA
        return _V(v, a, e)

    # -- operations
    def mm(self, X: _V, Y: _V, k: int, v=None) -> _V:
        """X @ Y (k = the number of terms per entry that can be nonzero); ``v`` if pyref computed it."""
        if v is None:
            with ctx(self.backend, self.dps):
                v = X.v @ Y.v
        g = gamma(k)
        aa = X.a @ Y.a
        e = X.a @ Y.e + X.e @ (Y.a + Y.e) + g * aa + 4 * (k + 1) * ETA
        return _V(v, (1 + g) * aa + (k + 1) * ETA, e)

    def sub(self, X: _V, Y: _V) -> _V:
        with ctx(self.backend, self.dps):
            v = X.v - Y.v
        s = X.a + Y.a
        return _V(v, (1 + U64) * s + ETA, X.e + Y.e + U64 * s + 2 * ETA)

    def add(self, X: _V, Y: _V) -> _V:
        with ctx(self.backend, self.dps):
            v = X.v + Y.v
        s = X.a + Y.a
        return _V(v, (1 + U64) * s + ETA, X.e + Y.e + U64 * s + 2 * ETA)

    def div_sqrt(self, X: _V, d: int, v=None) -> _V:
        """X / fl(√d) as pyref's attention_scores does (two roundings: √ and the division)."""
        if v is None:
            with ctx(self.backend, self.dps):
                v = X.v / self.b.sqrt(self.b.const(d))
        r = 1 / math.sqrt(d)
        return _V(v, r * (1 + 2.01 * U64) * X.a + ETA, r * (1 + 2.01 * U64) * X.e + 2.01 * U64 * r * X.a + 2 * ETA)

    def proj(self, X: _V) -> _V:
        """pyref's commutant_projection (float64): |Π'(X') − Π(X)| ≤ β_Π P|X'|P + P e P."""
        P = _pattern(X.v.shape[-1])
        v = pyref.analysis.commutant_projection(X.v, rope_base=BASE)
        # underflow: 4 complex products of 2 terms each, |U| ≤ 1: ≤ 64 ETA per entry
        return _V(v, np.abs(v), BETA_PI * (P @ X.a @ P) + P @ X.e @ P + 64 * ETA)

    # -- checks: (name, deviation, bound)
    def _absdiff(self, A, B) -> np.ndarray:
        with ctx(self.backend, self.dps):
            D = np.asarray(A) - np.asarray(B)
        return np.abs(to_float64(D))

    def _worst(self, name, d, E, amax):
        d = np.where(np.isnan(d), np.inf, d)
        if self.mp:
            return name, float(np.max(d)) if d.size else 0.0, mp_bound(amax)
        E = E * SLACK * (1 + 2 * U64)
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            r = np.where(E > 0, d / np.where(E > 0, E, 1), np.where(d > 0, np.inf, 0.0))
        i = np.unravel_index(int(np.argmax(r)), r.shape) if r.size else ()
        return name, float(d[i]) if d.size else 0.0, float(E[i]) if d.size else 0.0

    def cmp(self, name, X: _V, Y: _V):
        """Two computed arrays whose exact values the theorem says are equal."""
        return self._worst(name, self._absdiff(X.v, Y.v), X.e + Y.e, max(np.max(X.a), np.max(Y.a)))

    def cmp0(self, name, X: _V):
        """A computed array whose exact value the theorem says is zero."""
        return self._worst(name, np.abs(to_float64(X.v)), X.e, np.max(X.a))

    def cmp_ref(self, name, X: _V, ref: np.ndarray):
        """A computed array against its exact value (an 80-digit reference)."""
        with mpmath.workdps(REF_DPS):
            D = pyref.backend.to_mp(X.v, REF_DPS) - ref
            d = np.abs(to_float64(D))
        return self._worst(name, d, X.e + REF_ERR, np.max(X.a))

    def certified_nonzero(self, X: _V) -> tuple[float, float]:
        """(‖X'‖_F, thr): ‖X'‖_F > thr proves the exact value nonzero (‖X' − X‖_F ≤ thr)."""
        # the (scaled) float64 norm of the computed entries is itself rounded: shrink it by γ_{N+3}
        nrm = _fro(to_float64(X.v)) * (1 - gamma(X.a.size + 3))
        thr = (math.sqrt(X.a.size) * mp_bound(np.max(X.a)) if self.mp
               else _fro(X.e) * SLACK) * (1 + gamma(X.a.size + 3)) + ETA
        return nrm, thr


def _exceeds(name, value: float, thr: float):
    """A strict inequality value > thr: deviation = the violation (0 when it holds), bound 0."""
    return (name, 0.0 if value > thr else max(thr - value, 5e-324), 0.0)


def _outcome(checks, met: bool = True) -> Outcome:
    """The worst check (largest deviation relative to its own bound) as the property's Outcome."""
    worst, wr = ("", 0.0, 0.0), -1.0
    for name, dev, bnd in checks:
        dev = math.inf if math.isnan(dev) else dev
        r = dev / bnd if bnd > 0 else (0.0 if dev == 0 else math.inf)
        if r > wr:
            worst, wr = (name, dev, bnd), r
    name, dev, bnd = worst
    return Outcome(float(dev), float(bnd), met, note="" if wr <= 1 else f"failed: {name}")


def _layout_violations(R) -> int:
    """Exact structure of pyref's R_n: zero outside the 2×2 diagonal blocks, blocks [[c, −s], [s, c]]
    (call inside the backend's context)."""
    dk = R.shape[0]
    bad = 0
    for i in range(dk):
        for k in range(dk):
            if i // 2 != k // 2 and R[i, k] != 0:
                bad += 1
    for j in range(dk // 2):
        bad += int(R[2 * j, 2 * j] != R[2 * j + 1, 2 * j + 1]) + int(R[2 * j, 2 * j + 1] != -R[2 * j + 1, 2 * j])
    return bad


# ===================================================================== 1. the convention
@st.composite
def rope_rows_inputs(draw):
    dk = draw(even_dk(2, 16))
    S = draw(st.integers(1, 6))
    pos = draw(st.lists(POSITION, min_size=S, max_size=S))
    return dk, pos, draw(matrix(S, dk, structure=False))


@prop(theorems=[NS + "flatRope_mulVec_even", NS + "flatRope_mulVec_odd", NS + "flatRope_mulVec",
                NS + "BMat.bdiag_mulVec", NS + "BMat.block_bdiag",
                NS + "M2.rot_00", NS + "M2.rot_01", NS + "M2.rot_10", NS + "M2.rot_11"],
      paper="spec A.4 step 2 (interleaved RoPE pairs (2j, 2j+1), θ_j = Θ^{-2j/d_k})", strategy=rope_rows_inputs)
def rope_is_interleaved_block_rotation(ex, backend, dps):
    """pyref's ``apply_rope`` and ``rope_matrix`` are the Lean ``flatRope``: against an 80-digit
    evaluation of ``(R_n x)_{2j} = c x_{2j} − s x_{2j+1}``, ``(R_n x)_{2j+1} = s x_{2j} + c x_{2j+1}``
    (c = cos nθ_j, s = sin nθ_j) at every drawn position (up to ±4096), and ``rope_matrix(n)`` has
    exactly the layout ``bdiag_j [[c, −s], [s, c]]`` (zero off the 2×2 blocks, exactly). A half-split
    RoPE (pairs (j, j + d_k/2)) deviates by O(|x|) for d_k ≥ 4 and any n ≠ 0. Bound: entrywise
    ``ε_n P|x| + γ_2(1 + ε_n) P|x|`` (float64), ``mp_bound`` at 50 digits."""
    dk, pos, X = ex
    ar = _Ar(backend, dps)
    out = ar.rope_rows(ar.exact(X), pos)
    ref = _ref_rope_rows(X, pos)
    checks = [ar.cmp_ref("apply_rope = flatRope (even/odd coordinates)", out, ref)]
    for t, n in enumerate(pos):
        R = ar.rot(n, dk)
        checks.append(ar.cmp_ref("rope_matrix(n) = bdiag rot(cos nθ_j, sin nθ_j)", R, _ref_R(int(n), dk)))
        Rx = ar.mm(R, ar.exact(X[t][:, None]), 2)
        checks.append(ar.cmp_ref("rope_matrix(n) @ x = flatRope formula", Rx, ref[t][:, None]))
        with ctx(backend, dps):   # mpf negation outside the 50-digit context would round to 53 bits
            bad = _layout_violations(R.v)
        checks.append(("rope_matrix block layout (exact)", float(bad), 0.0))
    return _outcome(checks)


# ============================================================ 2. group law, orthogonality
@st.composite
def two_positions(draw):
    return draw(even_dk(2, 16)), draw(POSITION), draw(POSITION)


@prop(theorems=[NS + "RotFamily.c_zero", NS + "RotFamily.s_zero", NS + "RotFamily.c_neg", NS + "RotFamily.s_neg",
                NS + "RotFamily.rot_mul_rot", NS + "ropeMat_mul", NS + "ropeMat_zero", NS + "ropeMat_transpose",
                NS + "ropeMat_orthogonal", NS + "ropeMat_orthogonal'", NS + "M2.rot_mul_rot", NS + "M2.rot_one_zero",
                NS + "M2.transpose_rot", NS + "M2.rot_mul_rot_comm", NS + "BMat.bdiag_mul_bdiag", NS + "BMat.transpose_bdiag"],
      paper="Prop 4.1 setup (R_n R_n' = R_{n+n'}, R_0 = 1, R_nᵀ = R_{-n}, R_n orthogonal)", strategy=two_positions)
def rope_group_law_and_orthogonality(ex, backend, dps):
    """On pyref's ``rope_matrix`` (positions up to ±4096, sums up to ±8192): ``R_n R_{n'} = R_{n+n'}``
    (off-diagonal blocks exactly zero, diagonal blocks ``rot(cc' − ss', cs' + sc')``, and
    ``R_n R_{n'} = R_{n'} R_n``), ``R_0 = 1`` exactly (c 0 = 1, s 0 = 0: bound 0 on both backends),
    ``R_nᵀ = R_{-n}`` (c even, s odd; blocks ``rot(c, −s)``), ``R_nᵀ R_n = R_n R_nᵀ = 1``. Bounds: the
    propagated ``ε_n``/``γ_2`` majorants (module docstring); the blockwise product formula is the same
    2-term expression on both sides: ``2γ_2(1 + ε)²``."""
    dk, n, n2 = ex
    ar = _Ar(backend, dps)
    Rn, Rn2, Rsum, R0, Rneg = (ar.rot(p, dk) for p in (n, n2, n + n2, 0, -n))
    I = ar.exact(np.eye(dk))
    prod, prod_rev = ar.mm(Rn, Rn2, 2), ar.mm(Rn2, Rn, 2)
    checks = [ar.cmp("R_n R_n' = R_{n+n'}", prod, Rsum),
              ar.cmp("R_n R_n' = R_n' R_n", prod, prod_rev),
              ("R_0 = 1 exactly", float(np.max(ar._absdiff(R0.v, I.v))), 0.0),
              ar.cmp("R_nᵀ = R_{-n}", Rn.T, Rneg),
              ar.cmp("R_nᵀ R_n = 1", ar.mm(Rn.T, Rn, 2), I),
              ar.cmp("R_n R_nᵀ = 1", ar.mm(Rn, Rn.T, 2), I)]
    eps = max(_eps_rot(n), _eps_rot(n2))
    blk_bound = 0.0 if ar.mp else 2 * gamma(2) * (1 + eps) ** 2
    worst = 0.0
    with ctx(backend, dps):
        for j in range(dk // 2):
            sl = slice(2 * j, 2 * j + 2)
            c1, s1 = Rn.v[2 * j, 2 * j], Rn.v[2 * j + 1, 2 * j]
            c2, s2 = Rn2.v[2 * j, 2 * j], Rn2.v[2 * j + 1, 2 * j]
            a, b = c1 * c2 - s1 * s2, c1 * s2 + s1 * c2
            formula = np.array([[a, -b], [b, a]], dtype=object if ar.mp else np.float64)
            worst = max(worst, float(np.max(np.abs(to_float64(prod.v[sl, sl] - formula)))))
    checks.append(("block (j,j) of R_n R_n' = rot(cc' − ss', cs' + sc')", worst,
                   mp_bound(1.0) if ar.mp else blk_bound * SLACK))
    return _outcome(checks)


# ===================================================== 3. Prop 4.1: relative ⇔ commute
@st.composite
def operator_inputs(draw):
    dk = draw(even_dk(2, 16))
    kind = draw(st.sampled_from(["commutant", "commutant", "random", "perturbed"]))
    G = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "random":
        G = draw(matrix(dk, dk))
    elif kind == "perturbed":
        delta = draw(st.sampled_from([1e-3, 1e-6]))
        G = G + delta * max(1.0, float(np.max(np.abs(G)))) * draw(matrix(dk, dk, magnitude=st.just(1.0), structure=False))
    return dk, kind, G, draw(POSITION), draw(POSITION), draw(POSITION)


def _score_forms(ar: _Ar, G: _V, dk: int, positions):
    R = {p: ar.rot(p, dk) for p in set(positions)}

    def S(p, p2):
        return ar.mm(ar.mm(R[p].T, G, 2), R[p2], 2)
    return R, S


@prop(theorems=[NS + "isRelative_iff_commutes", NS + "translationInvariant_iff_commutes", NS + "scoreForm_of_commutes",
                NS + "scoreForm_zero_zero", NS + "commutes_of_scoreForm_diag", NS + "flat_isRelative_iff_commutes",
                NS + "commEmbed_commutes", NS + "block_intertwines", NS + "M2.rot_mul_rot_comm",
                NS + "BMat.bdiag_mul", NS + "BMat.mul_bdiag", NS + "BMat.block_mul_bdiag", NS + "BMat.block_bdiag_mul"],
      paper="Prop 4.1 (score form R_nᵀ G R_n' depends only on n' − n iff G commutes with every R_n)",
      strategy=operator_inputs)
def score_form_relative_iff_commutes(ex, backend, dps):
    """Both directions on pyref's RoPE. G = blockdiag(a_j·1 + b_j·J) (commutes exactly): the score
    form equals ``G R_{n'−n}``, is invariant under shifting both positions by t, ``R_nᵀ G R_n = G``,
    ``G R_n = R_n G`` and blockwise ``rot_j(n) G_jk = G_jk rot_k(n)`` (blocks of the full products equal
    the 2×2 block products), all within the propagated bound. G random or a commutant element plus a
    relative 1e-3/1e-6 perturbation (hypothesis: ``G R_1 − R_1 G ≠ 0``, certified when
    ``‖C'‖_F − ‖C.e‖_F > 2‖D.e‖_F`` so that the conclusion is decidable in this arithmetic; otherwise
    ``met=False``): some shift changes the score form by more than its round-off bound (candidates:
    ``R_1ᵀ G R_1 − G``, whose exact Frobenius norm is ``‖G R_1 − R_1 G‖_F``, and the drawn (n, n', t)).
    ``R_0ᵀ G R_0 = G`` exactly for every G (R_0 = 1 exactly)."""
    dk, kind, G, n, n2, t = ex
    ar = _Ar(backend, dps)
    Gv = ar.exact(G)
    R, S = _score_forms(ar, Gv, dk, [0, 1, n, n2, t, n + t, n2 + t, n2 - n])
    checks = [("R_0ᵀ G R_0 = G exactly", float(np.max(ar._absdiff(S(0, 0).v, Gv.v))), 0.0)]
    C = ar.sub(ar.mm(Gv, R[1], 2), ar.mm(R[1], Gv, 2))
    if kind == "commutant":
        checks += [ar.cmp("R_nᵀ G R_n' = G R_{n'−n}", S(n, n2), ar.mm(Gv, R[n2 - n], 2)),
                   ar.cmp("R_{n+t}ᵀ G R_{n'+t} = R_nᵀ G R_n'", S(n + t, n2 + t), S(n, n2)),
                   ar.cmp("R_tᵀ G R_t = G", S(t, t), Gv)]
        GR, RG = ar.mm(Gv, R[n], 2), ar.mm(R[n], Gv, 2)
        checks.append(ar.cmp("G R_n = R_n G", GR, RG))
        for j in range(dk // 2):
            for k in range(dk // 2):
                bj, bk = slice(2 * j, 2 * j + 2), slice(2 * k, 2 * k + 2)
                Gjk = Gv[bj, bk]
                left, right = ar.mm(R[n][bj, bj], Gjk, 2), ar.mm(Gjk, R[n][bk, bk], 2)
                checks += [ar.cmp("rot_j(n) G_jk = G_jk rot_k(n)", left, right),
                           ar.cmp("block (j,k) of R_n G = rot_j(n) G_jk", RG[bj, bk], left),
                           ar.cmp("block (j,k) of G R_n = G_jk rot_k(n)", GR[bj, bk], right)]
        return _outcome(checks)
    D1 = ar.sub(S(1, 1), Gv)
    cands = [D1, ar.sub(S(n + t, n2 + t), S(n, n2)), ar.sub(S(t, t), Gv)]
    cn, cthr = ar.certified_nonzero(C)
    _, d1thr = ar.certified_nonzero(D1)
    met = cn - cthr > 2 * d1thr
    margins = [ar.certified_nonzero(D) for D in cands]
    best = max(margins, key=lambda v: v[0] - v[1])
    checks.append(_exceeds("some shift t changes the score form (not relative)", best[0], best[1]))
    return _outcome(checks, met=met)


# ====================================================== 4. commutant projection Π (float64)
@st.composite
def projection_inputs(draw):
    dk = draw(even_dk(2, 16))
    return (dk, draw(matrix(dk, dk)), draw(matrix(dk, dk)), draw(matrix(dk // 2, 2, structure=False)),
            _ker_embed(draw(matrix(dk, dk, structure=False))), draw(POSITION))


@prop(theorems=[NS + "proj_apply_diag", NS + "proj_commutes", NS + "proj_commEmbed", NS + "proj_proj",
                NS + "proj_eq_self_iff", NS + "proj_sub", NS + "proj_sub_proj", NS + "frob_proj_sub",
                NS + "frob_commEmbed", NS + "proj_eq_zero_iff_orthogonal", NS + "proj_eq_zero_iff_orthogonal_commutant",
                NS + "commutes_iff_eq_commEmbed", NS + "commEmbed_commCoords", NS + "flat_commutes_iff_eq_commEmbed",
                NS + "eq_zero_of_commutes_of_proj_eq_zero", NS + "proj_kerEmbed", NS + "kerEmbed_kerCoords"],
      paper="Prop 4.1 / audit D2 (commutant projection Π, its kernel, the Frobenius split)",
      strategy=projection_inputs, backends=("float64",))
def commutant_projection_is_lean_proj(ex, backend, dps):
    """pyref's ``commutant_projection`` (spec D2: U Π(U*GU) U*, complex eigenbasis, entries with equal
    frequency kept) equals the Lean ``proj`` (block (j, j): a = (G00+G11)/2, b = (G10−G01)/2; other
    blocks 0) to round-off, for random G (rank-deficient ones included); ΠG has the commEmbed form of its
    own coordinates and commutes with pyref's R_n; Π is idempotent and linear on differences;
    Π(G − ΠG) = 0; ⟨ΠG, G − ΠG⟩_F = 0; ⟨G, commEmbed a b⟩ = Σ a_j(G00+G11) + b_j(G10−G01); commutant
    elements C = commEmbed(a, b) are fixed by Π and commute with R_n; kernel elements K = kerEmbed(p)
    are mapped to 0 and are Frobenius-orthogonal to C; G − ΠG has kernel-shaped diagonal blocks
    [[x, y], [y, −x]]; a nonzero C has ΠC ≠ 0 and a non-commuting G has ΠG ≠ G and ⟨G, ΠG⟩ > 0
    (certified above round-off). float64 only: pyref's projection is a float64 audit tool (module
    docstring); bounds are the β_Π-based majorants."""
    dk, G, H, ab, K, n = ex
    ar = _Ar(backend, dps)
    Gv, Hv, Kv = ar.exact(G), ar.exact(H), ar.exact(K)
    C = ar.exact(_comm_embed(ab))
    Rn, R1 = ar.rot(n, dk), ar.rot(1, dk)
    PG = ar.proj(Gv)
    lean = _lean_proj(G)
    LG = _V(lean, np.abs(lean), U64 * (_pattern(dk) @ np.abs(G) @ _pattern(dk)) + 2 * ETA)
    checks = [ar.cmp("pyref Π G = Lean proj G (proj_apply_diag)", PG, LG)]
    # commEmbed form of ΠG from its own coordinates (off-diagonal blocks 0, [[a, −b], [b, a]])
    offmask = _pattern(dk) == 0
    checks.append(ar._worst("ΠG off-diagonal blocks = 0", np.where(offmask, np.abs(PG.v), 0.0),
                            np.where(offmask, PG.e, 1.0), 1.0))
    for j in range(dk // 2):
        i0, i1 = 2 * j, 2 * j + 1
        checks.append(ar.cmp0("ΠG block: a − a' = 0", ar.sub(PG[i0:i0 + 1, i0:i0 + 1], PG[i1:i1 + 1, i1:i1 + 1])))
        checks.append(ar.cmp0("ΠG block: −b + b' = 0", ar.add(PG[i0:i0 + 1, i1:i1 + 1], PG[i1:i1 + 1, i0:i0 + 1])))
    checks += [ar.cmp0("Π G commutes with R_n", ar.sub(ar.mm(PG, Rn, 2), ar.mm(Rn, PG, 2))),
               ar.cmp("Π Π G = Π G", ar.proj(PG), PG),
               ar.cmp("Π (G − H) = ΠG − ΠH", ar.proj(ar.sub(Gv, Hv)), ar.sub(PG, ar.proj(Hv)))]
    KG = ar.sub(Gv, PG)
    checks.append(ar.cmp0("Π (G − ΠG) = 0", ar.proj(KG)))
    row = lambda X: _V(X.v.reshape(1, -1), X.a.reshape(1, -1), X.e.reshape(1, -1))  # noqa: E731
    col = lambda X: _V(X.v.reshape(-1, 1), X.a.reshape(-1, 1), X.e.reshape(-1, 1))  # noqa: E731
    N = dk * dk
    checks.append(ar.cmp0("⟨ΠG, G − ΠG⟩_F = 0", ar.mm(row(PG), col(KG), N)))
    # ⟨G, commEmbed a b⟩ = Σ_j a_j (G00 + G11) + b_j (G10 − G01)
    lhs = ar.mm(row(Gv), col(C), N)
    idx0, idx1 = np.arange(0, dk, 2), np.arange(1, dk, 2)
    s1 = ar.add(Gv[idx0, idx0][:, None], Gv[idx1, idx1][:, None])
    s2 = ar.sub(Gv[idx1, idx0][:, None], Gv[idx0, idx1][:, None])
    A, B = ar.exact(ab[:, 0][None, :]), ar.exact(ab[:, 1][None, :])
    rhs = ar.add(ar.mm(A, s1, dk // 2), ar.mm(B, s2, dk // 2))
    checks.append(ar.cmp("⟨G, commEmbed a b⟩ = Σ a_j(G00+G11) + b_j(G10−G01)", lhs, rhs))
    # commutant elements: fixed by Π, commute with R_n; nonzero ones have ΠC ≠ 0
    PC = ar.proj(C)
    checks += [ar.cmp("Π C = C", PC, C), ar.cmp0("C R_n = R_n C", ar.sub(ar.mm(C, Rn, 2), ar.mm(Rn, C, 2)))]
    pc = ar.certified_nonzero(PC)
    if _fro(C.a) * (1 - gamma(C.a.size + 3)) > 2 * pc[1]:      # decidable: exact ‖ΠC‖_F = ‖C‖_F > 2 thr
        checks.append(_exceeds("C ≠ 0 commuting ⇒ ΠC ≠ 0", *pc))
    # kernel elements: Π K = 0, ⟨K, C⟩ = 0; G − ΠG has the kernel shape
    checks += [ar.cmp0("Π kerEmbed(p) = 0", ar.proj(Kv)),
               ar.cmp0("⟨kerEmbed p, commEmbed a b⟩ = 0", ar.mm(row(Kv), col(C), N)),
               ar.cmp0("⟨G − ΠG, commEmbed a b⟩ = 0", ar.mm(row(KG), col(C), N))]
    for j in range(dk // 2):
        i0, i1 = 2 * j, 2 * j + 1
        checks.append(ar.cmp0("G − ΠG diagonal block: x + (−x) = 0", ar.add(KG[i0:i0 + 1, i0:i0 + 1], KG[i1:i1 + 1, i1:i1 + 1])))
        checks.append(ar.cmp0("G − ΠG diagonal block: y − y = 0", ar.sub(KG[i1:i1 + 1, i0:i0 + 1], KG[i0:i0 + 1, i1:i1 + 1])))
    # a certified non-commuting G: ΠG ≠ G (exact ‖G − ΠG‖_F ≥ ‖G R_1 − R_1 G‖_F / 2, since
    # [G, R_1] = [G − ΠG, R_1] and ‖[X, R]‖_F ≤ 2‖X‖_F); and ⟨G, ΠG⟩ = ‖ΠG‖²_F ≠ 0 when ΠG ≠ 0.
    # Each is checked when decidable: the rigorous lower bound of the exact value exceeds 2× the bound.
    cn, cthr = ar.certified_nonzero(ar.sub(ar.mm(Gv, R1, 2), ar.mm(R1, Gv, 2)))
    kg = ar.certified_nonzero(KG)
    if (cn - cthr) / 2 > 2 * kg[1]:
        checks.append(_exceeds("G non-commuting ⇒ ΠG ≠ G", *kg))
    pg, pthr = ar.certified_nonzero(PG)
    pair = ar.mm(row(Gv), col(PG), N)
    pe = float(pair.e[0, 0]) * SLACK
    if pg > pthr and (pg - pthr) ** 2 > 2 * pe:
        checks.append(_exceeds("ΠG ≠ 0 ⇒ ⟨G, ΠG⟩ ≠ 0", abs(float(pair.v[0, 0])), pe))
    return _outcome(checks)


@st.composite
def residual_inputs(draw):
    dk = draw(even_dk(2, 16))
    kind = draw(st.sampled_from(["commutant", "kernel", "random", "perturbed"]))
    C = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "commutant":
        G = C
    elif kind == "kernel":
        G = _ker_embed(draw(matrix(dk, dk, structure=False)))
    elif kind == "random":
        G = draw(matrix(dk, dk))
    else:
        G = C + 1e-6 * max(1.0, float(np.max(np.abs(C)))) * draw(matrix(dk, dk, magnitude=st.just(1.0), structure=False))
    mx = float(np.max(np.abs(G)))
    if 0 < mx < 1e-100:   # pyref's residual needs an unscaled ‖G‖_F² > 0 (see the property's docstring)
        G = G / mx        # entrywise, keeps the commutant / kernel shape
    return dk, kind, G


def _residual_bound(G: np.ndarray, rho: float) -> float:
    """|ρ' − ρ| for pyref's commutant_residual: the entries of U*GU err by ≤ (β_2/2)(P|G|P) (|U*||G||U| =
    ½P|G|P), so the numerator and denominator norms err by ≤ η = (β_2/2)‖P|G|P‖_F plus γ_{d²+4} of
    themselves (abs, squares, sum, sqrt); the quotient adds u."""
    P = _pattern(G.shape[0])
    den = _fro(G)
    # underflow: ≤ 16 ETA per entry of U*GU, and squares below 2^-1022 are lost: ≤ d_k·sqrt(ETA) per norm
    eta = BETA_2 / 2 * _fro(P @ np.abs(G) @ P) + G.shape[0] * (16 * ETA + math.sqrt(ETA))
    g = gamma(G.size + 4)
    return ((1 + rho) * (eta + g * den) / max(den - eta - g * den, 1e-300) + 2 * U64) * SLACK


@prop(theorems=[NS + "isRelative_iff_sub_proj_eq_zero", NS + "not_isRelative_of_proj_eq_zero",
                NS + "isRelative_iff_commutes"],
      paper="audit D2 / Prop 4.1 (the commutant residual ρ(G) vanishes iff the score form is relative)",
      strategy=residual_inputs, backends=("float64",))
def commutant_residual_vanishes_iff_relative(ex, backend, dps):
    """pyref's ``commutant_residual`` ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F agrees with ‖G − ΠG‖_F/‖G‖_F (Lean
    proj, unitary invariance) and decides relativity: commutant elements have ρ ≈ 0 and a shift-invariant
    score form (R_1ᵀ G R_1 = G); kernel elements K = kerEmbed(p) ≠ 0 (ΠK = 0 exactly) have ρ = 1 and a
    score form that moves under the shift t = 1 (not_isRelative_of_proj_eq_zero); random and 1e-6-perturbed
    commutant elements (hypothesis: non-commuting, certified) have ρ and the shift certified > 0.
    "Certified" checks run when decidable (``met``): the rigorous lower bound of the exact quantity
    (‖G − ΠG‖_F ≥ ‖[G, R_1]‖_F/2; for kernel elements ‖[K, R_1]‖_F ≥ g‖K‖_F with the interval-certified
    gain g = min(|cos θ_j − cos θ_k|, 2|sin θ_j|)) exceeds twice the round-off bound.
    float64 only (pyref's residual is a float64 audit tool); bound for ρ from :func:`_residual_bound`.
    Domain: max|G| ≥ 1e-100 (the strategy rescales smaller G). pyref computes ‖·‖_F as an unscaled
    sum of squares, so for max|G| below ~1e-154 ρ loses accuracy and below ~1e-162 a nonzero G raises
    "G is zero" (a pyref limitation, reported; irrelevant at LayerNorm scale)."""
    dk, kind, G = ex
    if not np.any(G != 0):
        return Outcome(0.0, 0.0, met=False, note="G = 0: the residual is undefined")
    ar = _Ar(backend, dps)
    Gv = ar.exact(G)
    R1 = ar.rot(1, dk)
    rho = pyref.analysis.commutant_residual(G, rope_base=BASE)
    rb = _residual_bound(G, rho)
    K = G - _lean_proj(G)                                   # float64; two roundings per entry
    P = _pattern(dk)
    Kerr = _fro(U64 * (P @ np.abs(G) @ P) + U64 * (np.abs(G) + np.abs(_lean_proj(G))) + 3 * ETA)
    gn = _fro(G)
    rho_lean = _fro(K) / gn
    lean_bound = (Kerr / gn + gamma(G.size + 4) * (1 + rho_lean)) * SLACK
    checks = [("ρ(G) = ‖G − proj G‖_F/‖G‖_F", abs(rho - rho_lean), rb + lean_bound)]
    shift = ar.sub(ar.mm(ar.mm(R1.T, Gv, 2), R1, 2), Gv)    # R_1ᵀ G R_1 − G, exact ‖·‖_F = ‖G R_1 − R_1 G‖_F
    sh, shthr = ar.certified_nonzero(shift)
    met = True
    if kind == "commutant":
        checks += [("ρ(C) = 0", rho, rb), ar.cmp0("R_1ᵀ C R_1 = C (relative)", shift)]
    elif kind == "kernel":
        # exact ‖[K, R_1]‖_F ≥ g‖K‖_F, g = min(|cos θ_j − cos θ_k|, 2|sin θ_j|) from the interval certificate
        # (off-diagonal blocks: σ_min of the Sylvester map; kernel-shaped diagonal blocks ⟂ span{1, J})
        cert = _certificate(dk)
        gain = min(2 * cert.min_abs_sin, cert.min_abs_cos_gap if dk >= 4 else math.inf)
        met = gain * gn * (1 - gamma(G.size + 3)) > 2 * shthr
        checks += [("ρ(K) = 1 for ΠK = 0", abs(rho - 1.0), rb),
                   _exceeds("K ≠ 0, ΠK = 0 ⇒ not relative (R_1ᵀ K R_1 ≠ K)", sh, shthr)]
    else:
        # exact ‖G − ΠG‖_F ≥ ‖[G, R_1]‖_F / 2, so ρ ≥ (cn − cthr)/(2‖G‖_F)
        cn, cthr = ar.certified_nonzero(ar.sub(ar.mm(Gv, R1, 2), ar.mm(R1, Gv, 2)))
        met = cn - cthr > 2 * max(shthr, 2 * rb * gn)
        checks += [_exceeds("non-commuting ⇒ ρ(G) > 0", rho, rb),
                   _exceeds("non-commuting ⇒ not relative", sh, shthr)]
    return _outcome(checks, met=met)


# ================================================ 5. the 2×2 Sylvester maps of the blocks
@st.composite
def sylvester_inputs(draw):
    return draw(even_dk(2, 16)), draw(st.lists(POSITION, min_size=0, max_size=3))


@functools.lru_cache(maxsize=64)
def _certificate(dk: int):
    return rope_nonresonance(dk, BASE)


def _sylvester(R: list, j: int, k: int, mp: bool):
    """Stacked over positions: vec(rot_j(n) X − X rot_k(n)) = L(n) vec(X) (row-major vec),
    L[(r,s),(r',s')] = A[r,r'] δ(s,s') − δ(r,r') B[s',s] with A = rot_j(n), B = rot_k(n)."""
    rows = []
    for Rn in R:
        A = Rn[2 * j:2 * j + 2, 2 * j:2 * j + 2]
        B = Rn[2 * k:2 * k + 2, 2 * k:2 * k + 2]
        L = np.empty((4, 4), dtype=object if mp else np.float64)
        for r in range(2):
            for s in range(2):
                for r2 in range(2):
                    for s2 in range(2):
                        L[2 * r + s, 2 * r2 + s2] = (A[r, r2] if s == s2 else 0) - (B[s2, s] if r == r2 else 0)
        rows.append(L)
    return np.concatenate(rows, axis=0)


@prop(theorems=[NS + "offDiag_block_eq_zero", NS + "diag_block_commutes_iff"],
      paper="Prop 4.1 (2×2 Sylvester argument: off-diagonal blocks vanish, diagonal blocks are a·1 + b·J)",
      strategy=sylvester_inputs)
def rope_block_sylvester_maps(ex, backend, dps):
    """For pyref's rotation blocks at positions N = {1} ∪ drawn, the stacked linear map
    X ↦ (rot_j(n) X − X rot_k(n))_{n∈N} on 2×2 blocks: its singular values match the exact ones
    (the L(n) are normal and simultaneously diagonalized by v_±⊗v_±, so σ² ∈ {Σ_n 4sin²((φ_j ± φ_k)/2)},
    each twice, φ = nθ; 80-digit reference); for j ≠ k the smallest is > its error bound (injective: X = 0,
    offDiag_block_eq_zero) and ≥ |cos θ_j − cos θ_k| − bound ≥ the interval-certified gap of
    ``certificates.rope_nonresonance`` (σ_min(L_jk(1)) ≥ |cos θ_j − cos θ_k|); for j = k exactly two
    vanish (≤ bound), the third is ≥ 2|sin θ_j| − bound > bound, and 1 and J are in the kernel: the null
    space is span{1, J} (diag_block_commutes_iff). float64 bound (Weyl): ‖L' − L‖_F (entries: ε_n, and
    2ε_n + 2.01u where c_j − c_k is rounded) + p(m, n)·u·‖L'‖_F for LAPACK's SVD; mp: √eig(LᵀL) with
    the Gram matrix formed exactly and diagonalized by ``mpmath.eigsy`` at 2·dps + 10 digits,
    ``mp_bound``."""
    dk, extra = ex
    ar = _Ar(backend, dps)
    N = [1] + [int(p) for p in extra]
    R = [pyref.rope.rope_matrix(p, dk, base=BASE, backend=backend, dps=dps) for p in N]
    cert = _certificate(dk)
    m = dk // 2
    pairs = [(j, k) for j in range(m) for k in range(m)]
    with ctx(backend, dps):       # the differences c_j − c_k at the backend's precision
        Ls = [_sylvester(R, j, k, ar.mp) for j, k in pairs]
    if ar.mp:
        # σ_i = √λ_i(LᵀL): the Gram matrix of 50-digit entries is exact at 2·dps + 10 digits and
        # mpmath.eigsy there leaves |λ' − λ| ~ 10^-(2dps+9)‖L‖², i.e. σ to ~10^-(dps+4) even at σ = 0
        # (mpmath's svd_r fails to converge on some of these structured matrices)
        sv = []
        with mpmath.workdps(2 * dps + 10):
            for L in Ls:
                Lm = mpmath.matrix(L.tolist())
                lam = mpmath.eigsy(Lm.T * Lm, eigvals_only=True)
                sv.append(sorted(mpmath.sqrt(max(lam[i], 0)) for i in range(4)))
        normL = [float(np.sqrt(np.sum(to_float64(L) ** 2))) for L in Ls]
        delta = [mp_bound(nl) for nl in normL]
    else:
        sv = [sorted(s) for s in np.linalg.svd(np.array(Ls), compute_uv=False)]
        delta = []
        for L in Ls:
            err2 = sum(4 * (2 * _eps_rot(p) + 2.01 * U64) ** 2 + 8 * _eps_rot(p) ** 2 for p in N)
            nl = float(np.linalg.norm(L))
            delta.append((math.sqrt(err2) + SVD_P(L.shape[0], 4) * U64 * nl) * SLACK)
    checks = []
    vec1, vecJ = np.array([1.0, 0.0, 0.0, 1.0]), np.array([0.0, -1.0, 1.0, 0.0])
    for (j, k), L, s, d in zip(pairs, Ls, sv, delta):
        with mpmath.workdps(REF_DPS):
            B = mpmath.mpf(int(BASE))
            th_j, th_k = (mpmath.power(B, mpmath.mpf(-2 * i) / dk) for i in (j, k))
            plus = sum((4 * mpmath.sin(p * (th_j + th_k) / 2) ** 2 for p in N), mpmath.mpf(0))
            minus = sum((4 * mpmath.sin(p * (th_j - th_k) / 2) ** 2 for p in N), mpmath.mpf(0))
            ref = sorted([mpmath.sqrt(plus)] * 2 + [mpmath.sqrt(minus)] * 2)
            dev = max(float(abs(mpmath.mpf(si) - ri)) for si, ri in zip(s, ref))
        checks.append((f"singular values of the stacked Sylvester map ({'diag' if j == k else 'off-diag'})",
                       dev, d + REF_ERR))
        smin = float(s[0])
        if j != k:
            checks.append(_exceeds("j ≠ k: σ_min > error bound (only X = 0 intertwines)", smin, d))
            checks.append(_exceeds("σ_min ≥ certified |cos θ_j − cos θ_k| (non-resonance margin)",
                                   smin + d, cert.min_abs_cos_gap * (1 - 1e-12)))
        else:
            checks.append(("j = k: two singular values vanish", float(s[1]), d))
            checks.append(_exceeds("j = k: σ_3 ≥ certified 2|sin θ_j| (null space exactly 2-dim)",
                                   float(s[2]) + d, 2 * cert.min_abs_sin * (1 - 1e-12)))
            checks.append(_exceeds("j = k: σ_3 > error bound", float(s[2]), d))
            with ctx(backend, dps):
                v1, vJ = conv(backend, dps, vec1, vecJ)
                r = float(np.max(np.abs(to_float64(L @ v1)))) + float(np.max(np.abs(to_float64(L @ vJ))))
            eps = max(_eps_rot(p) for p in N)
            checks.append(("j = k: 1 and J are in the kernel", r,
                           2 * (mp_bound(4.0) if ar.mp else (4 * eps + 4.02 * U64 + 4.01 * gamma(4)) * SLACK)))
    return _outcome(checks, met=cert.certified)


# ============================================================ 6. the dimension counts
@prop(theorems=[NS + "kerIdx_count", NS + "commutant_add_kernel_count"],
      paper="Prop 4.1 (commutant of dimension d_k, d_k² − d_k absolute-position-sensitive directions)",
      strategy=lambda: even_dk(2, 16), backends=("float64",))
def commutant_and_kernel_ranks(dk, backend, dps):
    """The matrix M' of pyref's ``commutant_projection`` on the d_k² basis matrices E_ab: its singular
    values are within δ of those of the exact orthogonal projector (1 with multiplicity rank Π, 0 with
    multiplicity d_k² − rank Π), and so are those of I − M'; counted: rank Π = d_k, rank(I − Π) =
    d_k² − d_k = m(m−1)·4 + 2m (kerIdx_count, m = d_k/2), rank Π + rank(I − Π) = d_k²
    (commutant_add_kernel_count). δ = ‖M' − M‖_F + p·u·‖M'‖₂ ≤ 2β_Π·d_k (each column errs by β_Π·P|E_ab|P,
    Frobenius norm 2β_Π) + LAPACK's SVD error; no singular value may fall in (δ, 1 − δ). float64 only
    (pyref's projection is a float64 audit tool)."""
    d2 = dk * dk
    E = np.zeros((d2, dk, dk))
    E[np.arange(d2), np.arange(d2) // dk, np.arange(d2) % dk] = 1.0
    M = pyref.analysis.commutant_projection(E, rope_base=BASE).reshape(d2, d2).T     # column ab = vec(Π E_ab)
    delta = (2 * BETA_PI * dk + SVD_P(d2, d2) * U64 * 1.0) * SLACK
    s = np.linalg.svd(M, compute_uv=False)
    s_c = np.linalg.svd(np.eye(d2) - M, compute_uv=False)
    m = dk // 2
    rank = int(np.sum(s > 1 - delta))
    rank_c = int(np.sum(s_c > 1 - delta))
    unclassified = int(np.sum((s > delta) & (s < 1 - delta))) + int(np.sum((s_c > delta) & (s_c < 1 - delta)))
    wrong = (abs(rank - dk) + abs(rank_c - (d2 - dk)) + abs(rank_c - (m * (m - 1) * 4 + 2 * m))
             + abs(rank + rank_c - d2) + unclassified)
    # the measured distance to {0, 1} (≤ δ) is reported when the counts are right
    dist = float(max(np.max(np.minimum(np.abs(s), np.abs(1 - s))), np.max(np.minimum(np.abs(s_c), np.abs(1 - s_c)))))
    if wrong:
        return Outcome(float(wrong), 0.0, note=f"rank Π = {rank}, rank(I − Π) = {rank_c}, unclassified {unclassified}")
    return Outcome(dist, delta)


# ================================================ 7. collapse to SDPA with RoPE (Thm 5.4(ii))
@st.composite
def collapse_inputs(draw):
    dk = draw(even_dk(2, 8))
    S, T = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    kind = draw(st.sampled_from(["commutant", "commutant", "random", "perturbed"]))
    G = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "random":
        G = draw(matrix(dk, dk))
    elif kind == "perturbed":
        G = G + 1e-3 * max(1.0, float(np.max(np.abs(G)))) * draw(matrix(dk, dk, magnitude=st.just(1.0), structure=False))
    return (dk, kind, G, draw(matrix(S, dk, structure=False)), draw(matrix(T, dk, structure=False)),
            draw(st.lists(POSITION, min_size=S, max_size=S)), draw(st.lists(POSITION, min_size=T, max_size=T)))


def _scores(ar: _Ar, Qh: _V, Kh: _V, G: _V | None) -> _V:
    """pyref's attention_scores(Q̂, K̂, G) = (Q̂ G) K̂ᵀ/√d_k with its majorants (d_k-term products)."""
    dk = Qh.v.shape[-1]
    v = pyref.plga.attention_scores(Qh.v, Kh.v, None if G is None else G.v, backend=ar.backend, dps=ar.dps)
    lhs = Qh if G is None else ar.mm(Qh, G, dk, v=Qh.v)   # value unused; majorants only
    prod = ar.mm(lhs, Kh.T, dk, v=v)
    return ar.div_sqrt(prod, dk, v=v)


@prop(theorems=[NS + "rope_collapse_of_commutes", NS + "commutes_of_rope_collapse", NS + "rope_collapse_iff",
                NS + "rope_collapse_query_map", NS + "transpose_mulVec_of_rope_collapse",
                NS + "plgaRopeScore_eq", NS + "sdpaRopeScore_eq"],
      paper="Thm 5.4(ii) with RoPE (constant G* collapses PLGA to SDPA with query q ↦ G*ᵀq iff G* commutes)",
      strategy=collapse_inputs)
def rope_collapse_to_sdpa(ex, backend, dps):
    """On pyref's ``attention_scores`` with ``apply_rope``-rotated queries/keys (rows, positions up to
    ±4096): the PLGA-with-RoPE score (R_n q)ᵀ G (R_n' k) equals qᵀ(R_nᵀ G R_n')k and the SDPA-with-RoPE
    score equals qᵀ R_{n'−n} k (plgaRopeScore_eq, sdpaRopeScore_eq). Commuting G (commEmbed): PLGA with
    G equals SDPA on the reparametrized queries q ↦ Gᵀq (rows Q ↦ QG, pyref's absorption convention).
    The forced query map: with keys e_i at position 0, PLGA scores at query position n determine the only
    possible image f(q) = R_nᵀ Gᵀ R_n q (transpose_mulVec_of_rope_collapse); at n = 0 it is Gᵀq
    (rope_collapse_query_map); for commuting G it is the same at every n; for non-commuting G
    (hypothesis, certified) it differs between n = 0 and n = 1 by more than round-off for the query
    batch [Q; I] (exact difference ≥ ‖G R_1 − R_1 G‖_F/√d_k), so no position-independent query map —
    linear or not — reproduces the PLGA scores (commutes_of_rope_collapse, rope_collapse_iff ⇒).
    Bounds: the propagated majorants (d_k-term products γ_{d_k}, the √d_k division 2.01u)."""
    dk, kind, G, Q, K, pq, pk = ex
    ar = _Ar(backend, dps)
    Gv, Qv, Kv = ar.exact(G), ar.exact(Q), ar.exact(K)
    Qh, Kh = ar.rope_rows(Qv, pq), ar.rope_rows(Kv, pk)
    E_plga, E_sdpa = _scores(ar, Qh, Kh, Gv), _scores(ar, Qh, Kh, None)
    checks = []
    R = {p: ar.rot(p, dk) for p in set(list(pq) + list(pk) + [b - a for a in pq for b in pk] + [0, 1])}
    for t, n in enumerate(pq):
        for s, n2 in enumerate(pk):
            q, k = Qv[t:t + 1, :], Kv[s:s + 1, :].T
            Sf = ar.mm(ar.mm(R[n].T, Gv, 2), R[n2], 2)
            direct = ar.div_sqrt(ar.mm(ar.mm(q, Sf, dk), k, dk), dk)
            checks.append(ar.cmp("(R_n q)ᵀG(R_n' k) = qᵀ scoreForm k", E_plga[t:t + 1, s:s + 1], direct))
            rel = ar.div_sqrt(ar.mm(ar.mm(q, R[n2 - n], 2), k, dk), dk)
            checks.append(ar.cmp("(R_n q)ᵀ(R_n' k) = qᵀ R_{n'−n} k", E_sdpa[t:t + 1, s:s + 1], rel))
    C = ar.sub(ar.mm(Gv, R[1], 2), ar.mm(R[1], Gv, 2))
    if kind == "commutant":
        QG = ar.mm(Qv, Gv, dk)
        E_re = _scores(ar, ar.rope_rows(QG, pq), Kh, None)
        checks.append(ar.cmp("PLGA(G) = SDPA(q ↦ Gᵀq)", E_plga, E_re))
    # the query map forced by the PLGA scores at query position n (keys e_i at position 0)
    Qall = ar.exact(np.vstack([Q, np.eye(dk)]))
    rows = Qall.v.shape[0]
    keys0 = ar.rope_rows(ar.exact(np.eye(dk)), [0] * dk)
    forced = {}
    for n in sorted({0, 1, int(pq[0])}):
        s_n = _scores(ar, ar.rope_rows(Qall, [n] * rows), keys0, Gv)
        forced[n] = ar.mm(s_n, R[n], 2)                                     # rows: (R_nᵀ s)ᵀ
    GtQ = ar.div_sqrt(ar.mm(Qall, Gv, dk), dk)
    checks.append(ar.cmp("forced map at n = 0 is q ↦ Gᵀq", forced[0], GtQ))
    met = True
    if kind == "commutant":
        for n, f in forced.items():
            checks.append(ar.cmp("commuting G: forced map is the same at every position", f, forced[0]))
    else:
        D = ar.sub(forced[1], forced[0])
        cn, cthr = ar.certified_nonzero(C)
        _, dthr = ar.certified_nonzero(D)
        met = (cn - cthr) / math.sqrt(dk) > 2 * dthr
        checks.append(_exceeds("non-commuting G: forced maps at n = 0, 1 differ (no query map collapses)",
                               *ar.certified_nonzero(D)))
    return _outcome(checks, met=met)
