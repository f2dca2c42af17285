"""``reports/crosscheck.json`` and ``reports/VERIFICATION.md``: one table tying each
theorem to its kernel check, axioms, cross-check property, examples run per backend,
maximum deviation and certificate status, plus the mutation score."""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

from .arbcheck import VERDICTS
from .fsutil import write_atomic
from .justifications import coverage
from .properties import load_properties
from .registry import LOCK, locked_theorems

#: the paper's main results and the Lean theorems that state them (the report shows, for each,
#: whether every one of them is kernel-checked and has a cross-check property)
MAIN_RESULTS = {
    "SDPA inclusion (G = I), output / multi-head / decoder": [
        "PLGA.Attention.plgaAttention_one_eq_sdpaAttention", "PLGA.Attention.mha_one_eq_mhaSDPA",
        "PLGA.Attention.decoderLayer_one_eq_sdpaDecoderLayer",
        "PLGA.Attention.plgaDecoder_identityLayers_eq_sdpaDecoder"],
    "Inference collapse (Thm 5.4(ii)) and absorption": [
        "PLGA.Attention.plgaDecoder_pinLayers_of_invariantAlong",
        "PLGA.Attention.plgaDecoder_collapse_on_reachable",
        "PLGA.Attention.plgaDecoder_collapse", "PLGA.Attention.model_collapse_on_reachable",
        "PLGA.Attention.plgaDecoder_eq_sdpaDecoder_of_invariantAlong",
                                                        "PLGA.Rope.rope_collapse_iff"],
    "RoPE commutator criterion (Prop 4.1)": [
        "PLGA.Rope.isRelative_iff_commutes", "PLGA.Rope.offDiag_block_eq_zero",
                                             "PLGA.Rope.diag_block_commutes_iff",
        "PLGA.Rope.commutes_iff_eq_commEmbed", "PLGA.Rope.kerIdx_count"],
    "Perron–Frobenius (Thm 3.8)": [
        "PLGA.Perron.perron_frobenius", "PLGA.Perron.metricTensor_perron_frobenius",
        "PLGA.Perron.exists_perron_pairs", "PLGA.Perron.complex_eigenvalue_dominated",
        "PLGA.Perron.no_generalized_eigvec"],
}


def build(fuzz_results, certificates: dict | None = None, mutation: dict | None = None,
          axioms: dict | None = None, lock: Path = LOCK, seed: int = 0,
          profile: str = "ci", generated: dict | None = None) -> dict:
    """The report dict; ``axioms``: the axiom audit (reports/axioms.json, read by the caller),
    ``mutation``: the shipped-mutant run (reports/mutation.json),
    ``generated``: the generated-mutant run (reports/mutation-generated.json)."""
    audit_ok = None if axioms is None else axioms.get("ok")
    axioms = {} if axioms is None else {t["name"]: t for t in axioms.get("theorems", [])}
    cov = coverage(lock)
    props = load_properties()
    per_prop = {}
    for r in fuzz_results:
        per_prop.setdefault(r.prop, {})[r.backend] = {
            "examples": r.examples, "met": r.met, "max_dev": r.max_dev, "bound": r.bound_at_max,
            "ok": r.ok, "counterexample": r.counterexample, "seconds": round(r.seconds, 2),
            **({"verdicts": dict(r.verdicts)} if r.verdicts else {})}
    rows = []
    for name, info in locked_theorems(lock).items():
        ax = axioms.get(name, {})
        c = cov.get(name, {"properties": [], "justification": None})
        runs = {p: per_prop.get(p, {}) for p in c["properties"]}
        rows.append({
            "theorem": name, "file": info.get("file"),
            "paper": "; ".join(sorted({props[p].paper for p in c["properties"]})) or "",
            "kernel_checked": (ax.get("status") == "ok") if ax else None,
            "axioms": ax.get("axioms"),
            "properties": runs, "justification": c["justification"],
        })
    props_ok = all(r.ok for r in fuzz_results)
    covered = sum(1 for r in rows if r["properties"] or r["justification"])
    return {
        "generated": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "seed": seed, "profile": profile,
        "python": platform.python_version(),
        "summary": {"theorems": len(rows), "covered": covered,
                    "with_property": sum(bool(r["properties"]) for r in rows),
                    "properties": len(props), "property_runs": len(fuzz_results),
                    "property_runs_ok": sum(r.ok for r in fuzz_results), "fuzz_ok": props_ok,
                    "audit_ok": audit_ok, "arb": _arb_summary(fuzz_results, props)},
        "theorems": rows,
        "properties": {n: {"theorems": p.theorems, "paper": p.paper, "doc": p.doc,
                           "runs": per_prop.get(n, {})}
                       for n, p in props.items()},
        "certificates": certificates or {},
        "mutation": mutation or {},
        "generated_mutation": _generated_summary(generated) if generated else {},
    }


def _arb_summary(fuzz_results, props) -> dict:
    """The arb column (:mod:`crosscheck.arbcheck`): properties declaring arb, the excluded ones
    with their one-line reasons, and the examples per rigorous verdict over the arb runs."""
    verdicts = {v: 0 for v in VERDICTS}
    runs = [r for r in fuzz_results if r.backend == "arb"]
    for r in runs:
        for v, n in r.verdicts.items():
            verdicts[v] = verdicts.get(v, 0) + n
    return {"properties": sum("arb" in p.backends for p in props.values()),
            "excluded": {n: p.no_arb for n, p in props.items() if p.no_arb},
            "runs": len(runs), "runs_ok": sum(r.ok for r in runs), "verdicts": verdicts}


def _arb_cell(runs: dict) -> str:
    """certified / non-refuted / undecided (+ refuted) examples of one property's arb run."""
    a = runs.get("arb")
    if not a:
        return "—"
    v = a.get("verdicts") or {}
    cell = f"{v.get('certified', 0)} / {v.get('nonrefuted', 0)} / {v.get('undecided', 0)}"
    return cell + (f" / **{v['refuted']} refuted**" if v.get("refuted") else "")


def _arb_section(s: dict) -> list[str]:
    """The "Arb runs" section: what the verdicts mean, the totals and the exclusions."""
    a = s.get("arb") or {}
    if not a:
        return []
    v = a.get("verdicts", {})
    L = ["## Arb runs (rigorous verdicts)", "",
         "Every property declaring mp also runs on Arb balls at the same digits "
         "(`crosscheck/arbcheck.py`): an example is *certified* when every sub-check's ball lies "
         "on the right side, *non-refuted* when a ball of an exact zero (an equality, or a "
         "violation that is 0) contains 0 and is below 10^-25·scale wide (or a sub-check has no "
         "ball), *undecided* (a failure: more digits needed) or *refuted* (a certain violation).",
         "",
         f"* Properties on arb: **{a.get('properties', 0)}**; arb runs passing "
         f"{a.get('runs_ok', 0)}/{a.get('runs', 0)}; examples certified / non-refuted / undecided"
         f" / refuted: {v.get('certified', 0)} / {v.get('nonrefuted', 0)} / "
         f"{v.get('undecided', 0)} / {v.get('refuted', 0)}.",
         "* Not on arb (mp properties excluded, with the reason):"]
    L += [f"  * `{n}`: {why}" for n, why in a.get("excluded", {}).items()] or ["  * none"]
    return L + [""]


def _generated_summary(gen: dict) -> dict:
    """The generated-mutant run without the killed mutants' details."""
    keep = ("profile", "seed", "sample", "scored_by", "modules", "skipped_modules",
            "skipped_functions", "test_scored", "coverage", "seconds", "totals", "per_scorer",
            "per_module", "per_operator", "per_test_function")
    out = {k: gen.get(k) for k in keep}
    out["survivors"] = [m for m in gen.get("mutants", [])
                        if m["status"] in ("survived", "not-covered")]
    out["equivalent"] = [m for m in gen.get("mutants", []) if m["status"] == "equivalent"]
    return out


_GEN_COLUMNS = "| mutants | killed | timeouts | survived | not covered | equivalent | score |"


def _gen_row(name: str, r: dict) -> str:
    return (f"| {name} | {r['mutants']} | {r['killed']} | {r['killed-by-timeout']} | "
            f"{r['survived']} | {r['not-covered']} | {r['equivalent']} | "
            f"{100 * r['score']:.1f}% |")


def _gen_score(label: str, t: dict) -> str:
    return (f"* {label}: **{100 * t['score']:.1f}%** ({t['killed'] + t['killed-by-timeout']}/"
            f"{t['mutants'] - t['equivalent']} non-equivalent mutants killed).")


def _generated_section(g: dict) -> list[str]:
    """The "Generated mutants" section of VERIFICATION.md: the property-scored mutants per
    module, the test-scored ones per function (with their tests), the scores apart."""
    t = g["totals"]
    scorers = g.get("per_scorer") or {"properties": t}  # older runs: properties only
    scope = (f"a fixed sample of {g['sample']} mutants" if g.get("sample") else
             f"every mutant of {len(g['modules'])} modules")
    if g.get("scored_by"):
        scope += f", only those scored by the {g['scored_by']}"
    skipped = ([f"`pyref/{k}` ({v})" for k, v in g["skipped_modules"].items()]
               + [f"`{k}` ({v})" for k, v in (g.get("skipped_functions") or {}).items()])
    L = ["## Generated mutants", "",
         f"Operator-level mutants generated from pyref's numerical code "
         f"(`plga mutate --generated`; {scope}; profile `{g['profile']}`, seed {g['seed']}). "
         "Each mutant runs the properties whose `ci` run executes its line, or, for the "
         "functions no property can check, the tests that score them (listed below); score = "
         "(killed + killed by timeout) / (mutants − reviewed equivalent). Not mutated: input "
         "validation and " + "; ".join(skipped) + ".", ""]
    per_module = g["per_module"]
    prop_rows = [(k, v) for k, v in per_module.items() if not k.endswith(" (tests)")]
    if "properties" in scorers:
        L += ["### Scored by the properties", "", "| module " + _GEN_COLUMNS,
              "|---|---|---|---|---|---|---|---|"]
        L += [_gen_row(f"`{mod}`", r) for mod, r in prop_rows]
        L += [_gen_row("**total**", scorers["properties"]), ""]
    if "tests" in scorers:
        tests = g.get("test_scored") or {}
        L += ["### Scored by the test suite", "",
              "| function | tests " + _GEN_COLUMNS, "|---|---|---|---|---|---|---|---|---|"]
        for f, r in (g.get("per_test_function") or {}).items():
            names = ", ".join(f"`{n}`" for n in tests.get(f, {}).get("tests", []))
            L.append(_gen_row(f"`{f}` | {names or '—'}", r))
        L += [_gen_row("**total** | ", scorers["tests"]), ""]
    L += [_gen_score(f"Generated-mutant score ({name})", scorers[key])
          for key, name in (("properties", "properties"), ("tests", "test suite"))
          if key in scorers]
    if len(scorers) > 1:
        L.append(_gen_score("Generated-mutant score (all)", t))
    L += ["", "### Surviving mutants (not equivalent)", ""]
    L += [f"* `{m['id']}` (line {m['line']}, {m['status']}"
          f"{', tests' if m.get('scored_by') == 'tests' else ''}): `{m['original']}` → "
          f"`{m['mutated']}`" for m in g["survivors"]] or ["* none"]
    L += ["", "### Reviewed equivalent mutants", ""]
    L += [f"* `{m['id']}`: `{m['original']}` → `{m['mutated']}` — {m['why']}"
          for m in g["equivalent"]] or ["* none"]
    return L + [""]


def _fmt(x):
    return "—" if x is None else (f"{x:.1e}" if isinstance(x, float) else str(x))


def write(report: dict, out_dir: Path) -> None:
    """``VERIFICATION.md`` then ``crosscheck.json``, each atomically; both are rendered before
    either is written, so a report that fails to render or to write changes neither file
    (``crosscheck.json`` last: its presence = the Markdown beside it is of the same run)."""
    out_dir = Path(out_dir)
    s = report["summary"]
    L = ["# Verification report", "",
         f"Generated {report['generated']} (profile `{report['profile']}`, "
         f"seed {report['seed']}).", "",
         f"* Theorems in the statement lock: **{s['theorems']}**; with a cross-check property: "
         f"**{s['with_property']}**; with a written justification instead: "
         f"{s['covered'] - s['with_property']}; uncovered: {s['theorems'] - s['covered']}.",
         f"* Property runs passing: **{s['property_runs_ok']}/{s['property_runs']}** "
         f"({s['properties']} properties × backends).",
         "* Axiom audit: "
         f"{'PASS' if s['audit_ok'] else ('FAIL' if s['audit_ok'] is False else 'not run')}.", ""]
    mut = report.get("mutation") or {}
    if mut:
        L += [f"* Hand-written mutants (`plga mutate`): **{mut.get('killed', 0)}/"
              f"{mut.get('total', 0)}** of `pyref` killed.", ""]
    gen = report.get("generated_mutation") or {}
    if gen:
        t = gen["totals"]
        per = gen.get("per_scorer") or {}
        split = (" (" + ", ".join(f"{'test suite' if k == 'tests' else k} "
                                  f"{100 * v['score']:.1f}%" for k, v in per.items()) + ")"
                 if len(per) > 1 else "")
        L += [f"* Generated-mutant score: **{100 * t['score']:.1f}%** of "
              f"{t['mutants'] - t['equivalent']} non-equivalent mutants killed{split} (see "
              "[Generated mutants](#generated-mutants)).", ""]
    L += _arb_section(s)
    certs = report.get("certificates") or {}
    if certs:
        L += ["## Certificates (interval arithmetic)",
              ""] + [f"* {v}" for v in certs.values()] + [""]
    L += ["## Main results", ""]
    by_name = {r["theorem"]: r for r in report["theorems"]}
    for label, names in MAIN_RESULTS.items():
        rows = [by_name.get(n) for n in names]
        present = [r for r in rows if r is not None]
        checked = sum(1 for r in present if r["kernel_checked"])
        with_prop = sum(1 for r in present if r["properties"])
        L.append(f"* {label}: {len(present)}/{len(names)} theorems in the library, {checked} "
                 "kernel-checked "
                 f"and audited, {with_prop} with a cross-check property "
                 f"({100 * with_prop // max(len(names), 1)}%)")
    L += ["", "## Per theorem", "",
          "| theorem | paper | kernel-checked | axioms | property | examples (mp / f64 / arb) "
          "| max dev (mp / f64) | arb: certified / non-refuted / undecided |",
          "|---|---|---|---|---|---|---|---|"]
    for r in report["theorems"]:
        ax = ", ".join(r["axioms"]) if r["axioms"] else ("none" if r["axioms"] == [] else "—")
        kc = {True: "yes", False: "NO", None: "—"}[r["kernel_checked"]]
        if r["properties"]:
            for p, runs in r["properties"].items():
                ex = " / ".join(str(runs.get(b, {}).get("examples", "—"))
                                for b in ("mp", "float64", "arb"))
                dv = " / ".join(_fmt(runs.get(b, {}).get("max_dev")) for b in ("mp", "float64"))
                bad = any(not v.get("ok", True) for v in runs.values())
                L.append(f"| `{r['theorem']}` | {r['paper']} | {kc} | {ax} | "
                         f"`{p}`{' **FAILED**' if bad else ''} | {ex} | {dv} | "
                         f"{_arb_cell(runs)} |")
        else:
            L.append(f"| `{r['theorem']}` | — | {kc} | {ax} | justification: "
                     f"{r['justification'] or '**MISSING**'} | — | — | — |")
    L += ["", "## Properties", ""]
    for n, p in report["properties"].items():
        runs = "; ".join(f"{b}: {v['examples']} ex, {v['met']} met hypotheses, max dev "
                         f"{v['max_dev']:.2e} ≤ {v['bound']:.2e}"
                         + (", verdicts " + ", ".join(f"{k} {c}" for k, c in
                                                     v["verdicts"].items())
                            if v.get("verdicts") else "")
                         + ("" if v["ok"] else f", FAILED: {v['counterexample']}")
                         for b, v in p["runs"].items())
        L.append(f"* `{n}` ({p['paper']}) — {p['doc'].splitlines()[0] if p['doc'] else ''} "
                 f"[{runs or 'not run'}]")
    if gen:
        L += [""] + _generated_section(gen)
    text = json.dumps(report, indent=2, sort_keys=False) + "\n"
    write_atomic(out_dir / "VERIFICATION.md", "\n".join(L) + "\n")
    write_atomic(out_dir / "crosscheck.json", text)
