"""Properties for ``Formal/Spec`` (namespace ``PLGA.Spec``): the deductive operator and the
decoder assembled in Lean exactly as ``pyref`` computes them.

``Formal/Spec`` composes the library's definitions into the model that ``pyref`` implements,
so its theorems are checked on ``pyref``'s full model: the operator chain a layer reports is
compared with the chain rebuilt from ``pyref``'s public component functions on that layer's
own input (the wiring: which tensor feeds which step, which head's parameters, rotated or
unrotated queries), and the parameter-level SDPA inclusion runs ``PLDRModel`` against
``SDPAModel`` / ``ConstantGModel``. Tolerances follow :mod:`crosscheck.properties._arith`.
"""
