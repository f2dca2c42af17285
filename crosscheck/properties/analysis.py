"""Properties of the audit statistics of ``pyref.analysis`` that no Lean file defines (spec D):
``order_parameter`` and ``ln_scale_error``, against the spec evaluator
(``spec_eval.analysis.orderParameter``, ``lnScaleError`` with the Lean ``lnEps``) at 80 digits.
Each names the Lean statements its statistic rests on (``Formal/Structure/LayerNorm.lean``: the
scale behaviour of the row mean and variance, and of ε-LayerNorm). The analysis functions with a
Lean home are checked in the mirror modules (``perron/theorem38.py``, ``structure/rank_one.py``,
``structure/dag.py``, ``rope/projection.py``).

**Bounds** (float64, Higham §3.1; u = 2^-53, γ_k = ku/(1 − ku)): stated per helper. Both
functions are float64 audit tools (any input is converted to float64 first), so the properties
run on ``float64`` only.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref

from ..registry import Checks, prop
from ..spec_eval import analysis as sev
from ..spec_eval._scalar import const, fsum, mat
from ..strategies import UNIT, matrix
from ._arith import U64, gamma
from ._util import generic_plga_state_dict

#: working precision of the spec evaluator
REF_DPS = 80

#: gradual underflow: an operation landing in float64's subnormal range errs by ≤ 2^-1075
ETA = 2.0 ** -1074

FMAX = mpmath.mpf(np.finfo(np.float64).max)


# ========================================================================= order parameter
@st.composite
def order_case(draw):
    """Two same-shape arrays: generic, equal, with cancelling means (exactly zero float sums:
    interleaved ±x), or near ±1.5e308 of opposite signs (X₁ − X₂ overflows); scaled by 1e-300 …
    1e300."""
    shape = draw(st.sampled_from([(3,), (2, 3), (2, 2, 2), (1, 4)]))
    size = int(np.prod(shape))
    kind = draw(st.sampled_from(["generic", "generic", "generic", "equal", "cancel", "huge"]))

    def arr():
        return np.array(draw(st.lists(UNIT, min_size=size, max_size=size))).reshape(shape)

    X1, X2 = arr(), arr()
    if kind == "equal":
        X2 = X1.copy()
    elif kind == "cancel" and size % 2 == 0:
        for X in (X1, X2):
            f = X.reshape(-1)
            f[1::2] = -f[0::2]
    elif kind == "huge":
        X1, X2 = np.sign(X1 + 0.5) * 1.5e308, -np.sign(X2 + 0.5) * 1.5e308 * np.abs(X2)
    if kind != "huge":
        c = 10.0 ** draw(st.sampled_from([0, 0, -300, 300, -150]))
        X1, X2 = X1 * c, X2 * c
    return X1, X2


def _rel_rms(N: int) -> float:
    """Relative error of pyref's RMS of N power-of-two-scaled values: a difference (u), squares
    (2u), a sum and a mean (γ_{N+1}), the root (u/2 + u), plus 2√N·2^-1074 for entries lost to
    the subnormal range (RMS ≥ max/√N ≥ 1/(2√N) after scaling)."""
    return gamma(N + 5) + 2 * math.sqrt(N) * ETA


def _ratio_check(ch: Checks, name, got, num, den, e_num, e_den):
    """got ≈ num/den with relative error e_num of the numerator and absolute e_den of the
    denominator: |r̂ − r| ≤ r(e_num + e_den/(den − e_den)) (1 + u) + u r; den = 0 exactly means
    r = ∞ (pyref must return ∞ when its own denominator is exactly 0, undecidable otherwise), and
    so does a ratio that exceeds the float64 range even at its lower error bound."""
    if den == 0:
        if got != math.inf:
            ch.le(f"{name}: means cancel (spec ∞; pyref's rounded mean nonzero)", 0.0, 1.0)
        return
    if den <= 2 * e_den:
        return                    # the denominator is not resolved at float64
    r = num / den
    rel = (e_num + e_den / (den - e_den)) * (1 + U64) + U64
    if r * (1 - rel) > FMAX:      # the ratio itself exceeds the float64 range: pyref says ∞
        ch.exact(f"{name} beyond the float64 range = ∞", int(got != math.inf))
        return
    ch.le(name, abs(mpmath.mpf(got) - r), r * rel)


def _scaling_check(ch: Checks, X1, X2, op):
    """rowMean_smul / rowVar_smul on pyref: scaling both inputs by c = 2^k scales every mean, RMS
    and the RMSE by c, so m_rms, m_signed, m_first are unchanged and rmse becomes c·rmse —
    exactly, since pyref normalizes by powers of two (checked when every nonzero entry of the
    inputs, their difference and their scaled versions stays in the normal float64 range)."""
    with np.errstate(over="ignore"):
        vals = np.concatenate([X1.ravel(), X2.ravel(), (X1 - X2).ravel()])
    if not np.all(np.isfinite(vals)) or not np.any(vals != 0):
        return
    nz = np.abs(vals[vals != 0])
    k = -900 if nz.max() > 1e-10 else 700
    lo, hi = math.ldexp(float(nz.min()), k), math.ldexp(float(nz.max()), k)
    if min(float(nz.min()), lo) < 2.0 ** -1020 or hi > 2.0 ** 1020:
        return
    Y1, Y2 = np.ldexp(X1, k), np.ldexp(X2, k)
    oq = pyref.analysis.order_parameter(Y1, Y2)
    ch.exact("order parameter of 2^k·X: ratios unchanged, rmse × 2^k (rowMean_smul, rowVar_smul)",
             int(oq.m_rms != op.m_rms) + int(oq.m_signed != op.m_signed)
             + int(oq.m_first != op.m_first) + int(oq.rmse != math.ldexp(op.rmse, k)))


@prop(theorems=["PLGA.LayerNorm.rowMean_smul", "PLGA.LayerNorm.rowVar_smul"],
      paper="Spec D (order parameter of two deductive outputs: RMSE and its RMS / signed-mean / "
            "one-sided normalizations)",
      strategy=order_case, backends=("float64",))
def order_parameter_matches_spec(ex, backend, dps):
    """Every field of ``pyref.analysis.order_parameter`` against spec D (``orderParameter`` at 80
    digits): ``rmse`` = RMS(X₁ − X₂) (∞ exactly when it exceeds the float64 range),
    ``m_rms``, ``m_signed`` (∞ when the means cancel: exercised with exactly cancelling float
    sums), ``m_first``; all 0 for equal inputs; inputs up to ±1.5e308 (the overflowing
    difference branch) and scaled by 1e-300 … 1e300 — the normalizations are scale invariant
    because the mean and the variance scale (rowMean_smul, rowVar_smul; RMS² = mean² + var).
    Bounds: RMS relative :func:`_rel_rms`; a mean of N scaled values errs by γ_{N+1}·mean|x|
    (absolute); ratios by :func:`_ratio_check`."""
    X1, X2 = ex
    op = pyref.analysis.order_parameter(X1, X2)
    N = X1.size
    ch = Checks()
    _scaling_check(ch, X1, X2, op)
    with mpmath.workdps(REF_DPS):
        a, b = sev.flatten(mat(X1)), sev.flatten(mat(X2))
        ref = sev.orderParameter(a, b)
        if ref["rmse"] == 0:
            ch.exact("equal inputs: every field 0",
                     sum(1 for v in (op.rmse, op.m_rms, op.m_signed, op.m_first) if v != 0))
            return ch.outcome()
        er = _rel_rms(N)
        if ref["rmse"] * (1 - er) > FMAX:
            ch.exact("rmse beyond float64 range = ∞", int(op.rmse != math.inf))
        else:
            ch.le("rmse = RMS(X₁ − X₂)", abs(mpmath.mpf(op.rmse) - ref["rmse"]),
                  er * ref["rmse"] + ETA)
        rms = [mpmath.sqrt(fsum(t * t for t in x) / N) for x in (a, b)]
        _ratio_check(ch, "m_rms = rmse/(½(RMS X₁ + RMS X₂))", op.m_rms, ref["rmse"],
                     (rms[0] + rms[1]) / 2, er, er * (rms[0] + rms[1]) / 2)
        mean = [abs(sum(x) / N) for x in (a, b)]
        emean = [gamma(N + 1) * sum(abs(t) for t in x) / N for x in (a, b)]
        _ratio_check(ch, "m_signed = rmse/(½(|mean X₁| + |mean X₂|))", op.m_signed, ref["rmse"],
                     (mean[0] + mean[1]) / 2, er, (emean[0] + emean[1]) / 2)
        _ratio_check(ch, "m_first = rmse/|mean X₁|", op.m_first, ref["rmse"], mean[0], er,
                     emean[0])
    return ch.outcome()


# ============================================================================ ε-LN scale error
@st.composite
def ln_case(draw):
    rows, n = draw(st.integers(1, 4)), draw(st.integers(2, 8))
    batch = draw(st.sampled_from([(), (2,)]))
    D = np.stack([draw(matrix(rows, n, magnitude=st.sampled_from([1e-2, 1.0, 30.0])))
                  for _ in range(int(np.prod(batch, dtype=int)))]).reshape(batch + (rows, n))
    D = D + draw(st.sampled_from([0.0, 0.0, 10.0]))
    gam = 1 + 0.5 * np.array(draw(st.lists(UNIT, min_size=n, max_size=n)))
    bet = 0.5 * np.array(draw(st.lists(UNIT, min_size=n, max_size=n)))
    S = draw(st.sampled_from([1, 2, 7, 64]))
    eps = draw(st.sampled_from([1e-6, 1e-3, 0.0]))
    return D, gam, bet, S, eps


def _ln_error(r: np.ndarray, gam, bet, eps: float, din: float = 0.0):
    """(per-entry bound e on |LN̂(r) − LN(r)|, δvar, var) for pyref's float64 LayerNorm of one row
    (μ = Σr/n, xc = r − μ, var = Σxc²/n, y = xc/√(var + ε)·γ + β), its input known to within
    ``din`` per entry: δμ = γ_{n+1}mean|r| + din; |x̂c_i − xc_i| ≤ Δ = δμ(1 + u) + u·max|xc| +
    din; δvar = (2 mean|xc|Δ + Δ²)(1 + γ_{n+2}) + γ_{n+2}var; ρ = δvar/(var + ε) gives
    1/√(var + ε) within ρ/(2(1 − ρ)) + 4u (√, +ε, /, and ε read as a float); then
    e_i = |γ_i|(Δ + |xc_i|(ρ/(2(1 − ρ)) + 4u))(1 + u)/σ_ε + u|out_i|.
    None if ρ ≥ ½ (the variance is not resolved)."""
    n = len(r)
    mu = float(np.mean(r))
    xc = r - mu
    var = float(np.mean(xc * xc))
    dmu = gamma(n + 1) * float(np.mean(np.abs(r))) + din
    Dl = dmu * (1 + U64) + U64 * float(np.max(np.abs(xc))) + din
    g = gamma(n + 2)
    dvar = (2 * float(np.mean(np.abs(xc))) * Dl + Dl * Dl) * (1 + g) + g * var
    rho = dvar / (var + eps) if var + eps > 0 else math.inf
    if rho >= 0.5:
        return None, dvar, var
    s = math.sqrt(var + eps)
    out = gam * xc / s + bet
    e = np.abs(gam) * (Dl + np.abs(xc) * (rho / (2 * (1 - rho)) + 4 * U64)) * (1 + U64) / s
    return (e + U64 * np.abs(out)) * 1.000001, dvar, var


def _ln_row_checks(ch: Checks, r, gam, bet, S, eps, got, ref):
    """One row: abs_l2, rel_l2, proxy against the evaluator (``ref``: the three values)."""
    e1, _, _ = _ln_error(r, gam, bet, eps)
    # pyref's r/S rounds each entry by ≤ u·max|r/S|: the second LN's input tolerance
    e2, dv2, v2 = _ln_error(r / S, gam, bet, eps, U64 * float(np.max(np.abs(r / S))))
    if e1 is not None and e2 is not None:
        n = len(r)
        g = gamma(n + 2)
        E = float(np.sqrt(np.sum((e1 + e2) ** 2)))
        a_ref, r_ref = ref[0], ref[1]
        ch.le("abs_l2 = ‖LN(r) − LN(r/S)‖₂", abs(mpmath.mpf(got[0]) - a_ref), E + g * (a_ref + E))
        l1 = float(np.sqrt(np.sum(_ln_plain(r, gam, bet, eps) ** 2)))
        dn = float(np.sqrt(np.sum(e1 ** 2))) + g * l1
        if l1 > 2 * dn:
            ch.le("rel_l2 = abs_l2/‖LN(r)‖₂", abs(mpmath.mpf(got[1]) - r_ref),
                  (E + g * (a_ref + E) + r_ref * dn) / (l1 - dn) + U64 * r_ref)
    # proxy ε/(2 var(r/S)): np.var of the rounded r/S (δvar above includes the input rounding)
    if v2 > 0 and dv2 < v2 / 2:
        d = dv2
        p_ref = ref[2]
        ch.le("proxy = ε/(2 var(r/S))", abs(mpmath.mpf(got[2]) - p_ref),
              p_ref * (d / (v2 - d) + 2 * U64))


def _ln_plain(r, gam, bet, eps):
    mu = np.mean(r)
    return gam * (r - mu) / np.sqrt(np.mean((r - mu) ** 2) + eps) + bet


@prop(theorems=["PLGA.LayerNorm.normalize_not_scale_invariant",
                "PLGA.LayerNorm.lnEps_scale_eps_zero"],
      paper="Spec D / C (ε-LN scale error: LN(r) against LN(r/S), Lem 5.11)",
      strategy=ln_case, backends=("float64",))
def ln_scale_error_matches_spec(ex, backend, dps):
    """``pyref.analysis.ln_scale_error``(D, γ, β, S, ε) per row against spec D evaluated with the
    Lean ``lnEps`` at 80 digits (``spec_eval.analysis.lnScaleError``): ``abs_l2`` =
    ‖LN(r) − LN(r/S)‖₂, ``rel_l2`` = abs_l2/‖LN(r)‖₂, ``proxy`` = ε/(2 var(r/S)); S ∈ {1, 2, 7,
    64}, ε ∈ {1e-6, 1e-3, 0}: at ε = 0 LN is scale invariant (lnEps_scale_eps_zero: abs_l2 = 0 in
    the evaluator) and for ε > 0, S ≠ 1 it is not (normalize_not_scale_invariant: abs_l2 > 0), so
    pyref's value is measured against both regimes; rows with a mean offset of 10 (cancellation in
    the centring). pyref raises exactly when ε = 0 meets a zero-variance row. Bounds:
    :func:`_ln_error` per LN entry (both LNs), γ_{n+2} for each norm; skipped where the row's
    variance is not resolved at float64 (ρ ≥ ½)."""
    D, gam, bet, S, eps = ex
    try:
        got = pyref.analysis.ln_scale_error(D, gam, bet, S, eps=eps)
    except ValueError:
        got = None
    rows = D.reshape(-1, D.shape[-1])
    ch = Checks()
    flat_var = any(not np.any(r - r[0]) for r in rows)
    ch.exact("raises iff ε = 0 meets a zero-variance row", int((got is None) != (eps == 0
                                                                                  and flat_var)))
    if got is None:
        return ch.outcome()
    vals = [np.asarray(got[k]).reshape(-1) for k in ("abs_l2", "rel_l2", "proxy")]
    with mpmath.workdps(REF_DPS):
        ref = sev.lnScaleError(mat(rows), mat(gam), mat(bet), S, const(eps))
        for i, r in enumerate(rows):
            _ln_row_checks(ch, r, gam, bet, S, eps, [v[i] for v in vals],
                           [ref[k][i] for k in ("abs_l2", "rel_l2", "proxy")])
    return ch.outcome()


# ============================================================================ cache deviation
@st.composite
def cache_case(draw):
    H = draw(st.integers(1, 2))
    V = draw(st.integers(4, 8))
    cfg = pyref.PLDRConfig(num_layers=draw(st.integers(1, 2)), d_model=2 * H * draw(
        st.integers(1, 2)), num_heads=H, dff=4, a_dff=2, num_res_units=1, num_glu_blocks=2,
        vocab_size=V, max_seq_len=16)
    prompt = np.array(draw(st.lists(st.integers(1, V - 1), min_size=1, max_size=4)))
    return cfg, draw(st.integers(0, 2 ** 16)), prompt, draw(st.integers(0, 3))


def _cache_ingredients(model, prompt, steps, backend, dps):
    """The statistic's inputs, produced by pyref's model (checked elsewhere): the KV+G-cached
    greedy run and, per step, the uncached forward call on the same tokens."""
    g = model.generate(prompt[None], steps, kvcache=True, gcache=True, backend=backend, dps=dps,
                       return_operators=True)
    cached = [row[0] for row in g.step_logits]
    unc, Gs = [], []
    for t in range(len(cached)):
        out = model.forward(g.tokens[:, :len(prompt) + t], backend=backend, dps=dps)
        unc.append(out.logits[0, -1])
        Gs.append([ded["G_LM"] for ded in out.deductive])
    return g, cached, unc, (g.step_G[0] if g.step_G else []), Gs


def _cache_field_checks(ch: Checks, cd, ref, scale, sizes, conv_u):
    """d, margin, ε_G, max|ΔG| against the evaluator. pyref's float64 statistics of float64
    data: d and max|ΔG| are a rounded difference (u), the margin a rounded difference of the
    sorted values (u), ε_G a quotient of two RMS of N entries (:func:`_rel_rms` each, plus the
    quotient's u); ``conv_u`` (mp backend: u, else 0) adds the rounding of every input to float64
    (times ``scale`` = max|ℓ_c| + max|ℓ_u| for the logits; relative for the operators)."""
    for t in range(len(ref["d"])):
        ch.le("d_t = max|ℓ_cached − ℓ_uncached|", abs(mpmath.mpf(cd.d[t]) - ref["d"][t]),
              U64 * ref["d"][t] * 1.01 + conv_u * scale)
        if ref["margin"][t] != mpmath.inf:
            ch.le("margin_t = top1 − top2", abs(mpmath.mpf(cd.margin[t]) - ref["margin"][t]),
                  U64 * ref["margin"][t] * 1.01 + conv_u * scale)
        for li, (e, m) in enumerate(zip(ref["eps_G"][t], ref["max_dG"][t])):
            er = 2 * _rel_rms(sizes[li]) + U64 + 4 * conv_u
            ch.le("ε_G = RMS(G_u − G_prompt)/RMS(G_u)", abs(mpmath.mpf(cd.eps_G[t][li]) - e),
                  er * e * 1.01 + 2 * conv_u)
            ch.le("max|ΔG|", abs(mpmath.mpf(cd.max_dG[t][li]) - m),
                  (U64 * m + conv_u * ref["G_scale"][t][li]) * 1.01)


@prop(theorems=["PLGA.Attention.plgaDecoder_gcache_prefill_exact",
                "PLGA.Attention.plgaDecoder_gcache_exact"],
      paper="Spec D / G (cache deviation audit: cached vs uncached greedy logits and G drift)",
      strategy=cache_case)
def cache_deviation_matches_spec(ex, backend, dps):
    """Every field of ``pyref.analysis.cache_deviation`` against spec G evaluated by
    ``spec_eval.analysis.cacheDeviation`` on the same ingredients (pyref's KV+G-cached greedy run
    and uncached forward calls on the same tokens; the model is checked elsewhere, the statistic
    here): d_t, margin_t, ε_G(t, l), max|ΔG|(t, l), ``sufficient`` (when decidable), ``tokens``.
    At step 0 the cache was filled from the prompt itself (plgaDecoder_gcache_prefill_exact), so
    d₀ = ε_G(0, ·) = max|ΔG|(0, ·) = 0 exactly; and ``sufficient`` is sound
    (plgaDecoder_gcache_exact's quantitative use): when 2·max d < min margin the cached greedy
    tokens equal the uncached argmax at every step (checked exactly)."""
    cfg, seed, prompt, steps = ex
    model = pyref.PLDRModel.from_state_dict(generic_plga_state_dict(cfg, seed), cfg)
    cd = pyref.analysis.cache_deviation(model, prompt, steps, backend=backend, dps=dps)
    g, cached, unc, Gp, Gs = _cache_ingredients(model, prompt, steps, backend, dps)
    ch = Checks()
    ch.exact("tokens = the cached greedy run", int(not np.array_equal(cd.tokens, g.tokens)))
    conv_u = U64 if backend in ("mp", "arb") else 0.0   # arb: its balls rounded to float64 too
    scale = max((float(np.max(np.abs(pyref.to_float64(x)))) for x in cached + unc), default=0.0)
    sizes = [int(np.size(G)) for G in Gp]
    with mpmath.workdps(REF_DPS):
        ref = sev.cacheDeviation(mat(cached), mat(unc), mat(Gp), mat(Gs))
        ref["G_scale"] = [[2 * max(abs(x) for x in sev.flatten(mat(G))) for G in row] for row in Gs]
        _cache_field_checks(ch, cd, ref, 2 * scale, sizes, conv_u)
        if ref["d"]:
            ch.exact("step 0 (prefill cache): d₀ = ε_G = max|ΔG| = 0",
                     int(cd.d[0] != 0) + int(np.any(cd.eps_G[0] != 0))
                     + int(np.any(cd.max_dG[0] != 0)))
            dmax, mmin = max(ref["d"]), min(ref["margin"])
            # pyref compares its own rounded d and margins (field bounds above) in float64
            res = 3 * (U64 * (dmax + mmin) * 1.01 + 2 * conv_u * scale) + U64 * (2 * dmax + mmin)
            gap = 2 * dmax - mmin
            if abs(gap) > res:
                ch.exact("sufficient = 2 max d < min margin", int(cd.sufficient != (gap < 0)))
            if gap < -res:
                best = [max(range(len(lu)), key=lambda i, lu=lu: lu[i]) for lu in mat(unc)]
                ch.exact("sufficient ⇒ cached tokens = uncached argmax",
                         int(best != [int(x) for x in g.tokens[0, len(prompt):]]))
    return ch.outcome()
