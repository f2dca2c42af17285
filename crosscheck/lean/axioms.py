"""``plga lean audit``: the axiom audit and the statement lock.

1. **Source scan** (:func:`~crosscheck.lean.project.scan_forbidden`): ``sorry``,
   ``admit``, ``axiom`` declarations, ``native_decide``, ``unsafe``,
   ``implemented_by``, ``extern``, options that weaken checking.
2. **Axioms of every theorem.** In this Lean build an imported theorem arrives
   without its proof, so ``Lean.collectAxioms`` cannot see across an import. The
   audit therefore concatenates all of ``Formal/`` into one file
   (:func:`~crosscheck.lean.project.monolith`), elaborates and kernel-checks it in a
   single process, and runs ``#plga_audit`` on every theorem: each must depend on
   no axiom outside ``propext``, ``Classical.choice``, ``Quot.sound`` (so
   ``sorryAx``, any user ``axiom``, ``Lean.ofReduceBool`` from ``native_decide`` and
   ``Lean.trustCompiler`` all fail).
3. **Statement lock** (``ci/statement-lock.json``): theorem name -> structural hash
   of its elaborated statement. A changed statement, a new theorem or a vanished one
   fails the audit until ``--update-lock`` rewrites the lock, so every change of a
   statement is a visible diff in review.
4. **Reports**: ``reports/axioms.json`` and ``reports/axioms.md``.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import LeanProjectError
from ..fsutil import write_atomic, write_json
from .check import stage_dir
from .project import load_project, monolith, scan_forbidden, theorems
from .run import run_lean
from .toolchain import Toolchain

ALLOWED_AXIOMS = ("propext", "Classical.choice", "Quot.sound")
#: the axioms of Lean's core library that bypass or weaken the kernel
FORBIDDEN_CORE_AXIOMS = ("sorryAx", "Lean.ofReduceBool", "Lean.ofReduceNat", "Lean.trustCompiler")
LOCK_VERSION = 1


@dataclass
class TheoremAudit:
    name: str
    file: str
    line: int
    statement: str
    kind: str = "?"
    axioms: list[str] = field(default_factory=list)
    core_facts: int = 0  # imported core theorems used (they arrive without proofs in this build)
    hash: str = ""
    status: str = "ok"  # ok | forbidden-axiom | missing | changed | new | not-a-theorem
    problems: list[str] = field(default_factory=list)


@dataclass
class AuditResult:
    ok: bool
    theorems: list[TheoremAudit]
    failures: list[str]
    seconds: float
    toolchain: str
    lock_updated: bool = False
    vanished: list[str] = field(default_factory=list)


def classify(entries: list[tuple[str, str, str]]) -> tuple[list[str], list[str]]:
    """Split ``Lean.collectAxioms`` output into (axioms, forbidden axioms).

    Each entry is ``(name, kind, origin)`` with origin ``L`` (declared in the audited
    library) or ``I`` (imported from Lean's core library). In this Lean build imported
    theorems arrive without proofs, so ``collectAxioms`` also returns every core theorem a
    proof uses; those are core facts (kernel-checked when the core library was built), not
    axioms. The genuine axioms are: the three allowed ones, the core axioms that bypass
    the kernel (:data:`FORBIDDEN_CORE_AXIOMS`), and any axiom declared in the library.
    """
    axioms, bad = [], []
    for name, kind, origin in entries:
        if name in ALLOWED_AXIOMS:
            axioms.append(name)
        elif name in FORBIDDEN_CORE_AXIOMS or origin == "L":
            axioms.append(name)
            bad.append(name)
    return sorted(set(axioms)), sorted(set(bad))


def read_lock(path: Path) -> dict:
    if not path.exists():
        return {"version": LOCK_VERSION, "theorems": {}}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise LeanProjectError(f"{path}: unreadable statement lock ({exc}); regenerate it with "
                               "--update-lock") from None
    if (not isinstance(data, dict) or data.get("version") != LOCK_VERSION
            or not isinstance(data.get("theorems"), dict)):
        raise LeanProjectError(f"{path}: not a version-{LOCK_VERSION} statement lock; "
                               "regenerate it with --update-lock")
    return data


def _run_monolith(root: Path, tc: Toolchain, modules, thms, timeout: float, log, failures):
    """Elaborate and kernel-check the concatenated library in one Lean process; Lean's
    errors go to ``failures``.  Returns the :class:`~crosscheck.lean.run.LeanRun`."""
    mono = monolith(modules, thms)
    stage = stage_dir(tc, root) / "audit"
    stage.mkdir(parents=True, exist_ok=True)
    (stage / "PlgaAudit.lean").write_text(mono.text, encoding="utf-8")
    log(f"  auditing {len(thms)} theorems in {len(modules)} modules (one Lean process) ...")
    run = run_lean(tc, "PlgaAudit.lean", stage, [], timeout=timeout)
    log(f"  elaborated and kernel-checked the concatenated library in {run.seconds:.1f} s")
    if run.timed_out:
        failures.append(f"audit timed out after {timeout:.0f} s")
    for d in run.errors:
        where = mono.locate(d.line)
        msg = d.message.strip().splitlines()[0] if d.message.strip() else "(no message)"
        failures.append(f"{where}:{d.col}: {'sorry' if d.is_sorry else 'error'}: {msg}")
    if run.returncode not in (0, 1) and not run.timed_out and not run.errors:
        failures.append(f"Lean exited with code {run.returncode}: "
                        f"{run.stderr_tail or 'no diagnostic'}")
    return run


def _parse_audit_lines(infos):
    """``#plga_audit`` output -> ({theorem: (kind, hash, [(name, kind, origin)])}, missing)."""
    seen: dict[str, tuple[str, str, list[tuple[str, str, str]]]] = {}
    missing: set[str] = set()
    for info in infos:
        for line in info.splitlines():
            if line.startswith("PLGA-AUDIT-MISSING "):
                missing.add(line.split(" ", 1)[1].strip())
            elif line.startswith("PLGA-AUDIT "):
                parts = line.split(" ")
                if len(parts) >= 4:
                    raw = (parts[4] if len(parts) > 4 else "").split(",")
                    entries = [a.split("|") for a in raw if a]
                    seen[parts[1]] = (parts[2], parts[3],
                                      [tuple(e) for e in entries if len(e) == 3])
    return seen, missing


def _check_lock(ta: TheoremAudit, entry: dict | None) -> None:
    """Compare an audited theorem with its statement-lock entry."""
    if entry is None:
        ta.status = "new" if ta.status == "ok" else ta.status
        ta.problems.append("not in the statement lock (run `plga lean audit --update-lock` and "
                           "commit the diff)")
    elif str(entry.get("hash")) != ta.hash or entry.get("statement") != ta.statement:
        what = ("elaborated statement" if str(entry.get("hash")) != ta.hash
                else "statement text")
        ta.status = "changed" if ta.status == "ok" else ta.status
        ta.problems.append(f"{what} differs from the lock (locked: "
                           f"{entry.get('statement', '?')!r}); "
                           "if intended, run `plga lean audit --update-lock`")


def _audit_theorem(t, seen, missing, elaborated_cleanly: bool) -> TheoremAudit:
    """The axioms and kind of one theorem from the ``#plga_audit`` output."""
    ta = TheoremAudit(t.name, t.rel, t.line, t.statement)
    if t.name in seen:
        ta.kind, ta.hash, entries = seen[t.name]
        ta.axioms, bad = classify(entries)
        ta.core_facts = len(entries) - len(ta.axioms)
        if ta.kind != "theorem":
            ta.status = "not-a-theorem"
            ta.problems.append(f"declared as `theorem` but elaborated as {ta.kind}")
        if bad:
            ta.status = "forbidden-axiom"
            ta.problems.append("depends on forbidden axiom(s) " + ", ".join(bad))
    else:
        ta.status = "missing"
        ta.problems.append("not found after elaboration (an error above, or not inside "
                           "`@[expose] public section`)"
                           if t.name in missing or elaborated_cleanly
                           else "not audited: the library did not elaborate to the end (see "
                           "the failures above: an error, a time-out or Lean's exit code)")
    return ta


def _write_lock(lock_path: Path, tc: Toolchain, out: list[TheoremAudit], failures, log) -> bool:
    if failures:
        log("  not updating the statement lock: the audit has failures")
        return False
    new_lock = {"version": LOCK_VERSION,
                "comment": "theorem -> structural hash of its elaborated statement; "
                           "regenerate with `plga lean audit --update-lock`",
                "toolchain": tc.version,
                "theorems": {t.name: {"hash": t.hash, "file": t.file, "statement": t.statement}
                             for t in sorted(out, key=lambda x: x.name)}}
    write_json(lock_path, new_lock)
    log(f"  statement lock written: {lock_path} ({len(out)} theorems)")
    return True


def audit(root: Path, tc: Toolchain, lock_path: Path | None = None, reports: Path | None = None,
          update_lock: bool = False, timeout: float = 3600.0, log=None) -> AuditResult:
    log = log or (lambda s: print(s, file=sys.stderr, flush=True))
    root = Path(root).absolute()
    start = time.monotonic()
    lock_path = lock_path or root / "ci" / "statement-lock.json"
    modules = load_project(root)
    failures = scan_forbidden(modules)
    thms = theorems(modules)
    run = _run_monolith(root, tc, modules, thms, timeout, log, failures)
    seen, missing = _parse_audit_lines(run.infos)

    locked = read_lock(lock_path)["theorems"]
    out: list[TheoremAudit] = []
    # a Lean process that timed out or died (exit code other than 0/1) may have stopped
    # before reaching a theorem: such a theorem is "not audited", not "not found"
    complete = not run.errors and not run.timed_out and run.returncode in (0, 1)
    for t in thms:
        ta = _audit_theorem(t, seen, missing, complete)
        if not update_lock and ta.hash:
            _check_lock(ta, locked.get(t.name))
        out.append(ta)
        for p in ta.problems:
            failures.append(f"{t.rel}:{t.line}: theorem {t.name}: {p}")

    names = {t.name for t in thms}
    vanished = sorted(n for n in locked if n not in names) if not update_lock else []
    for n in vanished:
        failures.append(f"theorem {n} is in the statement lock ({locked[n].get('file', '?')}) "
                        "but no longer in Formal/; if intended, run "
                        "`plga lean audit --update-lock`")
    lock_updated = _write_lock(lock_path, tc, out, failures, log) if update_lock else False

    res = AuditResult(not failures, out, failures, time.monotonic() - start, tc.describe(),
                      lock_updated, vanished)
    if reports is not None:
        write_reports(res, Path(reports))
    return res


def write_reports(res: AuditResult, reports: Path) -> None:
    data = {
        "ok": res.ok,
        "toolchain": res.toolchain,
        "allowed_axioms": list(ALLOWED_AXIOMS),
        "seconds": round(res.seconds, 1),
        "failures": res.failures,
        "vanished_from_lock": res.vanished,
        "theorems": [
            {"name": t.name, "file": t.file, "line": t.line, "axioms": t.axioms,
             "core_facts_used": t.core_facts, "status": t.status,
             "statement_hash": t.hash, "statement": t.statement, "problems": t.problems}
            for t in res.theorems
        ],
    }
    write_json(reports / "axioms.json", data)
    allowed = ", ".join(f"`{a}`" for a in ALLOWED_AXIOMS)
    n_ok = sum(t.status == "ok" for t in res.theorems)
    lines = [
        "# Axiom audit",
        "",
        f"Toolchain: {res.toolchain}. Allowed axioms: {allowed}.",
        f"Result: **{'PASS' if res.ok else 'FAIL'}** — {len(res.theorems)} theorems, "
        f"{n_ok} ok, {len(res.failures)} failure(s); {res.seconds:.0f} s.",
        "",
        "Every theorem was elaborated and kernel-checked in one process over the whole library, "
        "so the axioms listed include those reached through other project theorems. Axioms used "
        "inside Lean's core library (e.g. `Classical.choice` behind `Classical.em`) are invisible "
        "here: core theorems are imported without proofs (the column 'core facts' counts the core "
        "theorems each proof relies on).",
        "",
    ]
    if res.failures:
        lines += ["## Failures", ""] + [f"- {f}" for f in res.failures] + [""]
    lines += ["## Theorems", "", "| theorem | file | axioms | core facts | status |",
              "|---|---|---|---|---|"]
    for t in res.theorems:
        axs = ", ".join(f"`{a}`" for a in t.axioms) or "none"
        lines.append(f"| `{t.name}` | {t.file}:{t.line} | {axs} | {t.core_facts} | {t.status} |")
    write_atomic(reports / "axioms.md", "\n".join(lines) + "\n")
