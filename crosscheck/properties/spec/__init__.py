"""Properties for ``Formal/Spec`` (namespace ``PLGA.Spec``) and the formula-level checks of every
model component: pyref against the independent spec evaluator.

``Formal/Spec`` composes the library's definitions into the model that ``pyref`` implements.
The properties here compare pyref with :mod:`crosscheck.spec_eval.model` (one function per Lean
definition, explicit mpmath loops, no import from pyref) and :mod:`crosscheck.spec_eval.decode`
(spec B's cached decoding assembled from those definitions), so that a wrong formula or a wrong
wiring — which tensor feeds which step, which head's parameters, rotated or unrotated queries,
``a·A_P`` or ``A_P·a`` — cannot cancel:

* :mod:`.components`: ``pyref.layers``, ``pyref.rope``, the Φ_res row maps and the operator
  chain of ``pyref.plga``, each against its Lean definition;
* :mod:`.heads`: scores, masks, the softmax in both modes, per-head attention;
* :mod:`.model`: the full ``PLDRModel`` (forward with every cache combination, greedy
  generation) and the ``ConstantGModel`` / ``SDPAModel`` variants;
* :mod:`.decode`: one KV-cached step against the uncached full recomputation (exact for fixed
  operators, the prefill operators pinned for PLGA, not exact with the recomputed Gram);
* :mod:`.operator`, :mod:`.theorems`: the operator chain of a layer with its Perron and
  positivity corollaries, and the parameter-level SDPA inclusion.
* :mod:`.rope`: the model with the real RoPE family (``ropeFamily``): the rotation against
  ``apply_rope``, the commutant criterion, absorption iff commutant at the score level, and
  absorption for the decoder and the logits.

Generic inputs throughout (no zero, identity or commuting parameters except as explicit
examples); the evaluator runs at 20 extra digits (:mod:`._shared`). Tolerances follow
:mod:`crosscheck.properties._arith`: mp 1e-40·scale, float64 bounds derived per property.
"""
