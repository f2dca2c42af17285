"""``audit-g.md``: the Markdown rendering of the JSON-ready ``plga audit-g`` result -- header,
legend (one line per statistic), identity sanity check, A_LM of a NAB list, the summary by
layer, one per-head table per layer, the Perron reports and the plots."""

from __future__ import annotations

from .output import plots_markdown
from .render import _f, _table, header_md


def _mmm(s: dict, fmt=".3g") -> str:
    """A summary {mean, min, max} as "mean [min, max]"."""
    if s["n"] == 0:
        return "—"
    if s["min"] == s["max"]:
        return _f(s["mean"], fmt)
    return f"{_f(s['mean'], fmt)} [{_f(s['min'], fmt)}, {_f(s['max'], fmt)}]"


def _header(r: dict) -> list:
    f, st, t = r["file"], r["structure"], r["timing_s"]
    rows = [
        ["file", f"`{f['path']}` ({f['bytes']} bytes)"],
        ["SHA-256", f"`{f['sha256']}`"],
        ["holds", f"{st['kind']}: {st['description']}"],
        ["operators", f"L={st['layers']} layers × H={st['heads']} heads of {st['d_k']}×"
                      f"{st['d_k']} (stored shape {st['stored_shape']}, dtype "
                      f"{', '.join(st['stored_dtypes'])}; computed in float64, exact widening)"],
        ["RoPE base Θ", f"{r['rope_base']:g} ({r['rope_base_source']})"],
        ["Perron", f"{r['hp_dps']} digits" if r["perron"]["computed"] else "not computed "
                   f"({r['perron']['reason']})"],
        ["versions", ", ".join(f"{k} {v}" for k, v in r["versions"].items()
                               if k != "platform" and v)],
        ["time", f"{t['total']:.1f} s total; "
                 + ", ".join(f"{k} {v:.1f} s" for k, v in t.items() if k != "total")],
    ]
    md = header_md("PLGA G-list audit (constant operators G, spec B and D)", rows, r,
                   "What each statistic means", r["definitions"], "audit-g.json")
    return md[:-1] + ["- Per layer: mean [min, max] over heads.", md[-1]]


def _identity(r: dict) -> list:
    ic = r["identity_check"]
    exp = ", ".join(f"{k} = {v:g}" for k, v in ic["expected_exact"].items())
    md = ["", "## Sanity: the identity", "",
          f"For G = I the statistics are known exactly: {exp}, and commutant_residual = 0 up to "
          f"the rounding of the complex RoPE basis change (≤ {ic['commutant_residual_bound']:.2g} "
          "= 16·eps_f64, derived in gaudit_stats.COMMUTANT_ROUNDING); I is not entrywise positive "
          "(no Perron report), trace d_k, det 1."]
    if ic["identity_heads"] == 0:
        return md + ["", "No head of this list is exactly I."]
    what = ("Every head of this list is exactly I" if ic["all_identity"]
            else f"{ic['identity_heads']} of {ic['heads']} heads are exactly I")
    verdict = ("and every one of them gives these values (check passed)."
               if ic["passed"] else f"but {len(ic['failures'])} value(s) differ: "
               + "; ".join(f"layer {x['layer']} head {x['head']} {x['statistic']} = {x['value']}"
                           for x in ic["failures"][:10]) + " (check FAILED).")
    return md + ["", f"{what}, {verdict}"]


def _a_lm(r: dict) -> list:
    a = r["a_lm"]
    if not a["present"]:
        return []
    md = ["", "## A_LM of the [A_LM, G] pairs", ""]
    if a["all_zero"]:
        return md + ["A_LM is all zeros in every layer (the authors' negative-test "
                     "initialization); the statistics below are of G."]
    rows = [[li, _f(z), _f(lo), _f(hi)]
            for li, (z, lo, hi) in enumerate(zip(a["layers_all_zero"], a["min"], a["max"]))]
    return md + ["The statistics below are of G; A_LM per layer:", "",
                 _table(["layer", "all zero", "min", "max"], rows)]


def _summary(r: dict) -> list:
    pe = r["perron"]
    md = ["", "## Summary by layer", "",
          f"Perron: {pe['applicable']} of {pe['applicable'] + pe['not_applicable']} heads "
          f"entrywise positive, {pe['certified']} certified, {pe['inconclusive']} inconclusive.",
          ""]
    rows = [[b["layer"], _mmm(b["sigma2_over_sigma1"]), _mmm(b["effective_rank"]),
             _mmm(b["numerical_rank"], ".0f"), _mmm(b["commutant_residual"]),
             _mmm(b["commutator_residual"]), _mmm(b["symmetry"]), _mmm(b["min_entry"]),
             _mmm(b["fraction_positive"]), f"{b['heads_all_positive']}/{b['heads']}",
             f"{b['heads_perron_certified']}/{b['heads_all_positive']}",
             _mmm(b["perron_root"], ".6g")]
            for b in r["by_layer"]]
    md.append(_table(["layer", "σ₂/σ₁", "eff. rank", "num. rank", "ρ commutant", "commutator",
                      "symmetry", "min entry", "frac > 0", "positive heads", "Perron certified",
                      "Perron root"], rows))
    o = r["overall"]
    md += ["", f"All heads: σ₂/σ₁ {_mmm(o['sigma2_over_sigma1'])}, ρ "
               f"{_mmm(o['commutant_residual'])}, commutator {_mmm(o['commutator_residual'])}, "
               f"symmetry {_mmm(o['symmetry'])}."]
    return md


def _sign(x) -> str:
    return "—" if x is None else {1: "+", -1: "−", 0: "0"}[x]


def _perron_cell(x: dict) -> str:
    p = x.get("perron")
    if not p:
        return "n/a"
    return ("certified" if p.get("certified") else "inconclusive") + \
        f", {_f(p.get('root_float'), '.6g')}"


def _per_layer(r: dict) -> list:
    md = ["", "## Per layer and head", ""]
    for li in range(r["structure"]["layers"]):
        rows = [[x["head"], _f(x["sigma1"]), _f(x.get("sigma2_over_sigma1")),
                 _f(x.get("effective_rank")), x["numerical_rank"], _f(x.get("condition_number")),
                 _f(x.get("commutant_residual")), _f(x.get("commutator_residual")),
                 _f(x.get("symmetry")), _f(x["min_entry"]), _f(x["fraction_positive"]),
                 _f(x["trace"]), _f(x.get("log10_abs_det"), ".4g"), _sign(x.get("det_sign")),
                 _perron_cell(x)]
                for x in r["per_head"] if x["layer"] == li]
        md += [f"### Layer {li}", "",
               _table(["head", "σ₁", "σ₂/σ₁", "eff. rank", "num. rank", "cond", "ρ commutant",
                       "commutator", "symmetry", "min entry", "frac > 0", "trace",
                       "log₁₀|det|", "det sign", "Perron"], rows), ""]
    return md


_PERRON_TEXT = (
    "Root: shifted inverse iteration at {dps} digits; enclosure: rigorous Collatz–Wielandt "
    "bounds (Arb ball arithmetic); every other eigenvalue lies in |λ| ≤ τ·ρ_hi (Hopf); "
    "certified means τ·ρ_hi < ρ_lo, i.e. ρ is simple and strictly dominant. v margin = min v/"
    "max v of the Perron vector (rigorous lower bound: the larger of min G/max G and "
    "e^(−d)·min v̂/max v̂, d ≥ Hilbert's distance from v̂ to the exact vector). "
    "Heads with an entry ≤ 0 have no report (null with the reason in audit-g.json).")


def _perron(r: dict) -> list:
    pe = r["perron"]
    md = ["", "## Perron reports (entrywise-positive heads)", ""]
    if not pe["computed"]:
        return md + [f"Not computed: {pe['reason']}."]
    recs = [x for x in r["per_head"] if x.get("perron")]
    if not recs:
        return md + ["No head is entrywise positive: no Perron report applies."]
    md += [_PERRON_TEXT.format(dps=pe["dps"]), ""]
    rows = []
    for x in recs:
        p = x["perron"]
        enc = p.get("root_enclosure")
        rows.append([x["layer"], x["head"], (p.get("root") or "—")[:22],
                     f"[{enc[0]:.17g}, {enc[1]:.17g}]" if enc else "—", _f(p.get("ratio")),
                     _f(p.get("vector_margin")), _f(p.get("tau"), ".9g"), _f(p.get("certified")),
                     _f(p.get("certified_gap_lb"))])
    md.append(_table(["layer", "head", "Perron root", "rigorous enclosure", "|λ₂|/ρ",
                      "v margin", "τ", "certified", "certified gap ≥"], rows))
    return md


SECTIONS = (_header, _identity, _a_lm, _summary, _per_layer, _perron, plots_markdown)


def render_markdown(r: dict) -> str:
    """``audit-g.md`` for the JSON-ready audit-g result ``r``."""
    return "\n".join(line for section in SECTIONS for line in section(r)) + "\n"
