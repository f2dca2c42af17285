"""Cross-check properties of ``Formal/Perron/Completeness.lean``: ``JUSTIFY`` only (no theorem of
this file has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Perron.exists_half":
        "every field element has a half; algebraic helper with no computation behind it",
    "PLGA.Perron.le_of_forall_pos_mul":
        "order principle (Y ≤ X + δC for all δ > 0 ⇒ Y ≤ X) used only inside the existence proof",
    "PLGA.Perron.exists_seq_sup":
        "least upper bounds of bounded sequences (Dedekind completeness); a property of ℝ, not of "
        "any computation",
    "PLGA.Perron.exists_seq_inf":
        "greatest lower bounds of bounded sequences (completeness); a property of ℝ, not of any "
        "computation",
    "PLGA.Perron.mono_of_succ":
        "a sequence increasing step by step is monotone; induction lemma used inside proofs (the "
        "steps are checked by lo_le_lo_succ)",
    "PLGA.Perron.anti_of_succ":
        "a sequence decreasing step by step is antitone; induction lemma used inside proofs (the "
        "steps are checked by hi_succ_le_hi)",
    "PLGA.Perron.mono_of_succ_le":
        "j ≤ k form of mono_of_succ; sequence lemma used only inside proofs",
    "PLGA.Perron.anti_of_succ_le":
        "j ≤ k form of anti_of_succ; sequence lemma used only inside proofs",
}
