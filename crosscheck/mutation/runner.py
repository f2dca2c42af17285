"""Run the generated mutants against the registered properties (``ci`` profile, seed 0) or,
for the test-scored functions (:data:`.generate.TEST_SCORED`), against their tests.

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
3. **Test-scored mutants** (``scored_by: "tests"``): a baseline child runs each distinct set of
   node ids on the unmutated snapshot under the same line tracer (it must pass with no skipped
   test; else its mutants are ``not-covered``, never counted as killed); a mutant whose lines
   its tests do not execute is ``not-covered``; otherwise a forked child imports the mutated
   copy and runs ``pytest.main`` on the node ids (:mod:`.testrun`): killed when a test fails.
4. A mutant listed in :data:`.equivalent.EQUIVALENT` is not run (status ``equivalent``).

Statuses: ``killed``, ``killed-by-timeout`` (the child ran past its timeout: ``timeout`` plus
three times the coverage-pass seconds of its selected runs, so a surviving mutant on a line all
properties execute is not mistaken for a hang), ``survived``, ``not-covered``, ``equivalent``.
Score per module: (killed + killed-by-timeout) / (mutants - equivalent); the test-scored
mutants of a module are tallied apart (``per_module`` key ``"<module> (tests)"``, and
``per_test_function``), so the property score and the test score stay distinguishable.
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
from .generate import GenMutant, generate, pyref_dir
from .pool import Chain, Job, run_chains
from .scope import SKIPPED_FUNCTIONS, SKIPPED_MODULES, TEST_SCORED, check_test_scored
from .snapshot import NotTheCopyError, import_mutated
from .testrun import baseline_ok, line_tracer, pytest_run, repo_root

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
    prop = load_properties()[name]
    sys.settrace(line_tracer(import_root, hits))
    try:
        r = _run(run_property, prop, backend, examples)
    finally:
        sys.settrace(None)
    lines: dict[str, list[int]] = defaultdict(list)
    for fn, line in sorted(hits):
        lines[fn[len(import_root):].replace(os.sep, "/")].append(line)
    return {"ok": r.ok, "why": r.counterexample, "lines": lines}


def coverage_pairs(arb: bool = False) -> list[tuple[str, str]]:
    """The (property, backend) runs of the coverage pass: every registered property on each of
    its backends, the arb ones only with ``arb``."""
    return [(p.name, b) for p in load_properties().values() for b in p.backends
            if arb or b != "arb"]


def coverage_map(jobs: int, examples: int | None = None, progress: bool = True,
                 arb: bool = False) -> dict:
    """{(property, backend): {"ok", "why", "lines": {file: [line]}, "seconds"}} for every
    registered property and backend (``examples`` overrides the profile's count).  The arb
    runs only with ``arb``: by default the score stays comparable with the runs recorded before
    the properties ran on arb, and the arb-only code (``arb_centered``, ``arb_matmul``,
    ``arb_precision``, the arb branches elsewhere) counts as not covered."""
    pairs = coverage_pairs(arb)
    out: dict[tuple[str, str], dict] = {}
    bar = _bar(len(pairs), "coverage", progress)

    def chain(pair) -> Chain:
        out[pair] = yield Job(partial(_traced_run, *pair, examples), timeout=3600.0)
        bar.update()
    run_chains([chain(p) for p in pairs], jobs)
    bar.close()
    return out


# ============================================================================ mutants
def _mutant_run(m: GenMutant, base: Path, work: Path, order: list[tuple[str, str]],
                examples: int | None) -> dict:
    """(In a child) apply ``m`` to a copy of the pyref snapshot ``base``, re-import, run."""
    try:
        import_mutated(m, base, work)
        fuzz = importlib.import_module("crosscheck.fuzz")
        props = importlib.import_module("crosscheck.properties").load_properties()
    except NotTheCopyError:
        raise
    except Exception as exc:  # the mutated pyref does not even import: every use fails
        return {"killed_by": "<import>", "backend": None, "why": f"{type(exc).__name__}: {exc}"}
    runs = []
    for name, backend in order:
        r = _run(fuzz.run_property, props[name], backend, examples)
        runs.append([name, backend, round(r.seconds, 2)])
        if not r.ok:
            return {"killed_by": name, "backend": backend, "why": r.counterexample, "runs": runs}
    return {"killed_by": None, "runs": runs}


class _Context:
    """What the mutant chains share: the snapshot, the coverage maps, the settings."""

    def __init__(self, base: Path, cov: dict, baselines: dict, timeout: float,
                 examples: int | None, bar):
        self.base, self.cov, self.baselines, self.timeout, self.examples, self.bar = (
            base, cov, baselines, timeout, examples, bar)
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

    def _work(self) -> Path:
        self.counter += 1
        return self.base.parent.parent / f"m{self.counter}"

    def chain(self, mutants: list[GenMutant]) -> Chain:
        """The mutants of one function, in order; earlier killers are tried first."""
        if mutants[0].tests:
            yield from self.test_chain(mutants)
            return
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
                work = self._work()
                res = yield Job(partial(_mutant_run, m, self.base, work, order, self.examples),
                                timeout=budget)
                shutil.rmtree(work, ignore_errors=True)
                _outcome(rec, res, len(order), budget)
                pair = (res.get("killed_by"), res.get("backend"))
                if rec["status"] == "killed" and pair in self.cov and pair not in killers:
                    killers.append(pair)
            self.bar.update()

    def test_chain(self, mutants: list[GenMutant]) -> Chain:
        """The mutants of one test-scored function: each runs its pytest node ids."""
        for m in mutants:
            rec = _record(m)
            self.records[m.id] = rec
            base = self.baselines[m.tests]
            executed = base.get("lines", {}).get(m.file, ())
            if m.id in EQUIVALENT:
                rec.update(status="equivalent", why=EQUIVALENT[m.id])
            elif base["why"] is not None:
                rec.update(status="not-covered",
                           why=f"its tests fail on the unmutated pyref: {base['why']}")
            elif not set(m.lines) & set(executed):
                rec.update(status="not-covered", why="its tests do not execute this line")
            else:
                budget = self.timeout + 3 * base["seconds"]
                work = self._work()
                res = yield Job(partial(pytest_run, m, self.base, work, m.tests),
                                timeout=budget)
                shutil.rmtree(work, ignore_errors=True)
                _test_outcome(rec, res, budget)
            self.bar.update()


def baseline_runs(base: Path, tmp: Path, test_sets: list[tuple[str, ...]], jobs: int,
                   progress: bool = True) -> dict:
    """{node ids: {"why": None if they pass cleanly on the unmutated snapshot ``base`` (else
    why not), "lines": {file: [line]} of pyref they execute, "seconds"}} per set of node ids."""
    out: dict[tuple[str, ...], dict] = {}
    bar = _bar(len(test_sets), "test baselines", progress)

    def chain(k: int, tests: tuple[str, ...]) -> Chain:
        work = tmp / f"baseline{k}"
        res = yield Job(partial(pytest_run, None, base, work, tests, True), timeout=3600.0)
        shutil.rmtree(work, ignore_errors=True)
        out[tests] = {"why": baseline_ok(res), "lines": res.get("lines", {}),
                      "seconds": res["seconds"], "passed": res.get("passed", 0)}
        bar.update()
    run_chains([chain(k, t) for k, t in enumerate(test_sets)], jobs)
    bar.close()
    return out


def _record(m: GenMutant) -> dict:
    rec = {"id": m.id, "module": m.module, "function": m.function, "operator": m.operator,
           "line": m.line, "col": m.col, "original": m.original, "mutated": m.mutated,
           "scored_by": m.scored_by}
    if m.tests:
        rec["tests"] = list(m.tests)
    return rec


def _timeout_or_error(rec: dict, res: dict, budget: float) -> bool:
    """Record a run that timed out (killed) or whose runner failed (survived); True if so."""
    if res.get("timeout"):
        rec.update(status="killed-by-timeout", killed_by=None,
                   why=f"no result within {budget:.0f} s")
    elif "error" in res:
        rec.update(status="survived", killed_by=None, why=f"runner error: {res['error']}")
    else:
        return False
    return True


def _outcome(rec: dict, res: dict, n_selected: int, budget: float) -> None:
    rec.update(seconds=res.get("seconds"), properties_selected=n_selected,
               properties_run=len(res.get("runs", [])))
    if _timeout_or_error(rec, res, budget):
        return
    if res.get("killed_by"):
        rec.update(status="killed", killed_by=res["killed_by"], backend=res.get("backend"),
                   why=res.get("why", ""))
    else:
        rec.update(status="survived", killed_by=None,
                   why=f"all {n_selected} selected property runs pass")


def _test_outcome(rec: dict, res: dict, budget: float) -> None:
    """A test-scored mutant's status from its :func:`.testrun.pytest_run` result: killed iff a
    test failed (or did not collect, or pyref did not import); a runner error or an unusual
    pytest exit without a failure counts as survived."""
    rec.update(seconds=res.get("seconds"), tests_passed=res.get("passed"))
    failed = res.get("failed") or []
    if _timeout_or_error(rec, res, budget):
        return
    if res.get("killed_by"):
        rec.update(status="killed", killed_by=res["killed_by"], why=res.get("why", ""))
    elif failed:
        rec.update(status="killed", killed_by=failed[0][0], why=failed[0][1])
    elif res.get("exit") == 0:
        rec.update(status="survived", killed_by=None,
                   why=f"all {res.get('passed')} tests pass"
                   + (f" ({len(res['skipped'])} skipped)" if res.get("skipped") else ""))
    else:
        rec.update(status="survived", killed_by=None,
                   why=f"pytest exit code {res.get('exit')} without a failed test")


def _bar(total: int, desc: str, progress: bool):
    tqdm.monitor_interval = 0  # no monitor thread (a class setting): the runner forks
    return tqdm(total=total, desc=desc, unit="run", leave=False,
                disable=None if progress else True)  # None: off when not a TTY


def summarize(records: list[dict]) -> dict:
    """Totals overall, per scorer (``properties``/``tests``), per module (the test-scored
    mutants of a module under ``"<module> (tests)"``), per operator and per test-scored
    function, with the score."""
    def tally(rows):
        t = {s: sum(r["status"] == s for r in rows) for s in STATUSES}
        t["mutants"] = len(rows)
        denom = len(rows) - t["equivalent"]
        t["score"] = round((t["killed"] + t["killed-by-timeout"]) / denom, 4) if denom else 1.0
        return t
    groups: dict[str, dict[str, list]] = {k: defaultdict(list) for k in (
        "module", "operator", "scorer", "function")}
    for r in records:
        tests = r.get("scored_by", "properties") == "tests"
        groups["module"][r["module"] + (" (tests)" if tests else "")].append(r)
        groups["operator"][r["operator"]].append(r)
        groups["scorer"][r.get("scored_by", "properties")].append(r)
        if tests:
            groups["function"][f"{r['module']}:{r['function']}"].append(r)
    return {"totals": tally(records),
            **{f"per_{k}": {g: tally(v) for g, v in sorted(groups[key].items())}
               for k, key in (("scorer", "scorer"), ("module", "module"),
                              ("operator", "operator"), ("test_function", "function"))}}


def _snapshot(tmp: Path) -> Path:
    """Copy pyref into ``tmp`` and check it matches the imported pyref (no edit in between)."""
    live = Path(sys.modules["pyref"].__file__).parent
    base = tmp / "base" / "pyref"
    shutil.copytree(live, base, ignore=shutil.ignore_patterns("__pycache__"))
    if live.resolve() != pyref_dir():
        raise ValueError(f"the imported pyref ({live}) is not the importable one ({pyref_dir()})")
    return base


def _select(mutants: list[GenMutant], ids, n_sample, scored_by) -> list[GenMutant]:
    if scored_by is not None:
        if scored_by not in ("properties", "tests"):
            raise ValueError(f"scored_by must be 'properties' or 'tests', got {scored_by!r}")
        mutants = [m for m in mutants if m.scored_by == scored_by]
    if ids is not None:
        unknown = sorted(set(ids) - {m.id for m in mutants})
        if unknown:
            raise ValueError(f"no such generated mutant: {', '.join(unknown)}")
        mutants = [m for m in mutants if m.id in set(ids)]
    return mutants if n_sample is None else sample(mutants, n_sample)


def run_generated(files: list[str] | None = None, n_sample: int | None = None, jobs: int = 2,
                  timeout: float = 120.0, ids: list[str] | None = None,
                  examples: int | None = None, coverage_examples: int | None = None,
                  progress: bool = True, scored_by: str | None = None,
                  arb: bool = False) -> dict:
    """Generate, select and run the mutants; returns the JSON-able report.

    ``files``: pyref modules (relative paths) to mutate (default: all numerical modules);
    ``n_sample``: a fixed sample (:func:`sample`); ``ids``: only these mutants;
    ``scored_by``: only the ``"properties"`` or only the ``"tests"`` mutants; ``arb``: the
    properties' arb runs score the mutants too (:func:`coverage_map`);
    ``examples``/``coverage_examples``: override the profile's example counts of the mutant
    runs / the coverage pass (tests use a cheap coverage pass). The property coverage pass
    runs only if a property-scored mutant is selected, the test baselines only for the
    selected test-scored ones."""
    start = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="plga-mutation-"))
    try:
        base = _snapshot(tmp)
        every = generate(base)
        check_equivalent(every)
        chosen = every if files is None else [m for m in every if m.file in set(files)]
        mutants = _select(chosen, ids, n_sample, scored_by)
        # the test files are needed (and checked) only when test-scored mutants run
        check_test_scored(base, repo_root() if any(m.tests for m in mutants) else None)
        t0 = time.monotonic()
        cov = (coverage_map(jobs, coverage_examples, progress, arb)
               if any(not m.tests for m in mutants) else {})
        cov_seconds = time.monotonic() - t0
        sets = sorted({m.tests for m in mutants if m.tests})
        baselines = baseline_runs(base, tmp, sets, jobs, progress)
        bar = _bar(len(mutants), "mutants", progress)
        ctx = _Context(base, cov, baselines, timeout, examples, bar)
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
    failing += sorted(f"{' '.join(t)}: {b['why']}" for t, b in baselines.items() if b["why"])
    return {"kind": "generated", "profile": PROFILE, "seed": SEED, "jobs": jobs,
            "timeout": timeout, "sample": n_sample, "scored_by": scored_by, "arb_runs": arb,
            "modules": sorted({m.file for m in mutants}),
            "skipped_modules": SKIPPED_MODULES, "skipped_functions": SKIPPED_FUNCTIONS,
            "test_scored": {f: {"why": s.why, "tests": list(s.tests)}
                            for f, s in TEST_SCORED.items()},
            "coverage": {"runs": len(cov), "seconds": round(cov_seconds, 1),
                         "examples": coverage_examples, "failing_on_unmutated_pyref": failing,
                         "test_baselines": [{"tests": list(t), "passed": b["passed"],
                                             "seconds": b["seconds"], "ok": b["why"] is None}
                                            for t, b in baselines.items()]},
            "seconds": round(time.monotonic() - start, 1),
            **summarize(records), "mutants": records}
