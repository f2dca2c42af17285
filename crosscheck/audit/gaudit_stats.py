"""The statistics of ``plga audit-g``: what the paper measures of G_LM (spec D), per layer and
head of a constant-operator list, in float64 -- the singular spectrum, σ₂/σ₁ and ranks, the
RoPE commutant and commutator residuals, symmetry, positivity, trace and determinant -- plus a
Perron report with its interval certificate where the operator is entrywise positive (the
same :func:`~crosscheck.audit.highprec.perron_report` as ``plga audit``), and the summaries
by layer."""

from __future__ import annotations

import math

import numpy as np

from pyref import analysis

from .highprec import run_hp_tasks
from .records import set_null, set_stat, summarize

F64_EPS = float(np.finfo(np.float64).eps)
#: det sign from float64 LU is trusted when σ_min/σ₁ exceeds this × d_k: LU with partial
#: pivoting returns the exact factors of G + E with ‖E‖₂ ≲ d_k·eps·g·‖G‖₂ (growth factor g,
#: assumed ≤ 64); when ‖E‖₂ < σ_min no matrix on the segment G + tE is singular, so the sign
#: of det(L̂Û) (a product of signs: exact) is the sign of det G.
DET_SIGN_RTOL = 64 * F64_EPS

#: bound on the float64 ρ(G) of an exact commutant element G (block diagonal ⊕ c·1 + s·J, e.g.
#: I): each entry of GU and of U*(GU) has at most two nonzero products (G and U are 2×2 block
#: diagonal), a complex sum of two products has relative error < 4u (u = eps/2; FMA or not),
#: so |fl(G_c) − G_c| ≤ 8u·|U*||G||U| + O(u²) elementwise; ‖|U*||G||U|‖_F ≤ ‖|U|‖₂²‖G‖_F
#: = 2‖G‖_F (|U| = ⊕ ones(2,2)/√2) and ‖G_c‖_F = ‖G‖_F, hence ρ ≤ 16u = 8·eps; doubled for
#: the O(u²) terms and the rounding of the norms.  (ρ(I) is 1.9e-17, not 0, with FMA.)
COMMUTANT_ROUNDING = 16 * F64_EPS

#: one line per statistic (the Markdown's legend; also in audit-g.json)
DEFINITIONS = {
    "singular_values": "σ₁ ≥ … ≥ σ_d of G (float64 SVD), the full spectrum in audit-g.json.",
    "sigma2_over_sigma1": "σ₂/σ₁: 0 for a rank-one G, 1 when the top two singular values tie "
                          "(e.g. G = I).",
    "numerical_rank": "#{σ > 64·eps_f32·σ₁}, the threshold of plga audit.",
    "effective_rank": "exp(entropy of σ/Σσ) (Roy–Vetterli): 1 for rank one, d_k for equal "
                      "singular values.",
    "stable_rank": "‖G‖_F²/σ₁² ∈ [1, rank].",
    "condition_number": "σ₁/σ_d (null when σ_d = 0 in float64).",
    "commutant_residual": "ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F in the complex RoPE eigenbasis (spec "
                          "D2): 0 iff G commutes with every rotation R_p, 1 with no commutant "
                          "part.",
    "commutator_residual": "‖G R₁ − R₁ G‖_F/‖G‖_F (RoPE rotation at position 1).",
    "symmetry": "‖G − Gᵀ‖_F/‖G‖_F: 0 for symmetric G, 2 for antisymmetric.",
    "positivity": "min and max entry, fraction of entries > 0; 'all positive' is the hypothesis "
                  "of the Perron report.",
    "trace": "tr G = Σ_i G_ii.",
    "log10_abs_det": "log₁₀|det G| = Σ log₁₀ σ_i (no overflow or underflow; null if some "
                     "σ_i = 0).",
    "det_sign": "sign of det G from float64 LU, reported only when σ_d/σ₁ > 64·d_k·eps_f64 "
                "(then rounding cannot flip it).",
    "perron": "for an entrywise-positive G: Perron root at hp_dps digits with a rigorous "
              "Collatz–Wielandt enclosure and Hopf's bound on the other eigenvalues (as in "
              "plga audit).",
}

#: the per-head scalar statistics summarized by layer (mean/min/max over heads)
SUMMARIZED = ("sigma1", "sigma2_over_sigma1", "numerical_rank", "effective_rank", "stable_rank",
              "condition_number", "commutant_residual", "commutator_residual", "symmetry",
              "min_entry", "max_entry", "fraction_positive", "trace", "log10_abs_det")


# ================================================================================ per head
def _spectrum(rec: dict, G: np.ndarray) -> np.ndarray:
    """Singular values and the statistics computed from them ([d] descending)."""
    s = np.linalg.svd(G, compute_uv=False)
    rec["singular_values"] = [float(x) for x in s]
    rec["sigma1"] = float(s[0])
    set_stat(rec, "sigma2_over_sigma1", analysis.singular_ratio, G)
    rec["numerical_rank"] = int(analysis.numerical_rank(G))
    if s[0] == 0:
        for k in ("effective_rank", "stable_rank", "condition_number"):
            set_null(rec, k, "G = 0")
        return s
    p = s / s.sum()
    nz = p[p > 0]
    rec["effective_rank"] = float(math.exp(-np.sum(nz * np.log(nz))))
    rec["stable_rank"] = float(np.sum((s / s[0]) ** 2))
    if s[-1] > 0:
        rec["condition_number"] = float(s[0] / s[-1])
    else:
        set_null(rec, "condition_number", "σ_min = 0 in float64 (singular)")
    return s


def _determinant(rec: dict, G: np.ndarray, s: np.ndarray) -> None:
    """tr G, log₁₀|det G| from the singular values, and the sign of det G when it is safe."""
    rec["trace"] = float(np.trace(G))
    if s[-1] == 0:
        set_null(rec, "log10_abs_det", "σ_min = 0 in float64: det G is 0 or below resolution")
        set_null(rec, "det_sign", "σ_min = 0 in float64")
        return
    rec["log10_abs_det"] = float(np.sum(np.log10(s)))
    d = G.shape[-1]
    if s[-1] > DET_SIGN_RTOL * d * s[0]:
        sign, _ = np.linalg.slogdet(G)
        rec["det_sign"] = int(sign)
    else:
        set_null(rec, "det_sign", f"σ_min/σ₁ = {s[-1] / s[0]:.3g} ≤ 64·d_k·eps_f64: float64 LU "
                                  "cannot decide the sign")


def _symmetry(G: np.ndarray) -> float:
    n = np.linalg.norm(G)
    if n == 0:
        raise ValueError("G = 0: the symmetry ratio is undefined")
    return float(np.linalg.norm(G - G.T) / n)


def _positivity(rec: dict, G: np.ndarray) -> None:
    rec["min_entry"] = float(G.min())
    rec["max_entry"] = float(G.max())
    rec["mean_entry"] = float(G.mean())
    rec["fraction_positive"] = float(np.mean(G > 0))
    rec["nonpositive_entries"] = int(np.sum(G <= 0))
    rec["all_positive"] = bool(rec["fraction_positive"] == 1.0)


def head_stats(G: np.ndarray, rope_base: float) -> dict:
    """Every float64 statistic of one operator G [d_k, d_k] (Perron excluded)."""
    rec: dict = {}
    s = _spectrum(rec, G)
    set_stat(rec, "commutant_residual", analysis.commutant_residual, G, rope_base)
    set_stat(rec, "commutator_residual", analysis.commutator_residual, G, rope_base)
    set_stat(rec, "symmetry", _symmetry, G)
    rec["frobenius_norm"] = float(np.linalg.norm(G))
    _positivity(rec, G)
    _determinant(rec, G, s)
    rec["is_identity"] = bool(np.array_equal(G, np.eye(G.shape[-1])))
    return rec


def per_head_stats(G_list: list, rope_base: float) -> list:
    """Records {layer, head, …statistics} for every layer l and head h of ``G_list``
    (each [H, d_k, d_k] float64)."""
    return [{"layer": li, "head": h, **head_stats(G[h], rope_base)}
            for li, G in enumerate(G_list) for h in range(G.shape[0])]


# ================================================================================== Perron
def _not_positive_reason(rec: dict, d_k: int) -> str:
    return (f"has {rec['nonpositive_entries']} non-positive entries of {d_k * d_k} "
            f"(min {rec['min_entry']:.6g}): Perron–Frobenius for positive matrices does not "
            "apply")


def add_perron(per_head: list, G_list: list, dps: int, enabled: bool, jobs: int,
               show_progress: bool) -> dict:
    """Fill ``rec['perron']`` of every head: the Perron report of an entrywise-positive G (in
    ``jobs`` processes), else null with the reason; returns the section summary."""
    d_k = G_list[0].shape[-1]
    tasks = []
    for rec in per_head:
        if not enabled:
            set_null(rec, "perron", "--no-perron")
        elif not rec["all_positive"]:
            set_null(rec, "perron", _not_positive_reason(rec, d_k))
        else:
            tasks.append((0, rec["layer"], rec["head"], G_list[rec["layer"]][rec["head"]], dps,
                          True, False))
    results = run_hp_tasks(tasks, jobs, show_progress) if tasks else []
    by_key = {(r["layer"], r["head"]): r for r in results}
    for rec in per_head:
        r = by_key.get((rec["layer"], rec["head"]))
        if r is not None:
            rec["perron"] = {**r["perron"], "seconds": r["seconds"]}
    certified = sum(1 for r in results if r["perron"].get("certified") is True)
    return {"computed": enabled, "reason": None if enabled else "--no-perron", "dps": dps,
            "applicable": len(tasks), "not_applicable": len(per_head) - len(tasks),
            "certified": certified, "inconclusive": len(tasks) - certified,
            "seconds_per_head": summarize([r["seconds"] for r in results])}


# =============================================================================== summaries
def _perron_root(rec: dict):
    p = rec.get("perron")
    return p.get("root_float") if p else None


def by_layer(per_head: list, L: int) -> list:
    """mean/min/max over heads of every statistic in :data:`SUMMARIZED`, per layer, with
    counts of positive, identity and Perron-certified heads."""
    out = []
    for li in range(L):
        recs = [r for r in per_head if r["layer"] == li]
        row = {"layer": li, **{k: summarize([r.get(k) for r in recs]) for k in SUMMARIZED}}
        row["perron_root"] = summarize([_perron_root(r) for r in recs])
        row["heads"] = len(recs)
        row["heads_all_positive"] = sum(r["all_positive"] for r in recs)
        row["heads_identity"] = sum(r["is_identity"] for r in recs)
        row["heads_symmetric"] = sum(r.get("symmetry") == 0.0 for r in recs)
        row["heads_perron_certified"] = sum(
            bool(r.get("perron") and r["perron"].get("certified") is True) for r in recs)
        out.append(row)
    return out


def overall(per_head: list) -> dict:
    """mean/min/max over all layers and heads."""
    return {k: summarize([r.get(k) for r in per_head]) for k in SUMMARIZED}


def grid(per_head: list, key: str, L: int, H: int) -> list:
    """[L][H] of one statistic (None where undefined), for the heatmaps."""
    M = [[None] * H for _ in range(L)]
    for r in per_head:
        M[r["layer"]][r["head"]] = r.get(key)
    return M


def identity_check(per_head: list) -> dict:
    """For G = I: σ₂/σ₁ = 1, commutator 0 and symmetry 0 exactly, ρ ≤ :data:`COMMUTANT_ROUNDING`
    (a self-test of the pipeline on the authors' IDENTITY list); which heads are exactly I."""
    ids = [r for r in per_head if r["is_identity"]]
    exact = {"sigma2_over_sigma1": 1.0, "commutator_residual": 0.0, "symmetry": 0.0}
    failures = [{"layer": r["layer"], "head": r["head"], "statistic": k, "value": r.get(k),
                 "expected": v} for r in ids for k, v in exact.items() if r.get(k) != v]
    failures += [{"layer": r["layer"], "head": r["head"], "statistic": "commutant_residual",
                  "value": r.get("commutant_residual"), "expected": f"≤ {COMMUTANT_ROUNDING:.3g}"}
                 for r in ids if not (r.get("commutant_residual") is not None
                                      and r["commutant_residual"] <= COMMUTANT_ROUNDING)]
    return {"identity_heads": len(ids), "heads": len(per_head),
            "all_identity": len(ids) == len(per_head), "expected_exact": exact,
            "commutant_residual_bound": COMMUTANT_ROUNDING,
            "passed": not failures if ids else None, "failures": failures}


def a_lm_section(A_list: list | None) -> dict:
    """What a NAB list's A_LM holds (the audit is of G): all zeros or its range per layer."""
    if A_list is None:
        return {"present": False}
    zero = [bool(not np.any(A)) for A in A_list]
    return {"present": True, "all_zero": all(zero), "layers_all_zero": zero,
            "min": [float(A.min()) for A in A_list], "max": [float(A.max()) for A in A_list]}
