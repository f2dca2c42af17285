"""Cross-check properties of ``Formal/Rope/Twirl.lean``: ``twirl_orbit_bound`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

import math

import mpmath
from hypothesis import strategies as st

import pyref

from ...registry import Checks, prop
from .._arith import U64, gamma, mp_bound
from ._shared import BASE, REF_DPS, REF_ERR, _eps_rot

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.half_add_half":
        "field identity ω/2 + ω/2 = ω (2 ≠ 0 in an ordered field), used inside chord_sq, which is "
        "checked",
    "PLGA.Rope.chord_pos_of_ne":
        "order helper |1 − w|² > 0 for w ≠ 1 inside seq_norm_le, which is checked",
    "PLGA.Rope.expOrbit_one":
        "definitional (e^{iω·1} = (cos ω, sin ω), the cast 1·ω = ω); nothing numeric",
}

#: the difference frequencies of the twirl (Lem 5.9): ω = θ_a, 2θ_a, θ_a − θ_b, θ_a + θ_b
KINDS = ("a", "2a", "a-b", "a+b")


@st.composite
def twirl_case(draw):
    dk = draw(st.sampled_from([4, 8, 16, 64]))
    a = draw(st.integers(0, dk // 2 - 1))
    b = draw(st.integers(0, dk // 2 - 1))
    kind = draw(st.sampled_from(KINDS))
    S = draw(st.one_of(st.integers(1, 40), st.integers(41, 300)))
    return dk, a, b, kind, S


def _cmul(z, w):
    """Complex product of pairs (re, im), in the arithmetic of the entries."""
    return z[0] * w[0] - z[1] * w[1], z[0] * w[1] + z[1] * w[0]


def _orbit(dk, a, b, kind, S, backend, dps):
    """Σ_{n=1}^S e^{iωn} from pyref's RoPE rotations: z_j(n) = (R_n[2j, 2j], R_n[2j+1, 2j]) =
    (cos nθ_j, sin nθ_j) of ``pyref.rope.rope_matrix``, combined into the difference-frequency
    term z_a(n) (ω = θ_a), z_a(n)² (2θ_a), z_a(n)·conj z_b(n) (θ_a − θ_b), z_a(n)·z_b(n)
    (θ_a + θ_b), summed in the backend. Returns (Re, Im, the terms, their float64 error bounds,
    the summed float64 error bound E of Re and Im)."""
    be = pyref.get_backend(backend, dps)
    re = im = None
    terms, errs, err = [], [], 0.0
    with be.context():
        for n in range(1, S + 1):
            R = pyref.rope.rope_matrix(n, dk, base=BASE, backend=backend, dps=dps)
            za = (R[2 * a, 2 * a], R[2 * a + 1, 2 * a])
            zb = (R[2 * b, 2 * b], R[2 * b + 1, 2 * b])
            ep = _eps_rot(n)
            if kind == "a":
                t, et = za, ep
            else:
                w = {"2a": za, "a-b": (zb[0], -zb[1]), "a+b": zb}[kind]
                t = _cmul(za, w)
                # |x'y' − xy| ≤ 2ε + ε² per product (|x|, |y| ≤ 1), two products, and the
                # rounding of a 2-term sum of products: γ_2·Σ|x'y'| ≤ γ_2·2(1 + ε)²
                et = 2 * (2 * ep + ep * ep) + gamma(2) * 2 * (1 + ep) ** 2
            terms.append(t)
            errs.append(et)
            re = t[0] if re is None else re + t[0]
            im = t[1] if im is None else im + t[1]
            err += et
    # the S-term sums: γ_{S}·Σ|t'_n| ≤ γ_S·S·(1 + max e_n)
    E = err + gamma(S) * S * (1 + err)
    return re, im, terms, errs, E


def _omega(dk, a, b, kind):
    """The exact frequency ω at REF_DPS digits: θ_j = Θ^{−2j/d_k} (an independent evaluation of
    the RoPE frequencies, not pyref's)."""
    th = [mpmath.power(mpmath.mpf(BASE), mpmath.mpf(-2 * j) / dk) for j in range(dk // 2)]
    return {"a": th[a], "2a": 2 * th[a], "a-b": th[a] - th[b], "a+b": th[a] + th[b]}[kind]


def _orbit_law_parts(ch, terms, errs, mp):
    """expOrbit/diffTerm/sumTerm_isOrbit: t(n+1) = t(1)·t(n) and _unit: |t(n)|² = 1 on pyref's
    terms (at 80 digits from the computed values). float64: |t'(1)t'(n) − t(1)t(n)| ≤
    2(e₁ + e_n + e₁e_n) per component, plus e_{n+1}; |t'|² − 1 within 2(|c| + |s|)e_n + 2e_n² ≤
    2√2·e_n + 2e_n² (the squares are taken at 80 digits); plus the 80-digit evaluation's
    REF_ERR. mp: 1e-40·n (the angles grow with n)."""
    law = unit = 0.0
    c1, s1 = mpmath.mpf(terms[0][0]), mpmath.mpf(terms[0][1])
    for n, (t, e) in enumerate(zip(terms, errs), start=1):
        cn, sn = mpmath.mpf(t[0]), mpmath.mpf(t[1])
        bu = mp_bound(n) if mp else 2 * math.sqrt(2) * e + 2 * e * e + REF_ERR
        unit = max(unit, abs(cn ** 2 + sn ** 2 - 1) / bu)
        if n < len(terms):
            c2, s2 = mpmath.mpf(terms[n][0]), mpmath.mpf(terms[n][1])
            dev = max(abs(c2 - (c1 * cn - s1 * sn)), abs(s2 - (c1 * sn + s1 * cn)))
            bl = (mp_bound(n + 1) if mp else
                  2 * (errs[0] + e + errs[0] * e) + errs[n] + REF_ERR)
            law = max(law, dev / bl)
    ch.le("isOrbit: t(n+1) = t(1)·t(n) (ratio to bound)", law, 1.0)
    ch.le("unit: |t(n)|² = 1 (ratio to bound)", unit, 1.0)


def _rope_family_parts(ch, kind, Re, Im, chord2, E, dN2):
    """rope_twirl_* and seq_* for the real RoPE family: w = e^{iω} exactly (80 digits),
    |1 − w|²|Σ'|² ≤ 4 and, for w ≠ 1, |Σ'| ≤ 2/|1 − w| (violations, with the sum's errors)."""
    N2 = Re ** 2 + Im ** 2
    tag = {"a-b": "rope_twirl_diff", "a+b": "rope_twirl_sum", "2a": "rope_twirl_sum"}.get(
        kind, "seq")
    ch.le(f"{tag}: |1 − w|²|Σ|² ≤ 4", max(0, chord2 * N2 - 4), chord2 * dN2 + REF_ERR)
    if chord2 > 0:
        ch.le(f"{tag}: |Σ| ≤ 2/|1 − w|", max(0, mpmath.sqrt(N2) - 2 / mpmath.sqrt(chord2)),
              math.sqrt(2) * E + REF_ERR)


@prop(theorems=["PLGA.Rope.chord_sq", "PLGA.Rope.chord_eq", "PLGA.Rope.orbit_geom",
                "PLGA.Rope.orbit_normSq_mul_chord_le", "PLGA.Rope.orbit_normSq_mul_sin_sq_le",
                "PLGA.Rope.orbit_norm_mul_abs_sin_le", "PLGA.Rope.orbit_norm_le",
                "PLGA.Rope.orbit_avg_norm_le", "PLGA.Rope.seq_geom",
                "PLGA.Rope.seq_normSq_mul_chord_le", "PLGA.Rope.seq_norm_le",
                "PLGA.Rope.expOrbit_isOrbit", "PLGA.Rope.expOrbit_unit",
                "PLGA.Rope.diffTerm_isOrbit", "PLGA.Rope.sumTerm_isOrbit",
                "PLGA.Rope.diffTerm_unit", "PLGA.Rope.sumTerm_unit",
                "PLGA.Rope.rope_twirl_diff_normSq_le", "PLGA.Rope.rope_twirl_diff_norm_le",
                "PLGA.Rope.rope_twirl_sum_norm_le"],
      paper="Lem 5.9 (quantitative RoPE twirl: |1 − e^{iω}| = 2|sin(ω/2)|, "
            "|Σ_{n=1}^S e^{iωn}| ≤ 1/|sin(ω/2)|, O(1/S) decay)",
      strategy=twirl_case, cost=0.5)
def twirl_orbit_bound(ex, backend, dps):
    """The orbit sum Σ_{n=1}^S e^{iωn} at a RoPE difference frequency ω ∈ {θ_a, 2θ_a, θ_a − θ_b,
    θ_a + θ_b} (d_k ∈ {4, 8, 16, 64}, S ≤ 300), its terms read off pyref's ``rope_matrix`` R_n
    (:func:`_orbit`; these are the Lean ``expOrbit``/``diffTerm``/``sumTerm`` of the real RoPE
    family), against the right-hand sides evaluated at 80 digits from an independent ω
    (:func:`_omega`, mpmath sin/cos):

    * ``chord_sq``/``chord_eq``: the n = 1 term z' = e^{iω} gives (1 − c')² + s'² = 4 sin²(ω/2) and
      √((1 − c')² + s'²) = 2|sin(ω/2)|;
    * ``orbit_geom``/``seq_geom``: (1 − cos ω)Re + sin ω·Im = cos ω − cos((S+1)ω) and
      (1 − cos ω)Im − sin ω·Re = sin ω − sin((S+1)ω);
    * the bounds (violations max(0, lhs − rhs)): ((1 − cos ω)² + sin² ω)|Σ|² ≤ 4,
      sin²(ω/2)|Σ|² ≤ 1, |Σ||sin(ω/2)| ≤ 1 and, when sin(ω/2) ≠ 0 (all kinds but θ_a − θ_a = 0,
      where only the hypothesis-free statements are checked), |Σ| ≤ 1/|sin(ω/2)| and
      |Σ|/S ≤ 1/(S|sin(ω/2)|). These are nearly tight (|Σ| = |sin(Sω/2)|/|sin(ω/2)|);
    * the orbit law and unit modulus of the terms (:func:`_orbit_law_parts`) and the
      ``RotFamily`` forms ``rope_twirl_*`` (:func:`_rope_family_parts`: w = e^{iω} of the real
      family, 1 − w at 80 digits).

    float64 bounds: pyref's cos/sin(nθ_j) err by ε_n (``_eps_rot``); a product term by
    2(2ε_n + ε_n²) + 2γ_2(1 + ε_n)²; the S-term sums add γ_S·S(1 + E): E bounds |Re' − Re| and
    |Im' − Im|. Then |√(Re'² + Im'²) − |Σ|| ≤ √2·E and |Re'² + Im'² − |Σ|²| ≤ 2(|Re'| + |Im'|)E +
    2E²; the chord uses the n = 1 term error e₁ (its square: 6e₁ + 2e₁² + 5γ_3; its root √2·e₁ +
    2u·√2 + 8u for 1 − c' and the square root). mp: pyref at 50 digits, errors 1e-40·S²
    (``mp_bound``: the angles nθ grow with n). All right-hand sides carry ``REF_ERR``."""
    dk, a, b, kind, S = ex
    re, im, terms, errs, E = _orbit(dk, a, b, kind, S, backend, dps)
    z1, e1 = terms[0], errs[0]
    if backend == "mp":
        E = e1 = mp_bound(S * S)
    ch = Checks()
    with mpmath.workdps(REF_DPS):
        w = _omega(dk, a, b, kind)
        Re, Im = mpmath.mpf(re), mpmath.mpf(im)
        c1, s1 = mpmath.mpf(z1[0]), mpmath.mpf(z1[1])
        cw, sw, sh = mpmath.cos(w), mpmath.sin(w), mpmath.sin(w / 2)
        chord2 = (1 - c1) ** 2 + s1 ** 2
        ch.le("chord_sq", abs(chord2 - 4 * sh ** 2), 6 * e1 + 2 * e1 ** 2 + 5 * gamma(3) + REF_ERR)
        ch.le("chord_eq", abs(mpmath.sqrt(chord2) - 2 * abs(sh)),
              math.sqrt(2) * (e1 + 2 * U64) + 8 * U64 + REF_ERR)
        cS, sS = mpmath.cos((S + 1) * w), mpmath.sin((S + 1) * w)
        scale = (abs(1 - cw) + abs(sw)) * E + REF_ERR
        ch.le("orbit_geom (re)", abs((1 - cw) * Re + sw * Im - (cw - cS)), scale)
        ch.le("orbit_geom (im)", abs((1 - cw) * Im - sw * Re - (sw - sS)), scale)
        N2 = Re ** 2 + Im ** 2
        dN2 = 2 * (abs(Re) + abs(Im)) * E + 2 * E ** 2
        exact_chord2 = (1 - cw) ** 2 + sw ** 2
        ch.le("orbit_normSq_mul_chord_le", max(0, exact_chord2 * N2 - 4),
              exact_chord2 * dN2 + REF_ERR)
        ch.le("orbit_normSq_mul_sin_sq_le", max(0, sh ** 2 * N2 - 1), sh ** 2 * dN2 + REF_ERR)
        ch.le("orbit_norm_mul_abs_sin_le", max(0, mpmath.sqrt(N2) * abs(sh) - 1),
              abs(sh) * math.sqrt(2) * E + REF_ERR)
        if abs(sh) > 0:
            ch.le("orbit_norm_le", max(0, mpmath.sqrt(N2) - 1 / abs(sh)),
                  math.sqrt(2) * E + REF_ERR)
            ch.le("orbit_avg_norm_le", max(0, mpmath.sqrt(N2) / S - 1 / (S * abs(sh))),
                  math.sqrt(2) * E / S + REF_ERR)
        _orbit_law_parts(ch, terms, errs, backend == "mp")
        _rope_family_parts(ch, kind, Re, Im, exact_chord2, E, dN2)
    return ch.outcome()
