"""The independent spec evaluator: the Lean definitions evaluated as plainly as possible.

The second of the three layers of evidence (Lean statement -> this evaluator -> ``pyref``):
one small function per Lean definition, named like it (``phiResMat``, ``metricTensor``,
``maskedSoftmax``, ...), written from the Lean text on mpmath scalars held in nested lists
with explicit loops. Nothing here imports :mod:`pyref` or numpy arithmetic
(``tests/test_crosscheck.py`` enforces it), so a wrong formula in ``pyref`` cannot cancel
against the same formula here. Call inside ``mpmath.workdps(dps)``.

Modules: :mod:`._scalar` (exact conversion, the scalar functions the Lean files take as
hypotheses: σ, exp/log, √), :mod:`.model` (``Formal/Structure``, ``Metric``, ``Attention``,
``Spec``: the PLDR-LLM decoder and its cached decoding), :mod:`.analysis` (``Formal/Perron``,
``Structure/Dag``, ``RankOne``, ``Rope``), :mod:`.losses`, :mod:`.variants_linear` (KLA, Gated
DeltaNet/KDA) and :mod:`.variants_depth` (mHC, Attention Residuals) (``Formal/Variants``).
"""
