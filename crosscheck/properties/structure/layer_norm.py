"""Cross-check properties of ``Formal/Structure/LayerNorm.lean``: ``layernorm_norm_identity`` and
``JUSTIFY``.

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
