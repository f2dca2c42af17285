"""Cross-check properties of ``Formal/Spec/Decoder.lean``: none here; its theorems are checked by
the full-model property ``model_forward_matches_spec`` (:mod:`.model`: ``layer_run_eq``,
``decoder_cons``, ``layer_gen_eq*``, pyref's forward against the Lean decoder assembled by the
independent evaluator) and ``spec_operator_assembly`` (:mod:`.operator`).

Conventions and tolerances: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {}
