"""``audit.md``: the Markdown rendering of the JSON-ready audit result, one function per
section; every table goes through :func:`_table`, every "mean (max)" cell through
:func:`_mean_max`, every skipped section through :func:`_not_computed`."""

from __future__ import annotations

from .output import plots_markdown


def _f(x, fmt=".3g"):
    if x is None:
        return "—"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    return format(x, fmt)


def _cell(x) -> str:
    return str(x).replace("|", "\\|").replace("\n", " ")


def _table(header, rows):
    out = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(_cell(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def header_md(title: str, rows: list, r: dict, notes_title: str, notes: dict,
              null_file: str) -> list:
    """The opening of an audit report: title, the field/value table (``rows``), the warnings of
    record ``r``, and the definitions section ``notes`` with the closing note on nulls."""
    md = [f"# {title}", "", _table(["field", "value"], rows)]
    if r["warnings"]:
        md += ["", "**Warnings:** " + "; ".join(r["warnings"])]
    md += ["", f"## {notes_title}", ""]
    md += [f"- **{k}**: {v}" for k, v in notes.items()]
    return md + [f"- A `—` marks a statistic that is undefined (null in {null_file}, with its "
                 "reason in the record's `null_reasons`)."]


def _mean_max(s) -> str:
    """A summary {mean, max, ...} as the cell "mean (max)"."""
    return f"{_f(s['mean'])} ({_f(s['max'])})"


def _not_computed(md: list, sec: dict) -> bool:
    """Append the "Not computed" line of a skipped section; True if it was skipped."""
    if sec.get("computed", True):
        return False
    md.append(f"Not computed: {sec['reason']}.")
    return True


# ================================================================================ header
def _config_line(r: dict) -> str:
    c = r["config"]
    return (f"L={c['num_layers']}, d={c['d_model']}, H={c['num_heads']}, d_k={c['d_k']}, "
            f"dff={c['dff']}, A_dff={c['a_dff']}, N_res={c['num_res_units']}×"
            f"{c['num_glu_blocks']}, V={c['vocab_size']}, max_seq_len={c['max_seq_len']}, "
            f"Θ={c['rope_base']:g} ({c['num_parameters']:,} parameters; {r['config_source']})")


def _load_rows(ck: dict) -> list:
    """How the checkpoint was read: format, stored dtypes, wrapper/prefixes, semantics, notes
    (what :meth:`pyref.PLDRModel.load` recorded)."""
    rows = [["format", f"{ck.get('format', '—')}; model {ck.get('model', '—')}"
                       + (f" with the G list `{ck['gcache']}` (v510Gi transplant)"
                          if ck.get("gcache") else "")]]
    if ck.get("stored_dtypes"):
        rows.append(["stored dtypes", ", ".join(f"{k} × {n}"
                                                for k, n in ck["stored_dtypes"].items())])
    if ck.get("wrapper_keys"):
        rows.append(["wrapper", "a dict with keys " + ", ".join(map(str, ck["wrapper_keys"]))
                     + "; the state dict is its 'model_state_dict'"])
    if ck.get("stripped_prefixes"):
        rows.append(["stripped prefixes", ", ".join(f"`{p}`" for p in ck["stripped_prefixes"])])
    if ck.get("semantics"):
        rows.append(["forward semantics", "; ".join(ck["semantics"])])
    for note in ck.get("notes") or []:
        rows.append(["note", note])
    return rows


def _header(r: dict) -> list:
    t, v = r["timing_s"], r["versions"]
    ck, pr = r["checkpoint"], r["prompts"]
    rows = [
        ["checkpoint", f"`{ck['path']}` ({ck['bytes']} bytes)"],
        ["SHA-256", f"`{ck['sha256']}`"],
        *_load_rows(ck),
        ["config", _config_line(r)],
        ["backend", r["backend"] + (f" at {r['dps']} digits" if r["dps"] else "")
         + (f" (chosen for --accuracy {r['accuracy']})" if r.get("accuracy") else "")
         + f"; Perron/determinants at {r['hp_dps']} digits"],
        ["prompts", f"{len(pr['tokens'])} ({pr['source']}), lengths "
                    f"{', '.join(map(str, pr['lengths']))}"],
        ["second run", r["prompts2"]["source"] if r["prompts2"] else "—"],
        ["greedy steps", r["options"]["steps"]],
        ["versions", ", ".join(f"{k} {val}" for k, val in v.items() if k != "platform" and val)],
        ["time", f"{t['total']:.1f} s total; "
                 + ", ".join(f"{k} {val:.1f} s" for k, val in t.items() if k not in ("total",))],
    ]
    return header_md("PLGA checkpoint audit", rows, r, "What was aggregated and how",
                     r["aggregation"], "audit.json")


# ============================================================================== sections
def _rank_one(r: dict) -> list:
    H, n_prompts = r["config"]["num_heads"], len(r["prompts"]["tokens"])
    md = ["", "## 1. Rank-one statistics of A and A_LM (spec D, rank-one / singularity "
          "statistics)", "",
          "σ₂/σ₁ from float64 singular values; numerical rank = #{σ > 64·eps_f32·σ₁}; "
          "row-variance ratio = mean((X − 𝟙x̄ᵀ)²)/mean((X − mean X)²) (0 for identical rows); "
          "cross-head ratio = RMS(X_h − X_0)/RMS(X_0), h ≥ 1. Mean (max) over prompts × heads.", ""]
    if _not_computed(md, r["rank_one"]):
        return md
    rows = []
    for key in ("A", "A_LM"):
        for bl in r["rank_one"][key]["by_layer"]:
            nr, rv = bl["numerical_rank"], bl["row_variance_ratio"]
            undefined = (f" [{H * n_prompts - rv['n']} undefined]" if rv["n"] < H * n_prompts
                         else "")
            rows.append([bl["layer"], key, _mean_max(bl["sigma2_over_sigma1"]),
                         f"{_f(nr['min'], '.0f')}–{_f(nr['max'], '.0f')}",
                         _mean_max(rv) + undefined, _mean_max(bl["cross_head_ratio"])])
    md.append(_table(["layer", "op", "σ₂/σ₁ mean (max)", "num. rank min–max",
                      "row-var ratio mean (max)", "cross-head RMS ratio mean (max)"], rows))
    ro = r["rank_one"]
    md += ["", "Heads with numerical rank 1: " + ", ".join(
        f"{k} {ro[k]['heads_rank_one']}/{ro[k]['heads_total']}" for k in ("A", "A_LM")) + "."]
    return md


def _commutant(r: dict) -> list:
    L, H = r["config"]["num_layers"], r["config"]["num_heads"]
    cm = r["commutant"]
    md = ["", "## 2. RoPE commutant residual of G_LM (spec D2) and commutator residual", "",
          "ρ(G) = ‖G_c − ΠG_c‖_F/‖G_c‖_F in the complex RoPE eigenbasis (0 iff G commutes with "
          "every rotation R_p; 1 for no commutant component). Mean over prompts, layer × head:",
          ""]
    rows = [[li] + [_f(x) for x in cm["mean_over_prompts"][li]] for li in range(L)]
    md.append(_table(["layer"] + [f"h{h}" for h in range(H)], rows))
    ov = cm["overall"]
    md += ["", "Commutator residual max_p ‖G R_p − R_p G‖_F/‖G‖_F (p = 1), per layer mean (max): "
           + "; ".join(f"L{li} {_mean_max(s)}" for li, s in enumerate(cm["commutator_by_layer"]))
           + f". Overall ρ: mean {_f(ov['mean'])}, min {_f(ov['min'])}, max {_f(ov['max'])}."]
    return md


_PERRON_TEXT = (
    "Root: shifted inverse iteration at {dps} digits; enclosure: rigorous Collatz–Wielandt "
    "bounds (Arb ball arithmetic); every other eigenvalue lies in |λ| ≤ τ·ρ_hi (Hopf); "
    "certified means τ·ρ_hi < ρ_lo, i.e. ρ is simple and strictly dominant. Eigenvector margin "
    "= min v/max v (rigorous lower bound: the larger of min a/max a and e^(−d)·min v̂/max v̂, "
    "d ≥ Hilbert's distance from v̂ to the exact vector, certified by Birkhoff's τ). "
    "gap = ρ − |λ₂| (|λ₂| from a float64 eigen-decomposition); certified gap ≥ ρ_lo − τ·ρ_hi "
    "(from the certificate's rigorous relative separation). An inconclusive certificate is "
    "not a counterexample: A_LM entries near ε = 1e-9 make τ ≈ 1.")


def _perron_row(x: dict) -> list:
    enc = x.get("root_enclosure")
    return [x["prompt"], x["layer"], x["head"], (x.get("root") or "—")[:22],
            f"[{enc[0]:.15g}, {enc[1]:.15g}]" if enc else "—",
            _f(x.get("gap")), _f(x.get("ratio")), _f(x.get("vector_margin")),
            _f(x.get("vector_margin_lb")), _f(x.get("tau"), ".9g"),
            _f(x.get("certified")), _f(x.get("certified_gap_lb"))]


def _perron(r: dict) -> list:
    pe = r["perron"]
    md = ["", "## 3. Perron–Frobenius report for A_LM (Thm 3.8; interval certificate)", ""]
    if _not_computed(md, pe):
        return md
    sc = pe["scope"]
    md += [f"Scope: prompt(s) {sc['prompts']}, every layer, heads {sc['heads'][0]}–"
           f"{sc['heads'][-1]}; {r['hp_dps']} digits. **{pe['certified']} of "
           f"{pe['certified'] + pe['inconclusive']} certified**, {pe['inconclusive']} "
           "inconclusive. " + _PERRON_TEXT.format(dps=r["hp_dps"]), ""]
    md.append(_table(["prompt", "layer", "head", "Perron root", "rigorous enclosure", "gap",
                      "|λ₂|/ρ", "v margin", "margin lb", "τ", "certified", "certified gap ≥"],
                     [_perron_row(x) for x in pe["per_head"]]))
    return md


def _dag(r: dict) -> list:
    md = ["", "## 4. DAG value (spec D, H)", "",
          "|m + log Σ_i e^{λ_i − m} − log d_k| with λ = eig(M⊙M), m = max Re λ (= |log(tr "
          "expm(M⊙M)/d_k)|); mean (max) over prompts × heads.", ""]
    keys = r["dag"].get("keys", ("A_LM", "A_P", "G_LM"))
    rows = [[bl["layer"]] + [_mean_max(bl[k]) for k in keys] for bl in r["dag"]["by_layer"]]
    md.append(_table(["layer", *keys], rows))
    return md


_GCACHE_TEXT = (
    "d_t = max|ℓ_cached − ℓ_uncached| of the step's last-row logits (the uncached pass re-runs "
    "the whole sequence); margin = top1 − top2 of the cached logits; the sufficient criterion "
    "2·max d < min margin guarantees identical greedy tokens. ε_G(t, l) = RMS(G_uncached(t) − "
    "G_prompt)/RMS(G_uncached(t)). d_t, margins and ε_G are measured along the cached "
    "trajectory; the uncached tokens are the uncached greedy decoding, which follows its own "
    "trajectory after the first divergence.")


def _gcache_row(x: dict) -> list:
    if not x.get("d"):
        return [x["prompt"], x["steps"]] + ["—"] * 6
    return [x["prompt"], x["steps"], _f(x["max_d"]), _f(x["min_margin"]), _f(x.get("sufficient")),
            _f(x["tokens_identical"]), _f(x["first_divergence_step"]),
            _f(max(x["eps_G_max_by_layer"]))]


def _gcache_pads(g: dict) -> list:
    pads = [(x["prompt"], x.get("prompt_pad_positions"), x.get("pad_generated_at_steps"))
            for x in g["per_prompt"]
            if x.get("pad_generated_at_steps") or x.get("prompt_pad_positions")]
    if not pads:
        return []
    return ["", "Note: PAD ids (0) occur (prompt: positions in the prompt / generated at steps) "
            + "; ".join(f"{i}: {a} / {b}" for i, a, b in pads) + ". Every uncached pass masks "
            "such a position as a key while a cached decode step applies no mask (spec B), so d_t "
            "there includes a deviation that the operator G does not cause."]


def _gcache_summary(g: dict, L: int) -> list:
    s = g["summary"]
    if s["eps_G_max_by_layer"] is None:
        return []
    md = ["", _table(["layer", "ε_G max", "max|ΔG|"],
                     [[li, _f(s["eps_G_max_by_layer"][li]), _f(s["max_dG_by_layer"][li])]
                      for li in range(L)])]
    md += ["", f"All prompts satisfy the criterion: {_f(s['all_sufficient'])}; cached and "
               f"uncached tokens identical for all prompts: {_f(s['all_tokens_identical'])}."]
    per_step = [[x["prompt"], t, _f(x["d"][t]), _f(x["margin_cached"][t]),
                 _f(x["margin_uncached"][t]), x["cached_tokens"][t], x["uncached_tokens"][t],
                 _f(max(x["eps_G"][t]))]
                for x in g["per_prompt"] if x.get("d") for t in range(len(x["d"]))]
    if len(per_step) <= 200:
        md += ["", "Per step:", "",
               _table(["prompt", "step", "d_t", "margin (cached)", "margin (uncached)",
                       "cached token", "uncached token", "max_l ε_G"], per_step)]
    return md


def _gcache_kind(g: dict) -> str:
    """How the criterion was decided: Arb enclosures (with the bounds) or float estimates."""
    recs = [x for x in g["per_prompt"] if x.get("d")]
    if not (recs and g["summary"].get("certified")):
        return ("The criterion is a floating-point estimate (from the backend's values; "
                "--backend arb certifies it).")
    rows = [[x["prompt"], _f(x.get("max_d_upper"), ".6g"), _f(x.get("min_margin_lower"), ".6g"),
             _f(x.get("sufficient")),
             (x.get("null_reasons") or {}).get("sufficient", "decided")] for x in recs]
    return ("The criterion is certified (Arb enclosures): every logit is a ball containing the "
            "exact value; true only when 2·(upper bound of max d) < (lower bound of min margin), "
            "false only when 2·(lower bound of max d) ≥ (upper bound of min margin), else null "
            "(undecided at this precision). The d and margin columns are the balls' midpoints.\n\n"
            + _table(["prompt", "max d ≤", "min margin ≥", "2·max d < min margin", "decision"],
                     rows))


def _gcache(r: dict) -> list:
    g = r["gcache"]
    md = ["", "## 5. G-cache fidelity: KV+G-cached vs uncached greedy decoding (spec D, G; "
          "spec B)", "", _GCACHE_TEXT, "", _gcache_kind(g), ""]
    md.append(_table(["prompt", "steps", "max d", "min margin", "2·max d < min margin",
                      "tokens identical", "first divergence", "max ε_G"],
                     [_gcache_row(x) for x in g["per_prompt"]]))
    return md + _gcache_pads(g) + _gcache_summary(g, r["config"]["num_layers"])


def _md_text(t: str) -> str:
    """A text for a Markdown table cell: one line, pipes escaped, at most 160 characters."""
    t = " ".join(str(t).split()).replace("|", "\\|")
    return t if len(t) <= 160 else t[:157] + "…"


def _text(r: dict) -> list:
    """The --text prompts next to their ids and the decoded greedy continuations."""
    t = r.get("text")
    if not t:
        return []
    g = {x["prompt"]: x for x in r["gcache"]["per_prompt"]}
    md = ["", "## Text prompts and greedy continuations", "",
          f"Tokenizer: {t['tokenizer']}. The continuation is the greedy decode of section 5 "
          "(KV+G-cached; the uncached one differs only where section 5 says so).", ""]
    rows = []
    for i, x in enumerate(t["prompts"]):
        ids = r["prompts"]["tokens"][i]
        rows.append([i, _md_text(x["text"]), " ".join(map(str, ids)),
                     " ".join(map(str, g.get(i, {}).get("cached_tokens") or [])) or "—",
                     _md_text(x.get("cached_text", "—")),
                     "same" if x.get("cached_text") == x.get("uncached_text")
                     else _md_text(x.get("uncached_text", "—"))])
    return md + [_table(["prompt", "text", "token ids", "continuation ids",
                         "continuation (cached)", "uncached"], rows)]


def _gap_cells(x: dict) -> list:
    """The loss/gap cells of a per-prompt or pooled block-vs-sequential row."""
    return [_f(x["seq_nll_per_token"], ".6g"), _f(x["block_ce_per_token"], ".6g"),
            _f(x["gap_per_token"]), _f(x.get("mean_abs_gap")), _f(x.get("max_abs_gap"))]


def _blockseq(r: dict) -> list:
    bs = r["block_vs_sequential"]
    md = ["", "## 6. Block cross-entropy vs sequential NLL (spec D, S1; spec C and G.7)", ""]
    if _not_computed(md, bs):
        return md
    md += ["Block: one call on win[:−1], row t scores win[t+1]; sequential: one call per prefix "
           "win[:t+1], final row. gap = seq NLL − block CE (per token, nats). D = Q̂ᵀQ̂ is "
           "non-causal, so block rows see later tokens through G: the gap measures that.", ""]
    rows = [[x["prompt"], x.get("n_targets", 0), *_gap_cells(x)] for x in bs["per_prompt"]]
    a = bs["aggregate"]
    if a.get("n_targets"):
        rows.append(["**pooled**", a["n_targets"], *_gap_cells(a)])
    md.append(_table(["prompt", "targets", "seq NLL/token", "block CE/token", "gap/token",
                      "mean |gap|", "max |gap|"], rows))
    if bs["position_buckets"]:
        md += ["", "By position (row t, pooled):", "",
               _table(["rows", "n", "mean gap", "mean |gap|", "max |gap|"],
                      [[b["rows"], b["n"], _f(b["mean_gap"]), _f(b["mean_abs_gap"]),
                        _f(b["max_abs_gap"])] for b in bs["position_buckets"]])]
    return md


def _order_cells(x: dict) -> list:
    return [x["operator"], _f(x["rmse"]), _f(x["m_rms"]), _f(x["m_signed"]), _f(x["m_first"])]


def _order_parameter(r: dict) -> list:
    op = r["order_parameter"]
    md = ["", "## 7. Order parameter between two runs (spec D)", ""]
    if _not_computed(md, op):
        return md
    md += ["num = RMS(X₁ − X₂) over all heads of a layer; m_rms = num/(½(RMS X₁ + RMS X₂)); "
           "m_signed = num/(½(|mean X₁| + |mean X₂|)) (the MF audit's symmetrized statistics; not "
           "the SOC paper's one-sided RMSE/|μ₁|, reported as m_first). Mean over prompt pairs:",
           ""]
    md.append(_table(["layer", "X", "RMS(X₁−X₂)", "m_rms", "m_signed", "m_first"],
                     [[x["layer"], *_order_cells(x)] for x in op["mean_over_pairs"]]))
    md += ["", "Whole model (all layers stacked), per pair:", "",
           _table(["pair", "X", "RMS(X₁−X₂)", "m_rms", "m_signed", "m_first (SOC)"],
                  [[x["pair"], *_order_cells(x)] for x in op["whole_model"]])]
    return md


def _determinants(r: dict) -> list:
    de, dps = r["determinants"], r["hp_dps"]
    md = ["", "## 8. Determinants of A_LM: high precision vs float32/float64", ""]
    if _not_computed(md, de):
        return md
    lg = de["log10_abs_det"]
    md += [f"det at {dps} digits (exact conversion of the operator's entries; the midpoint of a "
           "rigorous Arb enclosure of the exact determinant, which decides the sign of "
           f"{de.get('sign_certified', '—')} of {de['total']}) next to LAPACK in "
           "float64 and float32 (entries rounded to float32 first). "
           f"**float32 gives 0 for {de['float32_zero']} of {de['total']}** "
           f"({de['float32_underflow']} of them are underflow: the high-precision determinant is "
           f"not 0); float64 gives 0 for {de['float64_zero']}; high precision gives exactly 0 for "
           f"{de['mp_zero']}. log₁₀|det|: min {_f(lg['min'], '.1f')}, max {_f(lg['max'], '.1f')} "
           "(float32's smallest subnormal is 1.4e-45, float64's 4.9e-324).", ""]
    rows = [[x["prompt"], x["layer"], x["head"], x["det_mp"], _f(x.get("log10_abs_det"), ".2f"),
             _f(x.get("det_float64")), _f(x.get("det_float32")), _f(x["float32_underflow"])]
            for x in de["per_head"]]
    md.append(_table(["prompt", "layer", "head", f"det ({dps} digits)", "log₁₀|det|", "float64",
                      "float32", "float32 underflow"], rows))
    return md


SECTIONS = (_header, _text, _rank_one, _commutant, _perron, _dag, _gcache, _blockseq,
            _order_parameter, _determinants, plots_markdown)


def render_markdown(r: dict) -> str:
    """``audit.md`` for the JSON-ready audit result ``r``."""
    return "\n".join(line for section in SECTIONS for line in section(r)) + "\n"
