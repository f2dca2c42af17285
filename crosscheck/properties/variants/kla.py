"""Cross-check properties of ``Formal/Variants/Kla.lean``: ``kla_residual_contraction``,
``kla_minimum_change``, ``kla_line_search``, ``kla_proximal_equivalence``, ``kla_interference``,
the comparison with the independent evaluator (:mod:`crosscheck.spec_eval.variants_linear`)
``kla_token_matches_spec``, and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.variants`."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import strategies as st

from pyref.variants import deltanet, kla

from ...registry import Checks, Outcome, combine, prop
from ...spec_eval import variants_linear as SL
from ...spec_eval._scalar import const, mat
from .._arith import bound, conv, ctx, maxabs
from ._shared import ALPHA, EPS, ETA, RNG, STATE_SCALE, _bk, _f, arr, gap

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Variants.Kla.sqNorm_expand":
        "‖d e + t w‖² expanded as a quadratic in (d, t); sum-algebra helper of sqLoss_expand / "
        "sqLoss_line",
    "PLGA.Variants.Kla.frob_expand":
        "‖c k eᵀ + tH‖_F² expanded; sum-algebra helper of kla_projection_min_change and "
        "prox_minimizer (both checked)",
    "PLGA.Variants.Kla.frob_outer_eq_dot":
        "⟨k eᵀ, H⟩_F = eᵀ(Hᵀk), a reordering of a double sum; structural helper",
    "PLGA.Variants.Kla.readout_add_smul":
        "linearity of the read-out, (X + tH)ᵀk = Xᵀk + t Hᵀk; algebra helper used inside proofs",
    "PLGA.Variants.Kla.sqLoss_expand":
        "quadratic expansion of ‖Sᵀk − v‖² along an arbitrary direction S̃ + tH; pyref computes no "
        "such line (only the write direction, whose instance sqLoss_line is checked by "
        "kla_line_search); lemma of prox_minimizer",
    "PLGA.Variants.Kla.sqNorm_nonneg":
        "‖x‖² ≥ 0; order helper (a sum of squares)",
    "PLGA.Variants.Kla.frob_self_nonneg":
        "‖H‖_F² ≥ 0; order helper (a sum of squares)",
    "PLGA.Variants.Kla.sqNorm_pos_of_ne":
        "a vector with a nonzero entry has ‖x‖² > 0; order helper turning k ≠ 0 into ‖k‖² > 0",
    "PLGA.Variants.Kla.kla_ratio_pos":
        "ordered-field lemma ηs/(s+ε) > 0 for s, η > 0, ε ≥ 0; its instance s = ‖k‖² is "
        "kla_factor_lt_one, checked by kla_residual_contraction",
    "PLGA.Variants.Kla.kla_ratio_le_one":
        "ordered-field lemma ηs/(s+ε) ≤ 1 for η ≤ 1; its instance s = ‖k‖² is kla_factor_nonneg, "
        "checked by kla_residual_contraction",
}


ETA_OPEN = st.floats(0.01, 0.99, width=64)   # η < 1 (the proximal form)


@st.composite
def kla_token(draw, eta=ETA):
    dk, dv = draw(st.integers(1, 6)), draw(st.integers(1, 4))
    return dict(S=draw(arr((dk, dv), STATE_SCALE)), k=draw(arr((dk,))),
                v=draw(arr((dv,), STATE_SCALE)),
                alpha=draw(ALPHA), eta=draw(eta), eps=draw(EPS))


def _kla_base(ex, b):
    """Backend arrays of a KLA token and S̃ = αS, e = v − S̃ᵀk, n = ‖k‖² (inside b.context())."""
    S, k, v, alpha = conv(b.name, b.dps, ex["S"], ex["k"], ex["v"], np.float64(ex["alpha"]))
    St = alpha[()] * S
    e = v - St.T @ k
    return S, k, v, St, e, np.sum(k * k)


def _kla_E(ex):
    """|e|_abs = |v| + |S̃|ᵀ|k| (float64 majorant of the residual)."""
    return np.abs(ex["v"]) + (ex["alpha"] * np.abs(ex["S"])).T @ np.abs(ex["k"])


def _key_ok(ex):
    """β = η/(‖k‖²+ε) is defined (a zero key needs ε > 0)."""
    return ex["eps"] > 0 or np.any(ex["k"] != 0)


# ============================================================================ KLA (§2)
@prop(theorems=["PLGA.Variants.Kla.kla_residual_contraction", "PLGA.Variants.Kla.kla_factor_nonneg",
                "PLGA.Variants.Kla.kla_factor_lt_one", "PLGA.Variants.Kla.kla_residual_eps_zero",
                "PLGA.Variants.Kla.kla_step_is_gdn_step"],
      paper="KLA §2: residual contraction e⁺ = (1 − η‖k‖²/(‖k‖²+ε)) e",
      strategy=kla_token, examples=(
          # special values: α = 0 (the state wiped), α = 1 with η = 1, ε = 0 (the projection)
          dict(S=np.array([[1.0, 2.0], [-0.5, 0.25]]), k=np.array([1.0, -2.0]),
               v=np.array([0.5, 1.0]), alpha=0.0, eta=0.5, eps=0.25),
          dict(S=np.array([[1.0, 2.0], [-0.5, 0.25]]), k=np.array([1.0, -2.0]),
               v=np.array([0.5, 1.0]), alpha=1.0, eta=1.0, eps=0.0)))
def kla_residual_contraction(ex, backend, dps):
    """Re-reading the key after pyref's ``kla_step`` leaves the residual e⁺ = v − S_newᵀk equal to
    f·e with e = v − S̃ᵀk (S̃ = αS, the base point) and f = 1 − η‖k‖²/(‖k‖²+ε), and f ∈ [0, 1)
    for k ≠ 0, 0 < η ≤ 1, ε ≥ 0 (f = 1 − η for ε = 0). Also the KLA step is the GDN step with
    the scalar gate α and β = pyref's ``kaczmarz_beta``: ``kla_step`` equals ``deltanet_step``
    (compared when β ≤ 1, the β range pyref's GDN step accepts). Bound: |e|_abs = |v| + |S̃|ᵀ|k|
    and β‖k‖² ≤ 1 make both sides' majorants ≤ 2(1 + β‖k‖²)|e|_abs ≤ 4|e|_abs; index D = 3d_k + 16
    (S̃ᵀk: d_k + 1, β: d_k + 2, the write: 3, S_newᵀk: d_k, two subtractions, f·e: 3); the two
    steps (the same program: decay, residual, write) have majorant |S̃| + β|k|(|e|_abs)ᵀ, same D."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)        # hypothesis k ≠ 0
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"],
                        backend=backend, dps=dps)
    beta = kla.kaczmarz_beta(ex["k"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    dev_gdn, bnd_gdn = 0.0, 0.0
    if bool(beta <= 1):
        Sgdn = deltanet.deltanet_step(ex["S"], ex["k"], ex["v"], beta, ex["alpha"],
                                      backend=backend, dps=dps)
        with ctx(backend, dps):
            dev_gdn = maxabs(Snew - Sgdn)
        bf = float(_f(beta))
        bnd_gdn = bound(backend, 3 * len(ex["k"]) + 16,
                        ex["alpha"] * np.abs(ex["S"]) + bf * np.outer(np.abs(ex["k"]), _kla_E(ex)))
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        eta = conv(backend, dps, np.float64(ex["eta"]))[0][()]
        f = 1 - eta * n / (n + b.const(ex["eps"]))
        e_plus = v - Snew.T @ k
        dev = maxabs(e_plus - f * e)
        x = float(_f(eta * n / (n + b.const(ex["eps"]))))
        # f ∈ [0, 1): f ≥ 0 holds in rounded arithmetic too (η‖k‖² ≤ ‖k‖² + ε, monotone rounding)
        rng = max(0.0, -float(_f(f))) + (1.0 if not float(_f(f)) < 1 else 0.0)
        dev_eps0 = maxabs(f - (1 - eta)) if ex["eps"] == 0 else 0.0
    if x < 1e-12:   # f < 1 is not decidable at float64 resolution: not counted
        return Outcome(dev, 0.0, met=False)
    dk = len(ex["k"])
    T = 4 * _kla_E(ex)
    return combine([
        ("kla_residual_contraction: e⁺ = f·e", dev, bound(backend, 3 * dk + 16, T)),
        ("kla_factor_nonneg / kla_factor_lt_one: 0 ≤ f < 1 (exact)", rng, 0.0),
        ("kla_residual_eps_zero: f = 1 − η", dev_eps0,
         bound(backend, 4, 1.0) if ex["eps"] == 0 else 0.0),
        ("kla_step_is_gdn_step", dev_gdn, bnd_gdn)])


@st.composite
def kla_projection_inputs(draw):
    ex = draw(kla_token())
    ex["eta"], ex["eps"] = 1.0, 0.0
    ex["H"] = draw(arr(ex["S"].shape))
    return ex


@prop(theorems=["PLGA.Variants.Kla.proj_write_solves", "PLGA.Variants.Kla.increment_orthogonal",
                "PLGA.Variants.Kla.kla_projection_min_change"],
      paper="KLA §2: projection (η = 1, ε = 0) is the minimum-change write",
      strategy=kla_projection_inputs)
def kla_minimum_change(ex, backend, dps):
    """With η = 1, ε = 0 pyref's ``kla_step`` returns the solution of min ½‖S − S̃‖_F² s.t. Sᵀk = v:
    (a) the constraint holds, S_newᵀk = v; (b) the increment Δ = S_new − S̃ equals k eᵀ/‖k‖²;
    (c) Δ is Frobenius-orthogonal to every H with Hᵀk = 0 (drawn H projected onto that
    subspace) -- hence ‖S' − S̃‖² = ‖Δ‖² + ‖H‖² ≥ ‖Δ‖² for every feasible S' = S_new + H;
    (d) that minimum-change inequality itself, ‖Δ‖_F² ≤ ‖Δ + H‖_F² (violation max(0, lhs − rhs)).
    Majorants (E = |v| + |S̃|ᵀ|k|, n = ‖k‖²): (a) 2E, (b) 2|S̃| + 2|k|Eᵀ/n (the computed Δ is a
    difference of S_new, majorant |S̃| + |k|Eᵀ/n, and S̃), (c) Σ (2|S̃| + 2|k|Eᵀ/n) ⊙
    (|H| + |k||k|ᵀ|H|/n), (d) Σ (Δ_abs + H_abs)² (covers both sides; a square adds the indices
    of its factors plus 1, the d_k d_v-term sum d_k d_v); index D = d_k d_v + 4 d_k + 16 for
    (a)-(c), 2D + d_k d_v + 2 for (d)."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], 1.0, 0.0, backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        (H,) = conv(backend, dps, ex["H"])
        Hp = H - k[:, None] * (k @ H)[None, :] / n                      # Hpᵀk = 0
        D = Snew - St
        dev_a = maxabs(Snew.T @ k - v)
        dev_b = maxabs(D - k[:, None] * e[None, :] / n)
        dev_c = maxabs(np.sum(D * Hp))
        DH = D + Hp  # S' − S̃ for S' = S_new + Hp
        dev_d = max(0.0, float(_f(np.sum(D * D) - np.sum(DH * DH))))
    kk, E = np.abs(ex["k"]), _kla_E(ex)
    nf = float(np.dot(ex["k"], ex["k"]))
    Sa = ex["alpha"] * np.abs(ex["S"])
    Dabs = 2 * Sa + 2 * np.outer(kk, E) / nf
    Habs = np.abs(ex["H"]) + np.outer(kk, kk @ np.abs(ex["H"])) / nf
    Dd = ex["S"].size + 4 * len(kk) + 16
    return combine([
        ("(a) proj_write_solves: S_newᵀk = v", dev_a, bound(backend, Dd, 2 * E)),
        ("(b) increment Δ = k eᵀ/‖k‖²", dev_b, bound(backend, Dd, Dabs)),
        ("(c) increment_orthogonal: ⟨Δ, H⟩_F = 0", dev_c, bound(backend, Dd, np.sum(Dabs * Habs))),
        ("(d) kla_projection_min_change: ‖Δ‖² ≤ ‖Δ + H‖²", dev_d,
         bound(backend, 2 * Dd + ex["S"].size + 2, np.sum((Dabs + Habs) ** 2)))])


@st.composite
def kla_line_inputs(draw):
    if draw(st.sampled_from(["random", "random", "paper"])) == "paper":
        # kla_worked_example: S̃ = 0, k = 2, v = 1; the step τ = 1 (t = τ‖k‖² = 4) overshoots
        return dict(S=np.zeros((1, 1)), k=np.array([2.0]), v=np.array([1.0]), alpha=1.0, t=4.0,
                    paper=True)
    ex = draw(kla_token())
    ex["t"] = draw(st.one_of(st.just(1.0), st.just(0.0), st.floats(0.0, 3.0, width=64)))
    return ex


@prop(theorems=["PLGA.Variants.Kla.residual_write", "PLGA.Variants.Kla.sqLoss_line",
                "PLGA.Variants.Kla.line_search_exact", "PLGA.Variants.Kla.kla_worked_example"],
      paper="KLA §2: line search along S̃ + τ k eᵀ, minimum at τ = 1/‖k‖²",
      strategy=kla_line_inputs)
def kla_line_search(ex, backend, dps):
    """Along S(τ) = S̃ + τ k eᵀ (pyref's ``delta_write`` at the base point S̃ = αS with step τ =
    t/‖k‖², t ∈ [0, 3]): the new residual is e⁺ = v − S(τ)ᵀk = (1 − τ‖k‖²) e (any step τ),
    ½‖S(τ)ᵀk − v‖² = ½(1 − τ‖k‖²)²‖e‖², which must be > 0 whenever the exact right side is far
    above round-off (τ‖k‖² ≠ 1, e ≠ 0), and pyref's KLA write with η = 1, ε = 0
    (τ = 1/‖k‖²) attains 0, the minimum. One third of the examples is the paper's worked
    example (S̃ = 0, k = 2, v = 1, t = 4): the step τ = 1 writes S = 2 and reads out 4
    (overshoot), ``kaczmarz_beta`` is 1/4, the KLA write is S = 1/2 and reads out exactly 1.
    Majorant: the residual's R_j = (1 + τ‖k‖²)E_j (E = |v| + |S̃|ᵀ|k|) bounds e⁺ and (1 − τ‖k‖²)e
    (one comparison: bound(R)), both sides of the identity ≤ 3ΣR_j² (squares of quantities with
    error γR, and the three-factor right side); the worked example's five values are compared
    with exact constants, each within γ_D R (R = 5 ≥ every majorant there): 3·bound(R);
    index D = 3 d_k + 16."""
    if not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        tau = conv(backend, dps, np.float64(ex["t"]))[0][()] / n
    Stau, _ = kla.delta_write(St, k, v, tau, backend=backend, dps=dps)
    Sstar = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], 1.0, 0.0, backend=backend, dps=dps)
    with b.context():
        r = Stau.T @ k - v
        dev_res = maxabs(-r - (1 - tau * n) * e)
        lhs = np.sum(r * r) / 2
        rhs = (1 - tau * n) ** 2 * np.sum(e * e) / 2
        rs = Sstar.T @ k - v
        fstar = np.sum(rs * rs) / 2
        dev = maxabs(lhs - rhs) + maxabs(fstar)        # both within the identity's bound
        lhs_f, rhs_f = float(_f(lhs)), float(_f(rhs))
        if ex.get("paper"):
            beta = kla.kaczmarz_beta(ex["k"], 1.0, 0.0, backend=backend, dps=dps)
            dev_ex = (maxabs(Stau - 2) + maxabs(Stau.T @ k - 4) + maxabs(beta - b.const(0.25))
                      + maxabs(Sstar - b.const(0.5)) + maxabs(Sstar.T @ k - 1))
    R = (1 + max(ex["t"], 1.0)) * _kla_E(ex)
    D = 3 * len(ex["k"]) + 16
    bnd = bound(backend, D, 3 * np.sum(R * R))
    # line_search_exact: positive off the minimum (exact)
    pos = 1.0 if rhs_f > 2 * bnd and not lhs_f > 0 else 0.0
    parts = [("sqLoss_line (and the KLA write attains 0)", dev, bnd),
             ("line_search_exact: loss > 0 off the minimum", pos, 0.0),
             ("residual_write: e⁺ = (1 − τ‖k‖²) e", dev_res, bound(backend, D, R))]
    if ex.get("paper"):
        parts.append(("kla_worked_example (five values)", dev_ex, 3 * bound(backend, D, R)))
    return combine(parts)


@prop(theorems=["PLGA.Variants.Kla.prox_minimizer", "PLGA.Variants.Kla.kla_beta_eq_prox_coeff",
                "PLGA.Variants.Kla.kla_write_solves_prox"],
      paper="KLA §2: proximal form, μ = η/((1 − η)‖k‖² + ε) gives the KLA β",
      strategy=lambda: kla_token(eta=ETA_OPEN))
def kla_proximal_equivalence(ex, backend, dps):
    """For η < 1, pyref's ``kla_step`` output S minimizes the strictly convex
    ½‖S − S̃‖_F² + (μ/2)‖Sᵀk − v‖² with μ = η/((1 − η)‖k‖² + ε): the gradient
    (S − S̃) + μ k (Sᵀk − v)ᵀ vanishes; and μ/(1 + μ‖k‖²) equals pyref's ``kaczmarz_beta``.
    Majorants: gradient |S̃| + β|k|Eᵀ + 3μ|k|Eᵀ (the residual Sᵀk − v has majorant 2E); the
    coefficient identity has relative errors only (positive terms; 1 − η is exact or one
    rounding): majorant 2β. Index D = 3 d_k + 20."""
    if not _key_ok(ex) or not np.any(ex["k"] != 0):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"],
                        backend=backend, dps=dps)
    beta = kla.kaczmarz_beta(ex["k"], ex["eta"], ex["eps"], backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        eta = conv(backend, dps, np.float64(ex["eta"]))[0][()]
        mu = eta / ((1 - eta) * n + b.const(ex["eps"]))
        G = (Snew - St) + mu * k[:, None] * (Snew.T @ k - v)[None, :]
        dev_g = maxabs(G)
        dev_c = maxabs(mu / (1 + mu * n) - beta)
    nf = float(np.dot(ex["k"], ex["k"]))
    bf = ex["eta"] / (nf + ex["eps"])
    muf = ex["eta"] / ((1 - ex["eta"]) * nf + ex["eps"])
    kk, E = np.abs(ex["k"]), _kla_E(ex)
    TG = ex["alpha"] * np.abs(ex["S"]) + (bf + 3 * muf) * np.outer(kk, E)
    D = 3 * len(kk) + 20
    return combine([("kla_write_solves_prox: gradient = 0", dev_g, bound(backend, D, TG)),
                    ("kla_beta_eq_prox_coeff: μ/(1 + μ‖k‖²) = β", dev_c,
                     bound(backend, D, 2 * bf))])


@st.composite
def kla_interference_inputs(draw):
    ex = draw(kla_token())
    kind = draw(st.sampled_from(["random", "near", "same"]))
    k2 = draw(arr(ex["k"].shape))
    ex["k2"] = {"random": k2, "near": ex["k"] + 0.1 * k2, "same": ex["k"].copy()}[kind]
    return ex


@prop(theorems=["PLGA.Variants.Kla.kla_interference", "PLGA.Variants.Kla.readout_write"],
      paper="KLA §2: interference Δ(Sᵀk') = β e (kᵀk')",
      strategy=kla_interference_inputs)
def kla_interference(ex, backend, dps):
    """pyref's KLA write changes the read-out of another key k' by exactly β e (kᵀk'):
    S_newᵀk' − S̃ᵀk' = β (kᵀk') e with β = η/(‖k‖² + ε), e = v − S̃ᵀk. Majorant
    2|S̃|ᵀ|k'| + 3β(|k|ᵀ|k'|)E; index D = 3 d_k + 16."""
    if not _key_ok(ex):
        return Outcome(0.0, 0.0, met=False)
    Snew = kla.kla_step(ex["S"], ex["k"], ex["v"], ex["alpha"], ex["eta"], ex["eps"],
                        backend=backend, dps=dps)
    b = _bk(backend, dps)
    with b.context():
        S, k, v, St, e, n = _kla_base(ex, b)
        k2, eta = conv(backend, dps, ex["k2"], np.float64(ex["eta"]))
        beta = eta[()] / (n + b.const(ex["eps"]))
        dev = maxabs((Snew.T @ k2 - St.T @ k2) - beta * (k @ k2) * e)
    nf = float(np.dot(ex["k"], ex["k"]))
    bf = ex["eta"] / (nf + ex["eps"])
    k2a = np.abs(ex["k2"])
    T = 2 * (ex["alpha"] * np.abs(ex["S"])).T @ k2a + 3 * bf * (np.abs(ex["k"]) @ k2a) * _kla_E(ex)
    return Outcome(dev, bound(backend, 3 * len(ex["k"]) + 16, T))


# ============================================================================ spec evaluator
@st.composite
def kla_generic_token(draw):
    """One KLA token with generic entries (d_k, d_v ∈ [2, 4], d_k = d_v included so a
    transposed outer product is a value change, not a shape error), α ∈ (0.05, 0.95),
    η ∈ (0.05, 1), a generic ε (or the default 1e-6), a line-search step τ ∈ (−1, 3), and a
    key batch K [T, d_k] with gates η [T] for the batched ``kaczmarz_beta``."""
    rng = draw(RNG)
    dk, dv, T = draw(st.integers(2, 4)), draw(st.integers(2, 4)), draw(st.integers(1, 4))
    s = draw(st.sampled_from([0.1, 1.0, 10.0]))
    u = rng.uniform
    return dict(S=u(-1, 1, (dk, dv)) * s, k=u(-1, 1, dk) * draw(st.sampled_from([0.3, 1.0, 3.0])),
                v=u(-1, 1, dv) * s, q=u(-1, 1, dk), alpha=float(u(0.05, 0.95)),
                eta=float(u(0.05, 1.0)), tau=float(u(-1.0, 3.0)),
                eps=draw(st.sampled_from([kla.EPS, float(u(0.01, 0.5))])),
                K=u(-1, 1, (T, dk)), etas=u(0.05, 1.0, T))


def _token_ref(ex):
    """The evaluator's values for one KLA token (at 50 digits)."""
    S, k, v, q, K = (mat(ex[n]) for n in ("S", "k", "v", "q", "K"))
    a, eta, tau, etas = mat(ex["alpha"]), mat(ex["eta"]), mat(ex["tau"]), mat(ex["etas"])
    eps, eps0 = const(ex["eps"]), const(kla.EPS)
    beta = SL.klaBeta(eta, eps, k)
    gdn = SL.Token([a] * len(k), beta, k, v, q)
    return dict(beta=beta, betas=[SL.klaBeta(etas[t], eps, K[t]) for t in range(len(K))],
                betas_scalar=[SL.klaBeta(eta, eps, K[t]) for t in range(len(K))],
                write=SL.write(S, tau, k, v), res=SL.residual(S, k, v),
                step=SL.klaStep(a, eta, eps, k, v, S), gdn=SL.step(gdn, S),
                step_default=SL.klaStep(a, eta, eps0, k, v, S), out=SL.klaReadout(S, q))


def _token_majorants(ex):
    """float64 majorants (|inputs|, − → +) of the token's results: β (positive terms: itself),
    the write at step τ, the KLA step, the read-out."""
    S, k, v, q = (np.abs(ex[n]) for n in ("S", "k", "v", "q"))
    a, eps = ex["alpha"], ex["eps"]
    beta = ex["eta"] / (k @ k + min(eps, kla.EPS))
    Sa = a * S
    return dict(beta=beta, betas=ex["etas"] / (np.sum(ex["K"] ** 2, axis=1) + eps),
                betas_scalar=ex["eta"] / (np.sum(ex["K"] ** 2, axis=1) + eps),
                write=S + abs(ex["tau"]) * np.outer(k, v + S.T @ k), res=v + S.T @ k,
                step=Sa + beta * np.outer(k, v + Sa.T @ k), out=S.T @ q / np.sqrt(q @ q))


def _special_token(**kw):
    ex = dict(S=np.array([[0.5, -1.0], [2.0, 0.25]]), k=np.array([1.0, -2.0]),
              v=np.array([0.75, -0.5]), q=np.array([0.0, 3.0]), alpha=0.5, eta=1.0, tau=0.0,
              eps=0.0, K=np.array([[1.0, 2.0], [-1.0, 0.5]]), etas=np.array([1.0, 0.5]))
    ex.update(kw)
    return ex


#: special values, run before the generic draws: η = 1, ε = 0 (the projection); α = 0 (the
#: state is wiped); α = 1 (no decay); a zero key (β = η/ε, no write)
TOKEN_EXAMPLES = (_special_token(), _special_token(alpha=0.0, tau=1.0, eps=0.25),
                  _special_token(alpha=1.0, eta=0.5, eps=1e-6),
                  _special_token(k=np.zeros(2), eps=0.25, K=np.array([[0.0, 0.0], [1.0, 1.0]])))


@prop(theorems=["PLGA.Variants.Kla.write_apply", "PLGA.Variants.Kla.kla_step_is_gdn_step"],
      paper="KLA §2: β = η/(‖k‖² + ε), the write S̃ + β k eᵀ, the step, the read-out Sᵀq/‖q‖",
      strategy=kla_generic_token, examples=TOKEN_EXAMPLES)
def kla_token_matches_spec(ex, backend, dps):
    """Every KLA token function of pyref against the independent evaluator
    (:mod:`crosscheck.spec_eval.variants_linear`, written from ``Kla.lean``) on generic inputs:
    ``kaczmarz_beta`` (one key; a key batch with per-token and with a broadcast η) = ``klaBeta``;
    ``delta_write`` at an arbitrary step τ returns (``write S τ k v``, ``residual S k v``)
    (``write_apply``); ``kla_step`` = ``klaStep`` and = ``DeltaNet.step`` of the token with the
    scalar gate α𝟙 and β = ``klaBeta`` (both sides of ``kla_step_is_gdn_step``), also with the
    default ε (VARIANTS.md: 1e-6); ``kla_readout`` = ``readout S (q/‖q‖)``.
    Bounds (float64, a-priori, Higham §3): β has relative error ≤ γ_{d_k+3} (d_k squares summed,
    + ε, the decimal-vs-binary ε, one division); the residual v − Sᵀk index d_k + 1 on
    |v| + |S|ᵀ|k|; the write S + (τk)eᵀ index d_k + 4 on |S| + |τ||k|(|v| + |S|ᵀ|k|)ᵀ; the
    step (S̃ = αS, e index d_k + 2, βk index d_k + 4, product and sum) index 2d_k + 8 on
    α|S| + β|k|(|v| + α|S|ᵀ|k|)ᵀ (β with the smaller ε is the larger); the read-out
    (Sᵀq index d_k, ‖q‖ index d_k + 1, quotient) index 2d_k + 2 on |S|ᵀ|q|/‖q‖. The evaluator
    runs at 50 digits (its error is far below γ_1); ``bound`` doubles γ."""
    k, dk = ex["k"], len(ex["k"])
    got = dict(beta=kla.kaczmarz_beta(k, ex["eta"], ex["eps"], backend=backend, dps=dps),
               betas=kla.kaczmarz_beta(ex["K"], ex["etas"], ex["eps"], backend=backend, dps=dps),
               betas_scalar=kla.kaczmarz_beta(ex["K"], ex["eta"], ex["eps"], backend=backend,
                                              dps=dps),
               step=kla.kla_step(ex["S"], k, ex["v"], ex["alpha"], ex["eta"], ex["eps"],
                                 backend=backend, dps=dps),
               step_default=kla.kla_step(ex["S"], k, ex["v"], ex["alpha"], ex["eta"],
                                         backend=backend, dps=dps),
               out=kla.kla_readout(ex["S"], ex["q"], backend=backend, dps=dps))
    got["write"], got["res"] = kla.delta_write(ex["S"], k, ex["v"], ex["tau"], backend=backend,
                                               dps=dps)
    with mpmath.workdps(dps):
        ref = _token_ref(ex)
    T = _token_majorants(ex)
    chk = Checks()
    chk.le("kaczmarz_beta = klaBeta", gap(got["beta"], ref["beta"]),
           bound(backend, dk + 3, T["beta"]))
    for name in ("betas", "betas_scalar"):
        chk.le(f"kaczmarz_beta (batch, {name}) = klaBeta per row", gap(got[name], ref[name]),
               bound(backend, dk + 3, T[name]))
    chk.le("delta_write S = write_apply", gap(got["write"], ref["write"]),
           bound(backend, dk + 4, T["write"]))
    chk.le("delta_write e = residual", gap(got["res"], ref["res"]),
           bound(backend, dk + 1, T["res"]))
    chk.le("kla_step = klaStep", gap(got["step"], ref["step"]),
           bound(backend, 2 * dk + 8, T["step"]))
    chk.le("kla_step_is_gdn_step: kla_step = DeltaNet.step", gap(got["step"], ref["gdn"]),
           bound(backend, 2 * dk + 8, T["step"]))
    chk.le("kla_step (default ε = 1e-6) = klaStep", gap(got["step_default"], ref["step_default"]),
           bound(backend, 2 * dk + 8, T["step"]))
    chk.le("kla_readout = readout S (q/‖q‖)", gap(got["out"], ref["out"]),
           bound(backend, 2 * dk + 2, T["out"]))
    return chk.outcome()
