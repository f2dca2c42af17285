"""Properties for ``Formal/Spec`` (namespace ``PLGA.Spec``): the deductive operator and the
decoder assembled in Lean exactly as ``pyref`` computes them.

``Formal/Spec`` composes the library's definitions into the model that ``pyref`` implements,
so its theorems are checked on ``pyref``'s full model: the operator chain a layer reports is
compared with the same chain evaluated by :mod:`._eval`, which is written from the Lean
definitions with explicit mpmath loops and imports nothing from ``pyref`` (so a wrong formula,
a wrong wiring — which tensor feeds which step, which head's parameters, rotated or unrotated
queries — cannot cancel), and the parameter-level SDPA inclusion runs ``PLDRModel`` against
``SDPAModel`` / ``ConstantGModel``. Tolerances follow :mod:`crosscheck.properties._arith`.
"""
