"""Cross-check properties of ``Formal/Perron/DominanceComplex.lean``: ``JUSTIFY`` only (no theorem
of this file has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.perron`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.Perron.le_of_mul_self_le":
        "a² ≤ b², b ≥ 0 ⇒ a ≤ b; order helper used inside proofs",
    "PLGA.Perron.mul_self_le_mul_self":
        "0 ≤ a ≤ b ⇒ a² ≤ b²; order helper used inside proofs",
    "PLGA.Perron.sqrt_eq_of":
        "uniqueness of the nonnegative square root, from the SqrtFn hypothesis; no computation",
    "PLGA.Perron.sqrt_le_of":
        "monotonicity of the square root from the SqrtFn hypothesis; order helper",
    "PLGA.Perron.sumsq_nonneg":
        "p² + q² ≥ 0; exact order fact",
    "PLGA.Perron.cmod_nonneg":
        "|z| ≥ 0 for the complex modulus; immediate from SqrtFn",
    "PLGA.Perron.cmod_mul_self":
        "|z|² = p² + q²; the definition of the modulus via SqrtFn",
    "PLGA.Perron.cmod_ne_zero":
        "z ≠ 0 ⇒ |z| ≠ 0; exact fact about the modulus",
    "PLGA.Perron.cmod_smul":
        "|c z| = c|z| for c ≥ 0; algebraic law of the modulus used inside proofs",
    "PLGA.Perron.cmod_mul":
        "|λz| = |λ||z|; algebraic law of the complex modulus used inside proofs",
    "PLGA.Perron.cmod_add_le":
        "triangle inequality of the complex modulus; exercised entrywise by perron_dominance "
        "through cmod_fsum_le",
    "PLGA.Perron.cmod_zero":
        "|0| = 0; definitional",
}
