"""Cross-check properties of ``Formal/Structure/LayerNorm.lean``: ``layernorm_norm_identity``,
``layernorm_scale_error`` and ``JUSTIFY``.

Conventions and tolerances: :mod:`crosscheck.properties.structure`."""

from __future__ import annotations

import math

import mpmath
import numpy as np
from hypothesis import strategies as st

import pyref
from pyref.backend import to_float64

from ...registry import Checks, combine, prop
from ...spec_eval import model as ev
from ...spec_eval._scalar import const, mat
from ...strategies import matrix
from .._arith import bound, conv, gamma, maxabs
from ..spec._shared import anchor, ln_scale
from ._shared import _mp, _ub

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.LayerNorm.natCast_ne_zero_of_pos":
        "Nat-cast fact ((n : α) ≠ 0 for n > 0); no computation",
    "PLGA.LayerNorm.centred_shift":
        "proof step of lnEps_shift ((r + c) − μ(r + c) = r − μ(r)); its consequences rowMean_shift "
        "and lnEps_shift are checked by layernorm_norm_identity",
    "PLGA.LayerNorm.eq_of_mul_self_eq":
        "order helper (uniqueness of nonnegative square roots) used inside lnEps_scale_eps_zero, "
        "which is checked",
    "PLGA.LayerNorm.sqrt_mul_self_mul":
        "property of the hypothesis square root (√(c²v) = c√v), used inside lnEps_scale_eps_zero, "
        "which is checked",
    "PLGA.LayerNorm.sqrt_ne_zero_of_pos":
        "property of the hypothesis square root (√v ≠ 0 for v > 0); used inside proofs",
    "PLGA.LayerNorm.absv_mul_le_of_mem":
        "order helper (0 ≤ ρ ≤ 1 ⇒ |xρ| ≤ |x|) inside absv_normalize_smul_sub_le, which is checked",
    "PLGA.LayerNorm.mul_self_mul_le_of_mem":
        "order helper (0 ≤ ρ ≤ 1 ⇒ (xρ)² ≤ x²) inside sum_sq_normalize_smul_sub_le, which is "
        "checked",
    "PLGA.LayerNorm.inv_le_inv_of_le":
        "order helper (0 < a ≤ b ⇒ 1/b ≤ 1/a) inside absv_scaleErr_mul_damp_le, which is checked",
    "PLGA.LayerNorm.fsum_centred_sq":
        "definitional rearrangement Σ(r_i − μ)² = d·var(r) of the Lean variance; pyref's LayerNorm "
        "computes var exactly this way and sum_sq_normalize (checked) is its consequence",
}


def _f(x) -> float:
    return float(x)


# ================================================================ 1. LayerNorm (Lem 5.11)
LN_MAG = st.sampled_from([1.0, 1e-3, 3e-4, 0.5, 10.0, 1e3])


@st.composite
def ln_case(draw):
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    X = draw(matrix(m, n, magnitude=LN_MAG))
    eps = draw(st.sampled_from([1e-6, 1e-3, 1e-9, 0.5]))
    c = draw(st.sampled_from([1.0, -7.5, 100.0, 0.3, 1e3]))          # shift
    k = draw(st.sampled_from([2.0, 0.5, 3.0, 0.1, 1e3, 4.0]))         # positive scale ≠ 1
    return X, eps, c, k


def _row_exact(r, eps_val):
    """(M, μ, v, w = v + ε) of one row, exact (80 digits) from the float64 entries; eps_val an
    mpf or float (the ε pyref uses)."""
    with mpmath.workdps(80):
        x = [mpmath.mpf(float(t)) for t in r]
        n = len(x)
        mu = mpmath.fsum(x) / n
        v = mpmath.fsum([(t - mu) ** 2 for t in x]) / n
        return max(abs(t) for t in x), mu, v, v + mpmath.mpf(eps_val)


def _eps0_row_ok(r, n, backend) -> bool:
    """A row on which the ε = 0 statements are checked: var > 0 exactly, γ_{n+6}·M/√var ≤ 1e-3 (the
    validity condition of the derived bound) and, in float64, var ≥ 1e-290 (no underflow: rows of
    tiny entries whose float64 variance flushes to 0 are outside the γ-model; pyref divides by
    0)."""
    M, _mu, v, _w = _row_exact(r, 0.0)
    if not v > 0 or (backend != "mp" and v < mpmath.mpf("1e-290")):
        return False
    with mpmath.workdps(80):
        return bool(gamma(n + 6) * M / mpmath.sqrt(v) <= mpmath.mpf("1e-3"))


def _ln_T(n, R):
    """Per-entry scale of the LayerNorm error: |û_i − u*_i| ≤ γ_{n+4}·3√n(R + 2), R = M/√(var+ε)
    (derivation in ``layernorm_norm_identity``)."""
    return 3.0 * math.sqrt(n) * (R + 2.0)


def _ln(b, Y, e, backend, dps):
    """pyref's ``layer_norm`` of the rows Y with γ = 1, β = 0 (explicit arrays) and ε = e."""
    n = Y.shape[-1]
    with b.context():
        ones, zeros = b.asarray(np.ones(n)), b.asarray(np.zeros(n))
    return pyref.layers.layer_norm(Y, ones, zeros, eps=e, backend=backend, dps=dps)


def _ln_stat_devs(b, Xb, Xs, Xk, cb, kb):
    """The Lean row statistics (μ = Σr/n, var = Σ(r − μ)²/n) with pyref's formulas: the
    deviations of rowMean_shift, rowVar_shift, rowMean_smul, rowVar_smul (float64 arrays over
    rows) and the largest negative variance."""
    n = Xb.shape[-1]
    with b.context():
        def stats(Y):
            mu = np.sum(Y, axis=-1) / n
            xc = Y - mu[:, None]
            return mu, np.sum(xc * xc, axis=-1) / n
        mu, var = stats(Xb)
        mu_s, var_s = stats(Xs)
        mu_k, var_k = stats(Xk)
        d_mean_s = to_float64(np.abs(mu_s - (mu + cb)))
        d_var_s = to_float64(np.abs(var_s - var))
        d_mean_k = to_float64(np.abs(mu_k - kb * mu))
        d_var_k = to_float64(np.abs(var_k - kb * kb * var))
        neg_var = max(0.0, -float(np.min(to_float64(var))))
    return (d_mean_s, d_var_s, d_mean_k, d_var_k), neg_var


def _ln_sq_bound(backend, k, n, R):
    """The bound on |Σû² − Σu*²| (k roundings per entry, R = M/√w)."""
    return bound(backend, k, 1.01 * n * math.sqrt(n) * _ln_T(n, R))


def _ln_norm_parts(backend, i, u_row, v, w, R):
    """sum_sq_normalize, sum_sq_normalize_lt and sum_normalize_eq_zero on row i (u_row =
    LN_ε(r))."""
    n = len(u_row)
    with mpmath.workdps(80):
        u_ = _mp(u_row)
        sumsq, s1 = mpmath.fsum(t * t for t in u_), mpmath.fsum(u_)
        target = n * v / w
        return [(f"sum_sq_normalize row {i}", _f(abs(sumsq - target)),
                 _ln_sq_bound(backend, n + 4, n, R)),
                (f"sum_sq_normalize_lt row {i}", _f(max(mpmath.mpf(0), sumsq - n)),
                 _ln_sq_bound(backend, n + 4, n, R)),
                (f"sum_normalize_eq_zero row {i}", _f(abs(s1)),
                 bound(backend, n + 4, n * (_ln_T(n, R) + 2)))]


def _ln_stat_parts(backend, i, devs, Mf, vf, c, k, n):
    """rowMean_shift, rowVar_shift, rowMean_smul and rowVar_smul on row i (devs: its deviations)."""
    d_mean_s, d_var_s, d_mean_k, d_var_k = devs
    Ms = Mf + abs(c)
    g = gamma(n + 8)
    return [(f"rowMean_shift row {i}", float(d_mean_s), _ub(backend, n + 3, Ms)),
            (f"rowVar_shift row {i}", float(d_var_s),
             _ub(backend, n + 8, 2 * Ms * math.sqrt(vf) + 2 * vf + g * Ms ** 2)),
            (f"rowMean_smul row {i}", float(d_mean_k), _ub(backend, n + 3, k * Mf)),
            (f"rowVar_smul row {i}", float(d_var_k),
             _ub(backend, n + 8, k * k * (2 * Mf * math.sqrt(vf) + 2 * vf + g * Mf ** 2)))]


def _ln_eps0_parts(b, backend, i, u0_row, uk0_row, M, v):
    """lnEps_scale_eps_zero and sum_sq_normalize_eps_zero on row i (LN₀(r), LN₀(k r); var > 0)."""
    n = len(u0_row)
    with mpmath.workdps(80):
        R0 = _f(M / mpmath.sqrt(v))
    with b.context():
        parts = [(f"lnEps_scale_eps_zero row {i}", maxabs(uk0_row - u0_row),
                  bound(backend, n + 6, _ln_T(n, R0)))]
    with mpmath.workdps(80):
        s0 = mpmath.fsum(t * t for t in _mp(u0_row))
        parts.append((f"sum_sq_normalize_eps_zero row {i}", _f(abs(s0 - n)),
                      _ln_sq_bound(backend, n + 4, n, R0)))
    return parts


def _ln_scale_parts(b, backend, i, rows, exact, eps_val, k, R):
    """ε > 0 breaks scale invariance on row i: Σ LN(k r)² = n k²v/(k²v + ε) ≠ n v/(v + ε) when
    var > 0 (rows = (LN_ε(r), LN_ε(k r)), exact = (M, v, w) of r)."""
    u_row, uk_row = rows
    M, v, w = exact
    n = len(u_row)
    with mpmath.workdps(80):
        target = n * v / w
        kk = mpmath.mpf(k) ** 2
        wk = kk * v + mpmath.mpf(eps_val)
        Rk = _f(mpmath.mpf(k) * M / mpmath.sqrt(wk))
        Bk = _ln_sq_bound(backend, n + 6, n, Rk)
        B1 = _ln_sq_bound(backend, n + 4, n, R)
        sk = mpmath.fsum(t * t for t in _mp(uk_row))
        parts = [(f"sum_sq_normalize (scaled) row {i}", _f(abs(sk - n * kk * v / wk)), Bk)]
        gap = abs(n * kk * v / wk - target)
    if v > 0 and gap > 2 * (B1 + Bk):                 # the exact rows differ: pyref's must too
        with b.context():
            differ = maxabs(uk_row - u_row) > 0
        parts.append((f"normalize_not_scale_invariant row {i}", 0.0 if differ else 1.0, 0.0))
    return parts


@prop(theorems=["PLGA.LayerNorm.sum_sq_normalize", "PLGA.LayerNorm.sum_normalize_eq_zero",
                "PLGA.LayerNorm.sum_sq_normalize_lt", "PLGA.LayerNorm.sum_sq_normalize_eps_zero",
                "PLGA.LayerNorm.lnEps_shift", "PLGA.LayerNorm.rowMean_shift",
                "PLGA.LayerNorm.rowVar_shift", "PLGA.LayerNorm.lnEps_scale_eps_zero",
                "PLGA.LayerNorm.normalize_not_scale_invariant", "PLGA.LayerNorm.rowMean_smul",
                "PLGA.LayerNorm.rowVar_smul", "PLGA.LayerNorm.rowVar_nonneg"],
      paper="Lem 5.11 (ε-LayerNorm: norm identity, centring, shift invariance, scale invariance "
            "only at ε = 0)",
      strategy=ln_case)
def layernorm_norm_identity(ex, backend, dps):
    """On ``pyref.layers.layer_norm`` with γ = 1, β = 0 (explicit arrays), row by row (r of
    length n, ε > 0 drawn from 1e-9 … 0.5, shift c, scale k > 0, k ≠ 1):

    * ``sum_sq_normalize``: Σ_i û_i² = n·var/(var + ε) (right side exact from the float64 row);
      ``sum_sq_normalize_lt``: Σ û² < n; ``sum_normalize_eq_zero``: Σ û = 0;
    * ``lnEps_shift``: LN(r + c) = LN(r) (the shifted row formed in the backend);
    * ``lnEps_scale_eps_zero``: LN₀(k r) = LN₀(r) and ``sum_sq_normalize_eps_zero``: Σ LN₀(r)² = n,
      on rows with var > 0 (pyref at eps = 0);
    * ``normalize_not_scale_invariant``: Σ LN_ε(k r)² is checked against n k²v/(k²v + ε); when the
      predicted gap to n v/(v + ε) exceeds both error bounds, the normalized rows are certified
      different (a measurable gap on small-variance rows; at 50 digits on every positive-variance
      row);
    * the row statistics of the Lean definitions (μ = Σr/n, var = Σ(r − μ)²/n, evaluated with the
      same formulas and operations as pyref's ``_layer_norm``): ``rowMean_shift`` μ(r + c) = μ(r) +
      c, ``rowVar_shift``, ``rowMean_smul`` μ(k r) = k μ(r), ``rowVar_smul`` var(k r) = k² var(r),
      ``rowVar_nonneg`` (exact: a sum of squares).

    Would fail for LN = (r − μ)/(√var + ε) (the ε-outside-the-root bug): Σû² then equals
    n·var/(√var + ε)², off by ≈ n·ε(2√var − 1)/var, far above the bounds.

    float64 bound (per row, u = 2⁻⁵³, M = max|r|, w = var + ε exact, R = M/√w): pyref's mean is
    within γ_{n+2}M, the centred entries within e = γ_{n+4}M, |r_i − μ| ≤ √(n·var); the computed
    variance is within e(2√v + e) + γ_{n+1}v, so √(var + ε) has relative error ≤ γ_{n+4}(R + 2) (to
    first order) and |û_i − u*_i| ≤ γ_{n+4}·3√n(R + 2) =: γ·T_u. Hence |Σû² − Σu*²| ≤ 2.01√n·n·γT_u
    (Σû² is summed exactly), |Σû| ≤ nγ(T_u + 2); two evaluations on rows whose rounding adds ≤ u·(M
    + |c|) per entry (shift) or u·kM (scale, ε = 0, R = M/√var) differ by ≤ 2γ_{n+6}·3√n(R' + 2).
    The means and variances: 2γ_{n+3}·(M + |c|) resp. kM, and 2γ_{n+8}·s²(2M'√v + 2v + γM'²). Valid
    while γ_{n+6}R ≤ 1e-3 (always for ε > 0 in these ranges; rows violating it, e.g. at ε = 0 a row
    of subnormal entries whose variance underflows, are not checked). mp: the harness' 1e-40 times
    the same scales; and every row equals the Lean ``normalize`` (ε decimal) evaluated
    independently (:mod:`crosscheck.spec_eval.model`, a formula anchor with the LayerNorm scale of
    ``dense_layers_match_spec``)."""
    X, eps, c, k = ex
    m, n = X.shape
    b = pyref.get_backend(backend, dps)
    with b.context():
        eps_b = b.const(eps)                                   # the ε pyref uses (mp: decimal)
        Xb, cb, kb = conv(backend, dps, X, np.array(c), np.array(k))
        Xs = Xb + cb                                           # shifted rows, backend arithmetic
        Xk = Xb * kb                                           # scaled rows, backend arithmetic
    U, Us, Uk = (_ln(b, Y, eps, backend, dps) for Y in (Xb, Xs, Xk))
    pos = [i for i in range(m) if _eps0_row_ok(X[i], n, backend)]             # ε = 0 needs var > 0
    U0 = dict(zip(pos, _ln(b, Xb[pos], 0.0, backend, dps))) if pos else {}
    Uk0 = dict(zip(pos, _ln(b, Xk[pos], 0.0, backend, dps))) if pos else {}
    devs, neg_var = _ln_stat_devs(b, Xb, Xs, Xk, cb, kb)
    eps_val = eps_b if b.is_object else eps
    parts = [("rowVar_nonneg", neg_var, 0.0)]
    checked = 0
    for i in range(m):
        M, _mu, v, w = _row_exact(X[i], eps_val)
        Mf, vf, wf = _f(M), _f(v), _f(w)
        R = Mf / math.sqrt(wf)
        Rs = (Mf + abs(c)) / math.sqrt(wf)
        if gamma(n + 6) * Rs > 1e-3:  # outside the derived bound's validity
            continue
        checked += 1
        parts += _ln_norm_parts(backend, i, U[i], v, w, R)
        with b.context():
            parts.append((f"lnEps_shift row {i}", maxabs(Us[i] - U[i]),
                          bound(backend, n + 6, _ln_T(n, Rs))))
        parts += _ln_stat_parts(backend, i, [d[i] for d in devs], Mf, vf, c, k, n)
        if i in U0:
            parts += _ln_eps0_parts(b, backend, i, U0[i], Uk0[i], M, v)
        parts += _ln_scale_parts(b, backend, i, (U[i], Uk[i]), (M, v, w), eps_val, k, R)
    ch = Checks()
    anchor(ch, "layer_norm rows", backend, dps, U,
           lambda: [ev.normalize(const(eps), r) for r in mat(X)],
           ln_scale(X, np.ones(n), np.zeros(n), eps))
    return combine(parts + ch.items, met=checked > 0)


# ======================================== 2. the ε-LayerNorm scale error (Lem 5.11(ii))
@st.composite
def ln_scale_case(draw):
    """Rows X (m × n), ε, a power-of-two scale c (so c·r is exact in float64; c ≤ 1 is the
    D/S direction of spec §A.4, c > 1 the converse), affine γ, β."""
    n = draw(st.integers(1, 12))
    m = draw(st.integers(1, 4))
    X = draw(matrix(m, n, magnitude=LN_MAG))
    eps = draw(st.sampled_from([1e-6, 1e-3, 1e-9, 0.5]))
    c = draw(st.sampled_from([0.5, 0.25, 2.0 ** -10, 2.0, 8.0, 1.0]))
    g = draw(matrix(1, n, magnitude=st.sampled_from([1.0, 3.0]), structure=False))[0]
    bt = draw(matrix(1, n, magnitude=st.sampled_from([0.0, 1.0]), structure=False))[0]
    return X, eps, c, g, bt


def _scale_exact(r, eps_val, c):
    """Exact (80 digits) per-row quantities of Lem 5.11(ii) for the float64 row r: û (the
    ε-normalized row), κ = ε(c² − 1)/(c² v + ε), ρ = √(c²v + ε)/(c√(v + ε) + √(c²v + ε)), the
    bound ε/(c² v + ε) of ``absv_scaleErr_le``, (M, v, w = v + ε, c²v + ε) and the proxy
    p = ε/(2 var(c r)) = ε/(2c²v) (None when v = 0)."""
    M, mu, v, w = _row_exact(r, eps_val)
    with mpmath.workdps(80):
        e, cm = mpmath.mpf(eps_val), mpmath.mpf(c)
        wc = cm * cm * v + e
        u = [(mpmath.mpf(float(t)) - mu) / mpmath.sqrt(w) for t in r]
        kappa = e * (cm * cm - 1) / wc
        rho = mpmath.sqrt(wc) / (cm * mpmath.sqrt(w) + mpmath.sqrt(wc))
        prox = e / (2 * cm * cm * v) if v > 0 else None
        return u, kappa, rho, e / wc, (M, v, w, wc), prox


def _scale_row_parts(backend, i, rows, ex, gb):
    """normalize_smul_sub_eq, absv_normalize_smul_sub_le, sum_sq_normalize_smul_sub_le and
    absv_lnEps_smul_sub_le on row i. rows = (LN(r), LN(c r), LN_γβ(r), LN_γβ(c r)) from pyref."""
    u, kappa, rho, _, (M, v, w, wc), prox = ex
    g, bt, c = gb
    n = len(u)
    R, Rc = _f(M / mpmath.sqrt(w)), _f(mpmath.mpf(c) * M / mpmath.sqrt(wc))
    delta = bound(backend, n + 5, _ln_T(n, R) + _ln_T(n, Rc))
    with mpmath.workdps(80):
        U, Uc, G, Gc = (_mp(x) for x in rows)
        D = [Uc[j] - U[j] for j in range(n)]
        ident = max(abs(D[j] - u[j] * kappa * rho) for j in range(n))
        ent = max(max(mpmath.mpf(0), abs(D[j]) - abs(u[j]) * abs(kappa)) for j in range(n))
        ss = mpmath.fsum(t * t for t in D)
        target = kappa * kappa * n * v / w
        tol_ss = 2 * math.sqrt(n) * _f(mpmath.sqrt(max(ss, target))) * delta + n * delta ** 2
        aff = []
        for j in range(n):
            gj, bj = abs(float(g[j])), abs(float(bt[j]))
            tol = gj * delta + bound(backend, 3, gj * 2 * (R + Rc) + 2 * bj)
            dev = max(mpmath.mpf(0), abs(Gc[j] - G[j]) - gj * abs(u[j]) * abs(kappa))
            aff.append(_f(dev) - tol)
        out = []
        if prox is not None and c <= 1:
            ent_p = max(max(mpmath.mpf(0), abs(D[j]) - abs(u[j]) * prox) for j in range(n))
            su = mpmath.fsum(t * t for t in u)
            tol_p = 2 * math.sqrt(n) * _f(mpmath.sqrt(max(ss, prox * prox * su))) * delta
            out = [(f"absv_scaleErr_mul_damp_le row {i}",
                    _f(max(mpmath.mpf(0), abs(kappa * rho) - prox)), 0.0),
                   (f"absv_normalize_smul_sub_le_proxy row {i}", _f(ent_p), delta),
                   (f"sum_sq_normalize_smul_sub_le_proxy row {i}",
                    _f(max(mpmath.mpf(0), ss - prox * prox * su)), tol_p + n * delta ** 2)]
        damp = max(mpmath.mpf(0), -rho, rho - 1)
        return out + [(f"scaleDamp_mem row {i}", _f(damp), 0.0),
                      (f"normalize_smul_sub_eq row {i}", _f(ident), delta),
                (f"absv_normalize_smul_sub_le row {i}", _f(ent), delta),
                (f"sum_sq_normalize_smul_sub_le row {i}", _f(max(mpmath.mpf(0), ss - target)),
                 tol_ss),
                (f"absv_lnEps_smul_sub_le row {i}", max(0.0, max(aff)), 0.0)]


def _scale_err_parts(backend, X, ex_rows, c, gb):
    """absv_scaleErr_le (c ≤ 1): |κ| ≤ ε/(c²v + ε) exactly, and (float64) against pyref's audit
    statistic ``ln_scale_error`` with S = 1/c: its abs_l2 is ≤ |κ|·√(Σ γ_i² û_i²) (from
    absv_lnEps_smul_sub_le) and |κ| ≤ 2·proxy (proxy = ε/(2 var(r/S)), up to np.var's rounding);
    and sum_sq_normalize_smul_sub_le_proxy against its rel_l2 (``_proxy_audit_part``)."""
    parts = []
    for i, ex in enumerate(ex_rows):
        if ex is None:
            continue
        u, kappa, _, kb, _, _ = ex
        parts.append((f"absv_scaleErr_le row {i}", _f(max(mpmath.mpf(0), abs(kappa) - kb)), 0.0))
    if backend == "mp" or c >= 1.0:
        return parts
    g, bt, eps = gb
    S = int(round(1 / c))
    stat = pyref.analysis.ln_scale_error(X, g, bt, S, eps=eps)
    n = X.shape[1]
    rel = pyref.analysis.ln_scale_error(X, np.ones(n), np.zeros(n), S, eps=eps)["rel_l2"]
    for i, ex in enumerate(ex_rows):
        if ex is None:
            continue
        u, kappa, _, _, (M, v, w, wc), prox = ex
        parts += _proxy_audit_part(i, u, prox, float(rel[i]), (M, w, wc, S))
        R, Rc = _f(M / mpmath.sqrt(w)), _f(M / S / mpmath.sqrt(wc))
        gmax = float(np.max(np.abs(g)))
        tol = math.sqrt(n) * (gmax * bound("float64", n + 5, _ln_T(n, R) + _ln_T(n, Rc))
                              + bound("float64", 3, gmax * 2 * (R + Rc) + 2 * np.max(np.abs(bt))))
        with mpmath.workdps(80):
            rhs = abs(kappa) * mpmath.sqrt(mpmath.fsum((mpmath.mpf(float(g[j])) * u[j]) ** 2
                                                       for j in range(n)))
            dev = max(mpmath.mpf(0), mpmath.mpf(float(stat["abs_l2"][i])) - rhs)
            prox = mpmath.mpf(float(stat["proxy"][i]))
            # np.var's relative error (scale invariant, so M, v of r serve for r/S):
            # e(2√v + e)/v + γ_{n+1} with e = γ_{n+4}M, plus γ_3 for ε/(2·var)
            e_ = gamma(n + 4) * M
            eta = (e_ * (2 * mpmath.sqrt(v) + e_) / v if v > 0 else mpmath.inf) + gamma(n + 4)
            pdev = max(mpmath.mpf(0), abs(kappa) - 2 * prox * (1 + eta))
        parts += [(f"ln_scale_error abs_l2 ≤ |κ|·‖γ⊙û‖ row {i}", _f(dev), 1.01 * tol + 1e-300),
                  (f"|κ| ≤ 2·proxy row {i}", _f(pdev), 0.0)]
    return parts


def _proxy_audit_part(i, u, prox, rel, scales):
    """sum_sq_normalize_smul_sub_le_proxy against pyref's audit: rel_l2 = ‖Δ‖/‖LN(r)‖ (γ = 1,
    β = 0) ≤ p = ε/(2 var(r/S)), exact p. Tolerance: ‖Δ‖ and ‖LN(r)‖ are each within √n·δ of
    their exact values (δ the entry bound of ``_scale_row_parts``), plus γ_{n+3} relative for the
    audit's sums, sqrt and division; rows with ‖û‖ ≤ 4√n·δ are skipped (the ratio is then
    ill-conditioned)."""
    if prox is None:
        return []
    M, w, wc, S = scales
    n = len(u)
    R, Rc = _f(M / mpmath.sqrt(w)), _f(M / S / mpmath.sqrt(wc))
    sd = math.sqrt(n) * bound("float64", n + 5, _ln_T(n, R) + _ln_T(n, Rc))
    with mpmath.workdps(80):
        nu = _f(mpmath.sqrt(mpmath.fsum(t * t for t in u)))
        if nu <= 4 * sd:
            return []
        p = _f(prox)
        tol = (sd * (1 + p)) / (nu - sd) + gamma(n + 3) * (rel + p)
    return [(f"ln_scale_error rel_l2 ≤ proxy row {i}", max(0.0, rel - p), tol)]


@prop(theorems=["PLGA.LayerNorm.normalize_smul_sub_eq", "PLGA.LayerNorm.scaleDamp_mem",
                "PLGA.LayerNorm.absv_normalize_smul_sub_le",
                "PLGA.LayerNorm.sum_sq_normalize_smul_sub_le",
                "PLGA.LayerNorm.absv_lnEps_smul_sub_le", "PLGA.LayerNorm.absv_scaleErr_le",
                "PLGA.LayerNorm.absv_scaleErr_mul_damp_le",
                "PLGA.LayerNorm.absv_normalize_smul_sub_le_proxy",
                "PLGA.LayerNorm.sum_sq_normalize_smul_sub_le_proxy"],
      paper="Lem 5.11(ii) (quantitative ε-LayerNorm scale error)",
      strategy=ln_scale_case,
      no_arb="its tolerances combine round-off allowances nonlinearly (δ², √) and compare "
             "80-digit point values; pyref's LayerNorm itself runs on arb in "
             "layernorm_norm_identity")
def layernorm_scale_error(ex, backend, dps):
    """``pyref.layers.layer_norm`` of rows r and c·r (c a power of two, so c·r is exact), ε > 0,
    against the exact (80-digit) right sides of Lem 5.11(ii) built from the float64 row
    (û = (r − μ)/√(v + ε), κ = ε(c² − 1)/(c²v + ε), ρ = √(c²v + ε)/(c√(v + ε) + √(c²v + ε))):

    * ``normalize_smul_sub_eq``: LN(c r)_i − LN(r)_i = û_i κ ρ, and ``scaleDamp_mem``: 0 ≤ ρ ≤ 1
      (exact);
    * ``absv_normalize_smul_sub_le``: |LN(c r)_i − LN(r)_i| ≤ |û_i| |κ|;
    * ``sum_sq_normalize_smul_sub_le``: Σ_i (LN(c r)_i − LN(r)_i)² ≤ κ² n v/(v + ε);
    * ``absv_lnEps_smul_sub_le``: with pyref's affine γ, β: |Δ_i| ≤ |γ_i| |û_i| |κ|;
    * ``absv_scaleErr_le`` (c ≤ 1): |κ| ≤ ε/(c²v + ε) (exact), and in float64 against pyref's
      audit ``pyref.analysis.ln_scale_error`` (S = 1/c): abs_l2 ≤ |κ|·‖γ ⊙ û‖ and |κ| ≤ 2·proxy;
    * the proxy form (c ≤ 1, v > 0, p = ε/(2c²v) exact): ``absv_scaleErr_mul_damp_le`` |κρ| ≤ p,
      ``absv_normalize_smul_sub_le_proxy`` |Δ_i| ≤ |û_i| p, ``sum_sq_normalize_smul_sub_le_proxy``
      Σ Δ² ≤ p² Σ û², and pyref's audit rel_l2 (γ = 1, β = 0) ≤ p.

    Bounds: each pyref LN entry is within γ_{n+4}·T_u (T_u = 3√n(R + 2), see
    ``layernorm_norm_identity``) of its exact value, R = M/√(v + ε) for r and cM/√(c²v + ε) for
    c r; the difference of two entries is therefore within δ = 2γ_{n+5}(T_u(R) + T_u(R_c)) (one
    more rounding for the subtraction); Σ Δ² within 2√n‖Δ‖δ + nδ²; the affine entries add
    2γ_3(|γ_i|·2(R + R_c) + 2|β_i|) for γ_i·û_i + β_i; the audit's L2 norm adds √n times the entry
    bound (1% for its own sum and sqrt); the proxy uses np.var (relative error ≤ γ_{n+4}). mp:
    1e-40 times the same scales. Rows outside the validity condition γ_{n+6}R ≤ 1e-3 of the LN
    bound are skipped. Would fail with κ halved (the identity) or with ε outside the root."""
    X, eps, c, g, bt = ex
    m, n = X.shape
    b = pyref.get_backend(backend, dps)
    with b.context():
        eps_b = b.const(eps)
        Xb, cb = conv(backend, dps, X, np.array(c))
        Xc = Xb * cb
        gb_, bb_ = b.asarray(g), b.asarray(bt)
    U, Uc = (_ln(b, Y, eps, backend, dps) for Y in (Xb, Xc))
    G, Gc = (pyref.layers.layer_norm(Y, gb_, bb_, eps=eps, backend=backend, dps=dps)
             for Y in (Xb, Xc))
    eps_val = eps_b if b.is_mp else eps
    parts, rows = [], []
    for i in range(m):
        e = _scale_exact(X[i], eps_val, c)
        M, v, w, wc = e[4]
        if gamma(n + 6) * _f(max(M / mpmath.sqrt(w), c * M / mpmath.sqrt(wc))) > 1e-3:
            rows.append(None)
            continue
        rows.append(e if c <= 1 else None)
        parts += _scale_row_parts(backend, i, (U[i], Uc[i], G[i], Gc[i]), e, (g, bt, c))
    parts += _scale_err_parts(backend, X, rows, c, (g, bt, eps))
    return combine(parts, met=bool(parts))
