"""crosscheck: the harness that ties the Lean theorems (``Formal/``) to the Python
reference model (``pyref``).

* :mod:`crosscheck.lean` — the Lean pipeline: toolchain, module check, axiom audit,
  statement lock.
* :mod:`crosscheck.cli` — the ``plga`` command.
"""

__all__ = ["errors", "lean"]
