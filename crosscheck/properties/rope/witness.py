"""Cross-check properties of ``Formal/Rope/Witness.lean``: ``JUSTIFY`` only (no theorem of this
file has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.rope`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Rope.int_step_induction":
        "an induction principle on Int used to build the Rat witness; no numeric content",
    "PLGA.Rope.npow_norm":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ipow_norm":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ipow_succ":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ipow_pred":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ipow_add":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ratPairs_norm":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ratWitness_c_one":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ratWitness_s_one":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart",
    "PLGA.Rope.ratWitness_nonResonant":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart (the real frequencies' non-resonance is certified by "
        "crosscheck.certificates.rope_nonresonance)",
    "PLGA.Rope.ratWitness_commutes_iff":
        "consistency of hypotheses over Rat, proved by computation in Lean; no floating-point "
        "counterpart (the real-frequency statement is checked by "
        "commutant_projection_is_lean_proj)",
}
