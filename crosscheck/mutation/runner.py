"""Run the generated mutants against the registered properties (``ci`` profile, seed 0).

1. **Coverage map** (computed at every run, never stored): every registered property runs on
   each of its backends, as the CI runs it, in a forked child with a line tracer on pyref's
   frames only (a global ``sys.settrace`` hook that returns a local tracer just for code under
   ``pyref/``); the map records, per (property, backend), the pyref lines executed and the
   seconds taken. A property that fails on the unmutated pyref is reported and never used.
2. **Mutants**: a mutant whose lines no passing property executes is ``not-covered`` (it
   survives: the ``ci`` profile never runs the mutated code). Otherwise a forked child copies
   the pyref snapshot, applies the edit, purges ``pyref*`` and ``crosscheck.*`` (the properties
   and everything importing pyref or the registry) from ``sys.modules``, puts the copy first on
   ``sys.path``, re-imports, and runs the selected properties, stopping at the first failure:
   first the (property, backend) runs that killed earlier mutants of the same function, then
   float64 before mp, cheaper (declared ``cost``) first, by name. The mutants of one function
   form one chain, run in order, so the results do not depend on ``--jobs``.
3. A mutant listed in :data:`.equivalent.EQUIVALENT` is not run (status ``equivalent``).

Statuses: ``killed``, ``killed-by-timeout`` (the child ran past its timeout: ``timeout`` plus
three times the coverage-pass seconds of its selected runs, so a surviving mutant on a line all
properties execute is not mistaken for a hang), ``survived``, ``not-covered``, ``equivalent``.
Score per module: (killed + killed-by-timeout) / (mutants - equivalent).
"""

from __future__ import annotations

import hashlib
import importlib
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from functools import partial
from pathlib import Path

from tqdm import tqdm

from ..fuzz import run_property
from ..properties import load_properties
from .equivalent import EQUIVALENT
from .generate import SKIPPED_FUNCTIONS, SKIPPED_MODULES, GenMutant, generate, pyref_dir
from .pool import Chain, Job, run_chains

PROFILE, SEED = "ci", 0
STATUSES = ("killed", "killed-by-timeout", "survived", "not-covered", "equivalent")


def check_equivalent(mutants: list[GenMutant], equivalent: dict[str, str] = EQUIVALENT) -> None:
    """Raise ValueError if an id of the reviewed-equivalent list is not generated any more."""
    stale = sorted(set(equivalent) - {m.id for m in mutants})
    if stale:
        raise ValueError(f"stale equivalent-mutant ids (no longer generated; review "
                         f"crosscheck/mutation/equivalent.py): {', '.join(stale)}")


def sample(mutants: list[GenMutant], n: int) -> list[GenMutant]:
    """A deterministic sample of ``n`` mutants: the smallest sha256 of the id (source order
    kept). Independent of outcomes and of the other mutants' ids."""
    keyed = sorted(mutants, key=lambda m: hashlib.sha256(m.id.encode()).hexdigest())[:n]
    chosen = {m.id for m in keyed}
    return [m for m in mutants if m.id in chosen]


def _run(run_property_fn, prop, backend: str, examples: int | None):
    """One property run as the CI runs it, without Hypothesis' shrink phase (only pass/fail
    matters here; shrinking a failure costs up to 100x the run)."""
    return run_property_fn(prop, backend, PROFILE, SEED, examples, shrink=False)


# ============================================================================ coverage
def _traced_run(name: str, backend: str, examples: int | None) -> dict:
    """(In a child) run one property under a line tracer restricted to pyref's frames."""
    import_root = str(Path(sys.modules["pyref"].__file__).parent) + os.sep
    hits: set[tuple[str, int]] = set()
    wanted: dict[str, bool] = {}

    def local(frame, event, arg):
        if event == "line":
            hits.add((frame.f_code.co_filename, frame.f_lineno))
        return local

    def hook(frame, event, arg):
        fn = frame.f_code.co_filename
        keep = wanted.get(fn)
        if keep is None:
            keep = wanted[fn] = fn.startswith(import_root)
        return local if keep else None

    prop = load_properties()[name]
    sys.settrace(hook)
    try:
        r = _run(run_property, prop, backend, examples)
    finally:
        sys.settrace(None)
    lines: dict[str, list[int]] = defaultdict(list)
    for fn, line in sorted(hits):
        lines[fn[len(import_root):].replace(os.sep, "/")].append(line)
    return {"ok": r.ok, "why": r.counterexample, "lines": lines}


def coverage_map(jobs: int, examples: int | None = None, progress: bool = True) -> dict:
    """{(property, backend): {"ok", "why", "lines": {file: [line]}, "seconds"}} for every
    registered property and backend (``examples`` overrides the profile's count)."""
    pairs = [(p.name, b) for p in load_properties().values() for b in p.backends]
    out: dict[tuple[str, str], dict] = {}
    bar = _bar(len(pairs), "coverage", progress)

    def chain(pair) -> Chain:
        out[pair] = yield Job(partial(_traced_run, *pair, examples), timeout=3600.0)
        bar.update()
    run_chains([chain(p) for p in pairs], jobs)
    bar.close()
    return out


# ============================================================================ mutants
def _purge_modules() -> None:
    for name in list(sys.modules):
        if name == "pyref" or name.startswith("pyref.") or (
                name.startswith("crosscheck.") and not name.startswith("crosscheck.mutation")):
            del sys.modules[name]


def _mutant_run(m: GenMutant, base: Path, work: Path, order: list[tuple[str, str]],
                examples: int | None) -> dict:
    """(In a child) apply ``m`` to a copy of the pyref snapshot ``base``, re-import, run."""
    dst = work / "pyref"
    shutil.copytree(base, dst, ignore=shutil.ignore_patterns("__pycache__"))
    (dst / m.file).write_bytes(m.apply((base / m.file).read_bytes()))
    _purge_modules()
    sys.path.insert(0, str(work))
    sys.dont_write_bytecode = True
    importlib.invalidate_caches()
    try:
        pyref = importlib.import_module("pyref")
        fuzz = importlib.import_module("crosscheck.fuzz")
        props = importlib.import_module("crosscheck.properties").load_properties()
    except Exception as exc:  # the mutated pyref does not even import: every use fails
        return {"killed_by": "<import>", "backend": None, "why": f"{type(exc).__name__}: {exc}"}
    if not str(pyref.__file__).startswith(str(dst)):
        raise RuntimeError(f"imported {pyref.__file__}, not the mutated copy under {dst}")
    runs = []
    for name, backend in order:
        r = _run(fuzz.run_property, props[name], backend, examples)
        runs.append([name, backend, round(r.seconds, 2)])
        if not r.ok:
            return {"killed_by": name, "backend": backend, "why": r.counterexample, "runs": runs}
    return {"killed_by": None, "runs": runs}


class _Context:
    """What the mutant chains share: the snapshot, the coverage map, the settings."""

    def __init__(self, base: Path, cov: dict, timeout: float, examples: int | None, bar):
        self.base, self.cov, self.timeout, self.examples, self.bar = (
            base, cov, timeout, examples, bar)
        costs = {p.name: p.cost for p in load_properties().values()}
        self.rank = {pair: (pair[1] != "float64", costs[pair[0]], pair[0]) for pair in cov}
        self.by_line: dict[tuple[str, int], set] = defaultdict(set)
        for pair, c in cov.items():
            if c.get("ok"):
                for file, lines in c["lines"].items():
                    for line in lines:
                        self.by_line[(file, line)].add(pair)
        self.records: dict[str, dict] = {}
        self.counter = 0

    def select(self, m: GenMutant) -> set:
        return set().union(*(self.by_line.get((m.file, line), set()) for line in m.lines))

    def chain(self, mutants: list[GenMutant]) -> Chain:
        """The mutants of one function, in order; earlier killers are tried first."""
        killers: list[tuple[str, str]] = []
        for m in mutants:
            rec = _record(m)
            self.records[m.id] = rec
            chosen = self.select(m)
            if m.id in EQUIVALENT:
                rec.update(status="equivalent", why=EQUIVALENT[m.id])
            elif not chosen:
                rec.update(status="not-covered", why="no property executes this line")
            else:
                order = sorted(chosen, key=lambda p: (p not in killers,
                                                      killers.index(p) if p in killers else 0,
                                                      self.rank[p]))
                budget = self.timeout + 3 * sum(self.cov[p]["seconds"] for p in chosen)
                self.counter += 1
                work = self.base.parent.parent / f"m{self.counter}"
                res = yield Job(partial(_mutant_run, m, self.base, work, order, self.examples),
                                timeout=budget)
                shutil.rmtree(work, ignore_errors=True)
                _outcome(rec, res, len(order), budget)
                pair = (res.get("killed_by"), res.get("backend"))
                if rec["status"] == "killed" and pair in self.cov and pair not in killers:
                    killers.append(pair)
            self.bar.update()


def _record(m: GenMutant) -> dict:
    return {"id": m.id, "module": m.module, "function": m.function, "operator": m.operator,
            "line": m.line, "col": m.col, "original": m.original, "mutated": m.mutated}


def _outcome(rec: dict, res: dict, n_selected: int, budget: float) -> None:
    rec.update(seconds=res.get("seconds"), properties_selected=n_selected,
               properties_run=len(res.get("runs", [])))
    if res.get("timeout"):
        rec.update(status="killed-by-timeout", killed_by=None,
                   why=f"no result within {budget:.0f} s")
    elif "error" in res:
        rec.update(status="survived", killed_by=None, why=f"runner error: {res['error']}")
    elif res.get("killed_by"):
        rec.update(status="killed", killed_by=res["killed_by"], backend=res.get("backend"),
                   why=res.get("why", ""))
    else:
        rec.update(status="survived", killed_by=None,
                   why=f"all {n_selected} selected property runs pass")


def _bar(total: int, desc: str, progress: bool):
    tqdm.monitor_interval = 0  # no monitor thread (a class setting): the runner forks
    return tqdm(total=total, desc=desc, unit="run", leave=False,
                disable=None if progress else True)  # None: off when not a TTY


def summarize(records: list[dict]) -> dict:
    """Totals per module, per operator and overall, with the score."""
    def tally(rows):
        t = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
        t["mutants"] = len(rows)
        denom = len(rows) - t["equivalent"]
        t["score"] = round((t["killed"] + t["killed-by-timeout"]) / denom, 4) if denom else 1.0
        return t
    groups: dict[str, dict[str, list]] = {"module": defaultdict(list),
                                          "operator": defaultdict(list)}
    for r in records:
        groups["module"][r["module"]].append(r)
        groups["operator"][r["operator"]].append(r)
    return {"totals": tally(records),
            "per_module": {k: tally(v) for k, v in sorted(groups["module"].items())},
            "per_operator": {k: tally(v) for k, v in sorted(groups["operator"].items())}}


def _snapshot(tmp: Path) -> Path:
    """Copy pyref into ``tmp`` and check it matches the imported pyref (no edit in between)."""
    live = Path(sys.modules["pyref"].__file__).parent
    base = tmp / "base" / "pyref"
    shutil.copytree(live, base, ignore=shutil.ignore_patterns("__pycache__"))
    if live.resolve() != pyref_dir():
        raise ValueError(f"the imported pyref ({live}) is not the importable one ({pyref_dir()})")
    return base


def run_generated(files: list[str] | None = None, n_sample: int | None = None, jobs: int = 2,
                  timeout: float = 120.0, ids: list[str] | None = None,
                  examples: int | None = None, coverage_examples: int | None = None,
                  progress: bool = True) -> dict:
    """Generate, select and run the mutants; returns the JSON-able report.

    ``files``: pyref modules (relative paths) to mutate (default: all numerical modules);
    ``n_sample``: a fixed sample (:func:`sample`); ``ids``: only these mutants;
    ``examples``/``coverage_examples``: override the profile's example counts of the mutant
    runs / the coverage pass (tests use a cheap coverage pass)."""
    start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="plga-mutation-"))
    try:
        base = _snapshot(tmp)
        check_equivalent(generate(base))
        mutants = generate(base, files)
        if ids is not None:
            unknown = sorted(set(ids) - {m.id for m in mutants})
            if unknown:
                raise ValueError(f"no such generated mutant: {', '.join(unknown)}")
            mutants = [m for m in mutants if m.id in set(ids)]
        if n_sample is not None:
            mutants = sample(mutants, n_sample)
        t0 = time.monotonic()
        cov = coverage_map(jobs, coverage_examples, progress)
        cov_seconds = time.monotonic() - t0
        bar = _bar(len(mutants), "mutants", progress)
        ctx = _Context(base, cov, timeout, examples, bar)
        chains: dict[tuple[str, str], list[GenMutant]] = defaultdict(list)
        for m in mutants:
            chains[(m.module, m.function)].append(m)
        # longest chains first: the last chain to finish is a short one
        ordered = sorted(chains.values(), key=lambda c: -len(c))
        run_chains([ctx.chain(c) for c in ordered], jobs)
        bar.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    records = [ctx.records[m.id] for m in mutants]
    failing = sorted(f"{p}/{b}: {c.get('why') or c.get('error') or 'timeout'}"
                     for (p, b), c in cov.items() if not c.get("ok"))
    return {"kind": "generated", "profile": PROFILE, "seed": SEED, "jobs": jobs,
            "timeout": timeout, "sample": n_sample, "modules": sorted({m.file for m in mutants}),
            "skipped_modules": SKIPPED_MODULES, "skipped_functions": SKIPPED_FUNCTIONS,
            "coverage": {"runs": len(cov), "seconds": round(cov_seconds, 1),
                         "examples": coverage_examples, "failing_on_unmutated_pyref": failing},
            "seconds": round(time.monotonic() - start, 1),
            **summarize(records), "mutants": records}
