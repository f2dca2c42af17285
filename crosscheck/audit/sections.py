"""The float64 operator statistics of ``plga audit`` (spec D): the forward pass that
produces the operators, and one function per section computed from them -- rank-one
statistics, RoPE commutant/commutator residuals, DAG values, the order parameter."""

from __future__ import annotations

import math

import numpy as np

from pyref import analysis

from .records import progress, rms, set_null, set_stat, summarize

OPERATORS = ("A", "A_LM", "A_P", "G_LM")
MEAN_CANCEL_RTOL = 1e-12   # order parameter: |mean| below this × RMS counts as 0 (rounding)
ORDER_STATS = ("rmse", "m_rms", "m_signed", "m_first")


def forward_operators(model, prompts, backend, dps, show_progress=True, desc="forward",
                      done=None):
    """One uncached forward pass per prompt; per prompt a list over layers of
    {key: backend array [H, d_k, d_k]} for A, A_LM, A_P, G_LM (only G_LM for a
    constant-operator model).  ``done``: {prompt index: that pass's output}, already
    computed at this backend and dps (not run again)."""
    ops = []
    done = done or {}
    for i, p in enumerate(progress(prompts, desc=desc, enabled=show_progress)):
        out = done[i] if i in done else model.forward(np.array([p], dtype=np.int64),
                                                      backend=backend, dps=dps)
        # a constant-operator model has no A, A_LM, A_P: those keys are absent
        ops.append([{k: d[k][0] for k in OPERATORS if d[k] is not None} for d in out.deductive])
    return ops


# ============================================================================= rank one
def _rank_one_head(i, li, h, M):
    rec = {"prompt": i, "layer": li, "head": h}
    sv = np.linalg.svd(M, compute_uv=False)
    rec["singular_values"] = [float(s) for s in sv]
    set_stat(rec, "sigma2_over_sigma1", analysis.singular_ratio, M)
    rec["numerical_rank"] = int(analysis.numerical_rank(M))
    set_stat(rec, "row_variance_ratio", analysis.row_variance_ratio, M)
    return rec


def _cross_head(i, li, X, H):
    r0 = rms(X[0])
    c = {"prompt": i, "layer": li, "rms_head0": r0,
         "rms_vs_head0": [rms(X[h] - X[0]) for h in range(1, H)]}
    if r0 > 0:
        c["ratio_vs_head0"] = [x / r0 for x in c["rms_vs_head0"]]
    else:
        set_null(c, "ratio_vs_head0", "RMS(X_0) = 0")
    return c


def _rank_one_by_layer(per_head, cross, li):
    recs = [r for r in per_head if r["layer"] == li]
    cr = [c for c in cross if c["layer"] == li]
    ratios = [x for c in cr for x in (c.get("ratio_vs_head0") or [])]
    return {
        "layer": li,
        "sigma2_over_sigma1": summarize([r["sigma2_over_sigma1"] for r in recs]),
        "numerical_rank": summarize([r["numerical_rank"] for r in recs]),
        "row_variance_ratio": summarize([r["row_variance_ratio"] for r in recs]),
        "cross_head_rms": summarize([x for c in cr for x in c["rms_vs_head0"]]),
        "cross_head_ratio": summarize(ratios),
    }


def rank_one_section(ops_f64, L, H):
    res = {}
    for key in ("A", "A_LM"):
        per_head, cross = [], []
        for i, layers in enumerate(ops_f64):
            for li in range(L):
                X = layers[li][key]
                per_head += [_rank_one_head(i, li, h, X[h]) for h in range(H)]
                cross.append(_cross_head(i, li, X, H))
        res[key] = {"per_head": per_head, "cross_head": cross,
                    "by_layer": [_rank_one_by_layer(per_head, cross, li) for li in range(L)],
                    "heads_rank_one": sum(r["numerical_rank"] == 1 for r in per_head),
                    "heads_total": len(per_head)}
    return res


# ============================================================================ commutant
def commutant_section(ops_f64, L, H, rope_base):
    per_head = []
    for i, layers in enumerate(ops_f64):
        for li in range(L):
            G = layers[li]["G_LM"]
            for h in range(H):
                rec = {"prompt": i, "layer": li, "head": h}
                set_stat(rec, "commutant_residual", analysis.commutant_residual, G[h], rope_base)
                set_stat(rec, "commutator_residual", analysis.commutator_residual, G[h],
                         rope_base)
                per_head.append(rec)
    mean_m, max_m = [], []
    for li in range(L):
        mr, xr = [], []
        for h in range(H):
            s = summarize([r["commutant_residual"] for r in per_head
                           if r["layer"] == li and r["head"] == h])
            mr.append(s["mean"])
            xr.append(s["max"])
        mean_m.append(mr)
        max_m.append(xr)
    return {"per_head": per_head, "mean_over_prompts": mean_m, "max_over_prompts": max_m,
            "commutator_by_layer": [
                summarize([r["commutator_residual"] for r in per_head if r["layer"] == li])
                for li in range(L)],
            "overall": summarize([r["commutant_residual"] for r in per_head])}


# ================================================================================== DAG
def dag_section(ops_f64, L, H):
    keys = [k for k in ("A_LM", "A_P", "G_LM") if k in ops_f64[0][0]]
    per_head = []
    for i, layers in enumerate(ops_f64):
        for li in range(L):
            for h in range(H):
                rec = {"prompt": i, "layer": li, "head": h}
                for key in keys:
                    set_stat(rec, key, analysis.dag_value, layers[li][key][h])
                per_head.append(rec)
    by_layer = [{"layer": li, **{k: summarize([r[k] for r in per_head if r["layer"] == li])
                                for k in keys}} for li in range(L)]
    return {"keys": keys, "per_head": per_head, "by_layer": by_layer}


# ====================================================================== order parameter
def order_parameter_section(ops1, ops2, L):
    per, whole = [], []
    keys = [k for k in OPERATORS if k in ops1[0][0]]
    for i, (a, b) in enumerate(zip(ops1, ops2)):
        for key in keys:
            for li in range(L):
                rec = {"pair": i, "layer": li, "operator": key}
                _order_fill(rec, a[li][key], b[li][key])
                per.append(rec)
            rec = {"pair": i, "operator": key}
            _order_fill(rec, np.stack([a[li][key] for li in range(L)]),
                        np.stack([b[li][key] for li in range(L)]))
            whole.append(rec)
    mean = []
    for key in keys:
        for li in range(L):
            rs = [r for r in per if r["operator"] == key and r["layer"] == li]
            mean.append({"operator": key, "layer": li,
                         **{s: summarize([r[s] for r in rs])["mean"] for s in ORDER_STATS}})
    return {"computed": True, "per_pair": per, "whole_model": whole, "mean_over_pairs": mean}


def _order_fill(rec, X1, X2):
    try:
        op = analysis.order_parameter(X1, X2)
    except ValueError as exc:
        for k in ORDER_STATS:
            set_null(rec, k, str(exc))
        return
    a, b = np.asarray(X1, dtype=np.float64), np.asarray(X2, dtype=np.float64)
    mu1, mu2, r1, r2 = float(np.mean(a)), float(np.mean(b)), rms(a), rms(b)
    rec.update({"rmse": op.rmse, "mean_1": mu1, "mean_2": mu2, "rms_1": r1, "rms_2": r2})
    if math.isfinite(op.m_rms):
        rec["m_rms"] = op.m_rms
    else:
        set_null(rec, "m_rms", "RMS X₁ + RMS X₂ = 0")
    # a mean that is zero up to rounding (e.g. LayerNorm output with β = 0: every row sums to
    # 0) makes the signed normalizations meaningless numbers of size 1/eps: report null
    tol = MEAN_CANCEL_RTOL
    d_sig, d_rms = 0.5 * (abs(mu1) + abs(mu2)), 0.5 * (r1 + r2)
    if op.rmse == 0:
        rec["m_signed"] = rec["m_first"] = 0.0
        return
    if not math.isfinite(op.m_signed) or d_sig <= tol * d_rms:
        set_null(rec, "m_signed", f"the means cancel (up to rounding): ½(|mean X₁| + |mean X₂|) "
                                  f"= {d_sig:.3g} ≤ {tol:g}·½(RMS X₁ + RMS X₂)")
    else:
        rec["m_signed"] = op.m_signed
    if not math.isfinite(op.m_first) or abs(mu1) <= tol * r1:
        set_null(rec, "m_first", f"mean X₁ = {mu1:.3g} is zero up to rounding (≤ {tol:g}·RMS X₁)")
    else:
        rec["m_first"] = op.m_first
