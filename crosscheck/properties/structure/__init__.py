"""Properties for ``Formal/Structure`` (namespaces ``PLGA.Structure``, ``PLGA.LayerNorm``,
``PLGA.Density``, ``PLGA.Online``, ``PLGA.PowerLaw``, ``PLGA.Dag``, ``PLGA.RankOne``,
``PLGA.RowMap``, ``PLGA.Lipschitz``), evaluated on ``pyref``'s own code paths:
``pyref.layers.layer_norm``,
``pyref.plga.density`` / ``metric_tensor`` / ``potential_tensor`` / ``residual_metric_learner``,
``pyref.losses.expm`` / ``dag_terms`` / ``dag_loss`` / ``dag_regularizer``, ``pyref.analysis.det`` /
``singular_ratio`` / ``numerical_rank``, and pyref's models (``ConstantGModel``, ``PLDRModel``:
block forward, prefix forwards, KV-cached greedy decoding).

Error bounds (see :mod:`.._arith`): float64 bounds are derived per property in the docstrings
(Higham-style ``γ_k`` bounds on a stated absolute-value scale ``T``); mp runs use the harness'
50-digit bound ``1e-40·T`` on the same scale. Several comparisons are exact by construction
(bound 0, the reason is stated). Exact reference values (e.g. ``n·var/(var+ε)`` of a float64
row) are computed with mpmath at 80 digits from the exactly converted inputs, so only pyref's
rounding is measured. A property that checks several statements combines them with
:func:`crosscheck.registry.combine`: it passes iff every sub-check passes, and reports the
worst ratio deviation/bound.
"""
