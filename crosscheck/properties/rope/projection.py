"""Cross-check properties of ``Formal/Rope/Projection.lean``:
``commutant_projection_is_lean_proj``, ``commutant_residual_vanishes_iff_relative``,
``rope_audit_tools_match_spec`` and ``JUSTIFY``.

The Lean ``proj`` and spec D2's eigenbasis quantities are evaluated by ``spec_eval.analysis`` at
80 digits (``proj``, ``commutantResidual``, ``commutatorResidual``, ``ropeFrequencies``,
``ropeEigenbasis``).

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ...registry import Checks, Outcome, combine, prop
from ...spec_eval import analysis as sev
from ...spec_eval._scalar import mat
from ...strategies import even_dk, matrix
from .._arith import _V, U64, gamma
from ._shared import (
    BASE,
    BETA_PI,
    ETA,
    POSITION,
    REF_DPS,
    SLACK,
    TRIG_ULPS,
    _Ar,
    _certificate,
    _comm_embed,
    _eps_rot,
    _exceeds,
    _fro,
    _pattern,
)

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.frob_comm":
        "symmetry of the Frobenius pairing: termwise commutativity of multiplication, exact in "
        "IEEE and mpmath",
    "PLGA.Rope.proj_add_sub":
        "the ring identity ΠG + (G − ΠG) = G; nothing of pyref's is involved (proj_sub_proj and "
        "frob_proj_sub, which say what the two parts are, are checked)",
}


#: same for the two products of the eigenbasis change U* G U (commutant_residual)
BETA_2 = (1 + 2.01 * U64) ** 2 * (1 + math.sqrt(2) * gamma(4)) ** 2 - 1


def _ker_embed(p: np.ndarray) -> np.ndarray:
    """Lean ``kerEmbed``: off-diagonal 2×2 blocks free (from ``p``), diagonal blocks [[x, y], [y,
    −x]]."""
    K = p.copy()
    for j in range(p.shape[0] // 2):
        x, y = p[2 * j, 2 * j], p[2 * j, 2 * j + 1]
        K[2 * j:2 * j + 2, 2 * j:2 * j + 2] = [[x, y], [y, -x]]
    return K


def _lean_proj_ref(G: np.ndarray) -> np.ndarray:
    """Lean ``proj`` of G at 80 digits (``spec_eval.analysis.proj``), an object array of mpf."""
    with mpmath.workdps(REF_DPS):
        return np.array(sev.proj(mat(G)), dtype=object)


# ====================================================== 4. commutant projection Π (float64)
@st.composite
def projection_inputs(draw):
    dk = draw(even_dk(2, 16))
    return (dk, draw(matrix(dk, dk)), draw(matrix(dk, dk)),
            draw(matrix(dk // 2, 2, structure=False)),
            _ker_embed(draw(matrix(dk, dk, structure=False))), draw(POSITION))


def _row(X: _V) -> _V:
    return _V(X.v.reshape(1, -1), X.a.reshape(1, -1), X.e.reshape(1, -1))


def _col(X: _V) -> _V:
    return _V(X.v.reshape(-1, 1), X.a.reshape(-1, 1), X.e.reshape(-1, 1))


def _comm_form_checks(ar: _Ar, PG: _V, dk: int) -> list:
    """commEmbed form of ΠG from its own coordinates (off-diagonal blocks 0, [[a, −b], [b, a]])."""
    offmask = _pattern(dk) == 0
    checks = [ar._worst("ΠG off-diagonal blocks = 0", np.where(offmask, np.abs(PG.v), 0.0),
                        np.where(offmask, PG.e, 1.0), 1.0)]
    for j in range(dk // 2):
        i0, i1 = 2 * j, 2 * j + 1
        checks.append(ar.cmp0("ΠG block: a − a' = 0",
                              ar.sub(PG[i0:i0 + 1, i0:i0 + 1], PG[i1:i1 + 1, i1:i1 + 1])))
        checks.append(ar.cmp0("ΠG block: −b + b' = 0",
                              ar.add(PG[i0:i0 + 1, i1:i1 + 1], PG[i1:i1 + 1, i0:i0 + 1])))
    return checks


def _non_commuting_checks(ar: _Ar, Gv: _V, PG: _V, KG: _V, R1: _V) -> list:
    """A certified non-commuting G: ΠG ≠ G (exact ‖G − ΠG‖_F ≥ ‖G R_1 − R_1 G‖_F / 2, since
    [G, R_1] = [G − ΠG, R_1] and ‖[X, R]‖_F ≤ 2‖X‖_F); and ⟨G, ΠG⟩ = ‖ΠG‖²_F ≠ 0 when ΠG ≠ 0.
    Each is checked when decidable: the rigorous lower bound of the exact value exceeds 2× the
    bound."""
    checks = []
    N = Gv.v.size
    cn, cthr = ar.certified_nonzero(ar.sub(ar.mm(Gv, R1, 2), ar.mm(R1, Gv, 2)))
    kg = ar.certified_nonzero(KG)
    if (cn - cthr) / 2 > 2 * kg[1]:
        checks.append(_exceeds("G non-commuting ⇒ ΠG ≠ G", *kg))
    pg, pthr = ar.certified_nonzero(PG)
    pair = ar.mm(_row(Gv), _col(PG), N)
    pe = float(pair.e[0, 0]) * SLACK
    if pg > pthr and (pg - pthr) ** 2 > 2 * pe:
        checks.append(_exceeds("ΠG ≠ 0 ⇒ ⟨G, ΠG⟩ ≠ 0", abs(float(pair.v[0, 0])), pe))
    return checks


@prop(theorems=["PLGA.Rope.proj_apply_diag", "PLGA.Rope.proj_commutes", "PLGA.Rope.proj_commEmbed",
                "PLGA.Rope.proj_proj", "PLGA.Rope.proj_eq_self_iff", "PLGA.Rope.proj_sub",
                "PLGA.Rope.proj_sub_proj", "PLGA.Rope.frob_proj_sub", "PLGA.Rope.frob_commEmbed",
                "PLGA.Rope.proj_eq_zero_iff_orthogonal",
                "PLGA.Rope.proj_eq_zero_iff_orthogonal_commutant",
                "PLGA.Rope.commutes_iff_eq_commEmbed", "PLGA.Rope.commEmbed_commCoords",
                "PLGA.Rope.flat_commutes_iff_eq_commEmbed",
                "PLGA.Rope.eq_zero_of_commutes_of_proj_eq_zero", "PLGA.Rope.proj_kerEmbed",
                "PLGA.Rope.kerEmbed_kerCoords"],
      paper="Prop 4.1 / audit D2 (commutant projection Π, its kernel, the Frobenius split)",
      strategy=projection_inputs, backends=("float64",))
def commutant_projection_is_lean_proj(ex, backend, dps):
    """pyref's ``commutant_projection`` (spec D2: U Π(U*GU) U*, complex eigenbasis, entries with
    equal frequency kept) equals the Lean ``proj`` (block (j, j): a = (G00+G11)/2, b = (G10−G01)/2;
    other blocks 0) to round-off, for random G (rank-deficient ones included); ΠG has the commEmbed
    form of its own coordinates and commutes with pyref's R_n; Π is idempotent and linear on
    differences; Π(G − ΠG) = 0; ⟨ΠG, G − ΠG⟩_F = 0; ⟨G, commEmbed a b⟩ = Σ a_j(G00+G11) +
    b_j(G10−G01); commutant elements C = commEmbed(a, b) are fixed by Π and commute with R_n;
    kernel elements K = kerEmbed(p) are mapped to 0 and are Frobenius-orthogonal to C; G − ΠG has
    kernel-shaped diagonal blocks [[x, y], [y, −x]]; a nonzero C has ΠC ≠ 0 and a non-commuting G
    has ΠG ≠ G and ⟨G, ΠG⟩ > 0 (certified above round-off). float64 only: pyref's projection is a
    float64 audit tool (module docstring); bounds are the β_Π-based majorants."""
    dk, G, H, ab, K, n = ex
    ar = _Ar(backend, dps)
    Gv, Hv, Kv = ar.exact(G), ar.exact(H), ar.exact(K)
    C = ar.exact(_comm_embed(ab))
    Rn, R1 = ar.rot(n, dk), ar.rot(1, dk)
    PG = ar.proj(Gv)
    checks = [ar.cmp_ref("pyref Π G = Lean proj G (proj_apply_diag)", PG, _lean_proj_ref(G))]
    checks += _comm_form_checks(ar, PG, dk)
    checks += [ar.cmp0("Π G commutes with R_n", ar.sub(ar.mm(PG, Rn, 2), ar.mm(Rn, PG, 2))),
               ar.cmp("Π Π G = Π G", ar.proj(PG), PG),
               ar.cmp("Π (G − H) = ΠG − ΠH", ar.proj(ar.sub(Gv, Hv)), ar.sub(PG, ar.proj(Hv)))]
    KG = ar.sub(Gv, PG)
    checks.append(ar.cmp0("Π (G − ΠG) = 0", ar.proj(KG)))
    N = dk * dk
    checks.append(ar.cmp0("⟨ΠG, G − ΠG⟩_F = 0", ar.mm(_row(PG), _col(KG), N)))
    # ⟨G, commEmbed a b⟩ = Σ_j a_j (G00 + G11) + b_j (G10 − G01)
    lhs = ar.mm(_row(Gv), _col(C), N)
    idx0, idx1 = np.arange(0, dk, 2), np.arange(1, dk, 2)
    s1 = ar.add(Gv[idx0, idx0][:, None], Gv[idx1, idx1][:, None])
    s2 = ar.sub(Gv[idx1, idx0][:, None], Gv[idx0, idx1][:, None])
    A, B = ar.exact(ab[:, 0][None, :]), ar.exact(ab[:, 1][None, :])
    rhs = ar.add(ar.mm(A, s1, dk // 2), ar.mm(B, s2, dk // 2))
    checks.append(ar.cmp("⟨G, commEmbed a b⟩ = Σ a_j(G00+G11) + b_j(G10−G01)", lhs, rhs))
    # commutant elements: fixed by Π, commute with R_n; nonzero ones have ΠC ≠ 0
    PC = ar.proj(C)
    checks += [ar.cmp("Π C = C", PC, C),
               ar.cmp0("C R_n = R_n C", ar.sub(ar.mm(C, Rn, 2), ar.mm(Rn, C, 2)))]
    pc = ar.certified_nonzero(PC)
    if _fro(C.a) * (1 - gamma(C.a.size + 3)) > 2 * pc[1]:  # decidable: exact ‖ΠC‖_F = ‖C‖_F > 2 thr
        checks.append(_exceeds("C ≠ 0 commuting ⇒ ΠC ≠ 0", *pc))
    # kernel elements: Π K = 0, ⟨K, C⟩ = 0; G − ΠG has the kernel shape
    checks += [ar.cmp0("Π kerEmbed(p) = 0", ar.proj(Kv)),
               ar.cmp0("⟨kerEmbed p, commEmbed a b⟩ = 0", ar.mm(_row(Kv), _col(C), N)),
               ar.cmp0("⟨G − ΠG, commEmbed a b⟩ = 0", ar.mm(_row(KG), _col(C), N))]
    for j in range(dk // 2):
        i0, i1 = 2 * j, 2 * j + 1
        checks.append(ar.cmp0("G − ΠG diagonal block: x + (−x) = 0",
                              ar.add(KG[i0:i0 + 1, i0:i0 + 1], KG[i1:i1 + 1, i1:i1 + 1])))
        checks.append(ar.cmp0("G − ΠG diagonal block: y − y = 0",
                              ar.sub(KG[i1:i1 + 1, i0:i0 + 1], KG[i0:i0 + 1, i1:i1 + 1])))
    checks += _non_commuting_checks(ar, Gv, PG, KG, R1)
    return combine(checks)


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
        G = C + 1e-6 * max(1.0,
                           float(np.max(np.abs(C)))) * draw(matrix(dk, dk, magnitude=st.just(1.0),
                                                                   structure=False))
    return dk, kind, G


def _residual_bound(G: np.ndarray, rho: float) -> float:
    """|ρ' − ρ| for pyref's commutant_residual, which first scales G by a power of two so that
    max|G| ∈ [½, 1) (exact up to entries pushed into the subnormal range); evaluated here on that
    scaled G: the entries of U*GU err by ≤ (β_2/2)(P|G|P)
    (|U*||G||U| = ½P|G|P), so the numerator and denominator norms err by ≤ η = (β_2/2)‖P|G|P‖_F
    plus γ_{d²+4} of themselves (abs, squares, sum, sqrt); the quotient adds u."""
    P = _pattern(G.shape[0])
    den = _fro(G)
    # underflow: ≤ 16 ETA per entry of U*GU, and squares below 2^-1022 are lost:
    # ≤ d_k·sqrt(ETA) per norm
    eta = BETA_2 / 2 * _fro(P @ np.abs(G) @ P) + G.shape[0] * (16 * ETA + math.sqrt(ETA))
    g = gamma(G.size + 4)
    return ((1 + rho) * (eta + g * den) / max(den - eta - g * den, 1e-300) + 2 * U64) * SLACK


@prop(theorems=["PLGA.Rope.isRelative_iff_sub_proj_eq_zero",
                "PLGA.Rope.not_isRelative_of_proj_eq_zero", "PLGA.Rope.isRelative_iff_commutes"],
      paper="audit D2 / Prop 4.1 (the commutant residual ρ(G) vanishes iff the score form is "
            "relative)",
      strategy=residual_inputs, backends=("float64",))
def commutant_residual_vanishes_iff_relative(ex, backend, dps):
    """pyref's ``commutant_residual`` ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F agrees with ‖G − ΠG‖_F/‖G‖_F
    (Lean proj, unitary invariance) and decides relativity: commutant elements have ρ ≈ 0 and a
    shift-invariant score form (R_1ᵀ G R_1 = G); kernel elements K = kerEmbed(p) ≠ 0 (ΠK = 0
    exactly) have ρ = 1 and a score form that moves under the shift t = 1
    (not_isRelative_of_proj_eq_zero); random and 1e-6-perturbed commutant elements (hypothesis:
    non-commuting, certified) have ρ and the shift certified > 0. "Certified" checks run when
    decidable (``met``): the rigorous lower bound of the exact quantity (‖G − ΠG‖_F ≥ ‖[G,
    R_1]‖_F/2; for kernel elements ‖[K, R_1]‖_F ≥ g‖K‖_F with the interval-certified gain g =
    min(|cos θ_j − cos θ_k|, 2|sin θ_j|)) exceeds twice the round-off bound. float64 only (pyref's
    residual is a float64 audit tool); bound for ρ from :func:`_residual_bound` against the exact
    ‖G − proj G‖_F/‖G‖_F of the spec evaluator (80 digits)."""
    dk, kind, G = ex
    if not np.any(G != 0):
        return Outcome(0.0, 0.0, met=False, note="G = 0: the residual is undefined")
    ar = _Ar(backend, dps)
    Gv = ar.exact(G)
    R1 = ar.rot(1, dk)
    rho = pyref.analysis.commutant_residual(G, rope_base=BASE)
    Gs = np.ldexp(G, -int(np.frexp(np.max(np.abs(G)))[1]))     # pyref's exact rescaling
    rb = _residual_bound(Gs, rho)
    gn = _fro(G)
    with mpmath.workdps(REF_DPS):
        rho_lean = sev.leanCommutantResidual(mat(G))
        checks = [("ρ(G) = ‖G − proj G‖_F/‖G‖_F (80 digits)", float(abs(rho - rho_lean)), rb)]
    # R_1ᵀ G R_1 − G, exact ‖·‖_F = ‖G R_1 − R_1 G‖_F
    shift = ar.sub(ar.mm(ar.mm(R1.T, Gv, 2), R1, 2), Gv)
    sh, shthr = ar.certified_nonzero(shift)
    met = True
    if kind == "commutant":
        checks += [("ρ(C) = 0", rho, rb), ar.cmp0("R_1ᵀ C R_1 = C (relative)", shift)]
    elif kind == "kernel":
        # exact ‖[K, R_1]‖_F ≥ g‖K‖_F, g = min(|cos θ_j − cos θ_k|, 2|sin θ_j|) from the
        # interval certificate (off-diagonal blocks: σ_min of the Sylvester map; kernel-shaped
        # diagonal blocks ⟂ span{1, J})
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
    return combine(checks, met=met)


# ======================== 5. the spec-D2 audit tools against the evaluator (80 digits)
@st.composite
def audit_tool_inputs(draw):
    """(d_k, base, G [batch…, d_k, d_k] of mixed kinds, positions); batch shapes (), (2,) and
    (2, 1) (two leading axes of different lengths); bases 10⁴, 10 and 1 (the fully resonant
    spectrum: every θ_a = 1, so Π keeps every entry with ω_j = ω_k — whole parity classes, not only
    the diagonal)."""
    dk = draw(even_dk(2, 12))
    batch = draw(st.sampled_from([(), (2,), (2, 1)]))
    mats = [draw(_one_operator(dk)) for _ in range(int(np.prod(batch, dtype=int)))]
    pos = tuple(draw(st.lists(POSITION, min_size=1, max_size=3)))
    base = draw(st.sampled_from([BASE, 10.0, 1.0]))
    return dk, base, np.stack(mats).reshape(batch + (dk, dk)), pos


@st.composite
def _one_operator(draw, dk):
    kind = draw(st.sampled_from(["random", "random", "commutant", "kernel", "perturbed"]))
    C = _comm_embed(draw(matrix(dk // 2, 2, structure=False)))
    if kind == "commutant":
        G = C
    elif kind == "kernel":
        G = _ker_embed(draw(matrix(dk, dk, structure=False)))
    elif kind == "random":
        G = draw(matrix(dk, dk))
    else:
        G = C + 1e-6 * max(1.0, float(np.max(np.abs(C)))) * draw(matrix(dk, dk, structure=False))
    return G if np.any(G != 0) else np.eye(dk)


def _freq_checks(ch: Checks, dk: int, base: float):
    """rope_frequencies and rope_eigenbasis against spec D2 (θ_a = Θ^{−2a/d_k}: the exponent
    rounds once (amplified by ln Θ), pow ≤ 4 ulp; U's entries ±1/√2, ±i/√2: √ and the division
    round once each)."""
    w = pyref.analysis.rope_frequencies(dk, base)
    U = pyref.analysis.rope_eigenbasis(dk)
    wr, Ur = sev.ropeFrequencies(dk, mpmath.mpf(base)), sev.ropeEigenbasis(dk)
    ch.le("rope_frequencies = ±Θ^{−2a/d_k}",
          max(abs(mpmath.mpf(x) - y) / abs(y) for x, y in zip(w, wr)),
          (2 * TRIG_ULPS + math.log(base) + 1) * U64)
    ch.le("rope_eigenbasis = (e_2a ∓ i e_2a+1)/√2",
          max(abs(mpmath.mpc(complex(U[i, j])) - Ur[i][j]) for i in range(dk) for j in range(dk)),
          2.01 * U64)


def _commutator_bound(G: np.ndarray, p: int, r: float) -> float:
    """|r̂ − r| for pyref's ‖G R_p − R_p G‖_F/‖G‖_F on the power-of-two scaled G (exact):
    |R̂_p − R_p| ≤ ε_p P, and a product with R_p has two nonzero terms per entry, so
    |Ĉ − C| ≤ E := (ε_p + γ_2(1 + ε_p))(1 + u)(|G|P + P|G|) + u(1 + ε_p)(|G|P + P|G|) + 4η;
    the two Frobenius norms (Σ of squares, √) add γ_{N+2} each and the quotient u."""
    P = _pattern(G.shape[0])
    eps = _eps_rot(p)
    S = np.abs(G) @ P + P @ np.abs(G)
    E = ((eps + gamma(2) * (1 + eps)) * (1 + U64) + U64 * (1 + eps)) * S + 4 * ETA
    g = gamma(G.size + 2)
    den = _fro(G) * (1 - g)
    return ((_fro(E) + g * (r * _fro(G) + _fro(E))) / den + r * g / (1 - g) + U64 * r) * SLACK


@prop(theorems=["PLGA.Rope.proj_apply_diag", "PLGA.Rope.isRelative_iff_sub_proj_eq_zero",
                "PLGA.Rope.isRelative_iff_commutes"],
      paper="Spec D2 / Prop 4.1 (the audit's RoPE eigenbasis, commutant projection, commutant and "
            "commutator residuals)",
      strategy=audit_tool_inputs, backends=("float64",))
def rope_audit_tools_match_spec(ex, backend, dps):
    """``pyref.analysis`` against spec D2 evaluated at 80 digits (``spec_eval.analysis``), on
    random, commutant, kernel and perturbed G (batched too), bases 10⁴ and 10:

    * ``rope_frequencies``, ``rope_eigenbasis`` (:func:`_freq_checks`);
    * ``commutant_projection`` = U Π_ω(U*GU) U* of the spec, and that = the Lean ``proj`` (the
      evaluator's two forms agree to 1e-70: proj_apply_diag; pyref's bound β_Π P|G|P);
    * ``commutant_residual`` = ‖G_c − ΠG_c‖_F/‖G_c‖_F literally (complex eigenbasis, entries with
      |ω_j − ω_k| < 1e-12 kept), which equals ‖G − proj G‖_F/‖G‖_F (isRelative_iff_sub_proj_eq_zero
      makes it the relativity test); bound :func:`_residual_bound`;
    * ``commutator_residual``(G, positions) = max_p ‖G R_p − R_p G‖_F/‖G‖_F with the exact R_p
      (isRelative_iff_commutes); bound :func:`_commutator_bound`;
    * the shapes: the projection G's, the residuals the batch shape.
    At Θ = 1 (resonant) Π is not the Lean ``proj`` (whose statements are about the non-resonant
    commutant): there pyref is compared with spec D2's Π_ω only. β_Π P|G|P bounds the projection
    for any mask (an entry of U K U* with K = Π_ω(U*GU) sums 4·4 products of one 2×2 block of G,
    which Π_ω only keeps or drops), and so does :func:`_residual_bound`.
    float64 only (float64 audit tools)."""
    dk, base, G, pos = ex
    ch = Checks()
    flat = G.reshape(-1, dk, dk)
    out = (pyref.analysis.commutant_projection(G, rope_base=base),
           pyref.analysis.commutant_residual(G, rope_base=base),
           pyref.analysis.commutator_residual(G, rope_base=base, positions=pos))
    ch.exact("shapes: projection [batch…, d_k, d_k], residuals [batch…]",
             int(np.shape(out[0]) != G.shape) + sum(int(np.shape(x) != G.shape[:-2])
                                                    for x in out[1:]))
    PG = np.asarray(out[0]).reshape(-1, dk, dk)
    rho, com = (np.atleast_1d(x).reshape(-1) for x in out[1:])
    P = _pattern(dk)
    with mpmath.workdps(REF_DPS):
        _freq_checks(ch, dk, base)
        for X, pX, r, c in zip(flat, PG, rho, com):
            a = mat(X)
            spec = sev.commutantProjectionSpec(a, mpmath.mpf(base))
            scale = float(np.max(np.abs(X)))
            ref, what = spec, "spec D2 Π_ω (resonant Θ = 1)"
            if base != 1.0:
                ref, what = sev.proj(a), "Lean proj"
                ch.le("spec D2 projection = Lean proj (evaluator)",
                      max(abs(x - y) for rl, rs in zip(ref, spec) for x, y in zip(rl, rs)),
                      1e-70 * scale)
            bnd = BETA_PI * (P @ np.abs(X) @ P) + 64 * ETA
            ch.le("commutant_projection = " + what,
                  max(abs(mpmath.mpf(pX[i, j]) - ref[i][j]) / (bnd[i, j] * SLACK)
                      for i in range(dk) for j in range(dk)), 1.0)
            rs = sev.commutantResidual(a, mpmath.mpf(base))
            if base != 1.0:
                ch.le("spec D2 residual = ‖G − proj G‖_F/‖G‖_F (evaluator)",
                      abs(rs - sev.leanCommutantResidual(a)), 1e-70)
            Xs = np.ldexp(X, -int(np.frexp(scale)[1]))
            ch.le("commutant_residual = ‖G_c − ΠG_c‖_F/‖G_c‖_F", abs(mpmath.mpf(r) - rs),
                  _residual_bound(Xs, r))
            cr = sev.commutatorResidual(a, mpmath.mpf(base), pos)
            ch.le("commutator_residual = max_p ‖[G, R_p]‖_F/‖G‖_F", abs(mpmath.mpf(c) - cr),
                  max(_commutator_bound(Xs, p, float(cr)) for p in pos))
    return ch.outcome()
