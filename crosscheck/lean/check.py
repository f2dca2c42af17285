"""``plga lean check``: kernel-check every module of ``Formal/`` in dependency order.

Each module is elaborated (and kernel-checked) by its own Lean process with ``-o``,
so later modules import the ``.olean`` of earlier ones exactly as ``lake build``
would; independent modules run in parallel (``jobs``, default 2 = the cores here).
Measured on this machine (2 cores, WASM Lean): ~10-15 s per module, most of it
process start-up; one process over a concatenation of all modules is faster but
cannot check the module structure (``public import``/``@[expose]``) that a native
``lake build`` relies on, so the check uses modules and the axiom audit uses the
concatenation.

A module passes when its process reports no error and no ``sorry`` warning and
finishes within ``timeout`` seconds. Results are cached by a key over the
toolchain, the module's text and its dependencies' keys, so an unchanged module
is not re-elaborated (``--no-cache`` disables this; CI always starts empty).
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from .project import Module, load_project
from .run import Diagnostic, LeanRun, run_lean
from .toolchain import Toolchain


@dataclass
class ModuleResult:
    module: str
    rel: str
    ok: bool
    seconds: float
    cached: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    problem: str = ""  # one-line reason when not ok


@dataclass
class CheckResult:
    ok: bool
    results: list[ModuleResult]
    seconds: float
    toolchain: str

    def summary(self) -> str:
        bad = [r for r in self.results if not r.ok]
        return (f"lean check: {len(self.results) - len(bad)}/{len(self.results)} modules ok "
                f"in {self.seconds:.1f} s ({self.toolchain})")


def stage_dir(tc: Toolchain, root: Path) -> Path:
    """A per-project staging directory under the toolchain's work root (visible to WASM Lean)."""
    key = hashlib.sha256(str(Path(root).absolute()).encode()).hexdigest()[:12]
    return tc.work_root / f"stage-{key}"


def _key(tc: Toolchain, mod: Module, dep_keys: list[str]) -> str:
    h = hashlib.sha256()
    h.update(tc.describe().encode())
    h.update(mod.name.encode())
    h.update(mod.text.encode())
    for k in dep_keys:
        h.update(k.encode())
    return h.hexdigest()


def _olean(build: Path, m: Module) -> Path:
    return build / Path(*m.name.split(".")).with_suffix(".olean")


def _stage_sources(stage: Path, modules: list[Module], use_cache: bool) -> tuple[Path, Path]:
    """Write the module texts under ``stage/src`` and create ``stage/build`` (emptied first
    without ``use_cache``); returns (src, build)."""
    src, build = stage / "src", stage / "build"
    if not use_cache and build.exists():
        shutil.rmtree(build)
    src.mkdir(parents=True, exist_ok=True)
    build.mkdir(parents=True, exist_ok=True)
    for m in modules:
        dst = src / m.rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        dst.write_text(m.text, encoding="utf-8")
    return src, build


def _run_module(tc: Toolchain, m: Module, key: str, src: Path, build: Path, use_cache: bool,
                timeout: float) -> ModuleResult:
    """Check one module (its dependencies' .olean files are in ``build``), or reuse the cached
    .olean when its stamp holds ``key``."""
    olean = _olean(build, m)
    stamp = olean.with_name(olean.name + ".plga-key")
    if use_cache and stamp.exists() and olean.exists() and stamp.read_text() == key:
        return ModuleResult(m.name, m.rel, True, 0.0, cached=True)
    if stamp.exists():
        stamp.unlink()
    run: LeanRun = run_lean(tc, m.rel, src, [build], olean_out=olean, timeout=timeout)
    if run.timed_out:
        return ModuleResult(m.name, m.rel, False, run.seconds, diagnostics=run.diagnostics,
                            problem=f"timed out after {timeout:.0f} s")
    errs = run.errors
    if errs or run.returncode != 0:
        problem = errs[0].format() if errs else (
            f"Lean exited with code {run.returncode} and no diagnostic"
            + (f": {run.stderr_tail}" if run.stderr_tail else ""))
        return ModuleResult(m.name, m.rel, False, run.seconds, diagnostics=run.diagnostics,
                            problem=problem)
    stamp.write_text(key)
    return ModuleResult(m.name, m.rel, True, run.seconds, diagnostics=run.diagnostics)


def _log_result(log, m: Module, r: ModuleResult) -> None:
    tag = "ok  " if r.ok else "FAIL"
    when = "cached" if r.cached else f"{r.seconds:6.1f} s"
    log(f"  {tag} {m.rel:<48} {when}")
    for d in r.diagnostics:
        if d.severity == "error" or d.is_sorry:
            log("       " + d.format().replace("\n", "\n       "))
    if not r.ok and not r.diagnostics:
        log("       " + r.problem)


def check(root: Path, tc: Toolchain, jobs: int = 2, timeout: float = 900.0,
          use_cache: bool = True, log=None) -> CheckResult:
    """Check every module under ``root``; see the module docstring."""
    log = log or (lambda s: print(s, file=sys.stderr, flush=True))
    start = time.monotonic()
    modules = load_project(root)
    by_name = {m.name: m for m in modules}
    src, build = _stage_sources(stage_dir(tc, root), modules, use_cache)
    deps = {m.name: [i for i in m.imports if i in by_name] for m in modules}
    keys: dict[str, str] = {}
    results: dict[str, ModuleResult] = {}
    pending = {m.name for m in modules}
    failed: set[str] = set()
    running: dict[Future, Module] = {}
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        while pending or running:
            ready = [by_name[n] for n in sorted(pending)
                     if all(d in results for d in deps[n])]
            for m in ready:
                pending.discard(m.name)
                bad_deps = [d for d in deps[m.name] if d in failed]
                if bad_deps:
                    results[m.name] = ModuleResult(
                        m.name, m.rel, False, 0.0,
                        problem=f"not checked: depends on failed {', '.join(bad_deps)}")
                    failed.add(m.name)
                    log(f"  skip {m.rel}: depends on failed {', '.join(bad_deps)}")
                    continue
                keys[m.name] = _key(tc, m, [keys[d] for d in deps[m.name]])
                fut = pool.submit(_run_module, tc, m, keys[m.name], src, build, use_cache,
                                  timeout)
                running[fut] = m
            if not running:
                continue
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for fut in done:
                m = running.pop(fut)
                r = fut.result()
                results[m.name] = r
                if not r.ok:
                    failed.add(m.name)
                _log_result(log, m, r)
    ordered = [results[m.name] for m in modules]
    res = CheckResult(all(r.ok for r in ordered), ordered, time.monotonic() - start, tc.describe())
    return res
