"""Cross-check properties of ``Formal/Spec/Decoder.lean``: ``JUSTIFY`` only (its generator
lemmas ``layer_gen_eq*`` are checked by ``spec_operator_assembly`` in :mod:`.operator`).

Conventions and tolerances: :mod:`crosscheck.properties.spec`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Spec.decoder_cons":
        "one step of the list fold that defines the spec decoder (definitional); every "
        "full-model property runs pyref's layer loop, which is this fold",
    "PLGA.Spec.layer_run_eq":
        "unfolds a spec layer into Attention.decoderLayer with its generator (definitional); the "
        "generator is checked by spec_operator_assembly, the layer by the Attention properties",
}
