"""Cross-check properties of ``Formal/Data/Order.lean``: ``JUSTIFY`` only (no theorem of this file
has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.data`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.le_of_mul_self_le_mul_self":
        "order helper (0 ≤ x, y² ≤ x² ⇒ y ≤ x) used inside proofs (Rope.seq_norm_le, "
        "orbit_norm_mul_abs_sin_le, LayerNorm.absv_scaleErr_mul_damp_le, which are checked)",
    "PLGA.le_div_of_mul_le":
        "a c ≤ b, c > 0 ⇒ a ≤ b/c; field order helper used inside proofs (Perron iteration, "
        "twirl bound)",
    "PLGA.div_le_of_le_mul":
        "b ≤ a c, c > 0 ⇒ b/c ≤ a; field order helper used inside proofs (Perron iteration)",
    "PLGA.mul_self_nonneg":
        "order fact 0 ≤ a·a: squares are nonnegative in IEEE and mpmath arithmetic (sign-exact "
        "rounding); used inside proofs",
    "PLGA.mul_self_pos":
        "a ≠ 0 ⇒ a·a > 0; order fact about exact reals, used inside proofs",
    "PLGA.ne_of_pos":
        "a > 0 ⇒ a ≠ 0; order helper used inside the softmax and AttnRes proofs",
    "PLGA.div_pos":
        "a, b > 0 ⇒ a/b > 0; field order helper used inside proofs (softmax, Perron, AttnRes)",
    "PLGA.absv_of_nonneg":
        "definition of |x| for x ≥ 0; exact in IEEE and mpmath arithmetic",
    "PLGA.absv_of_neg":
        "definition of |x| for x < 0; exact in IEEE and mpmath arithmetic",
    "PLGA.absv_nonneg":
        "|x| ≥ 0; exact in every arithmetic (sign-bit operation)",
    "PLGA.le_absv":
        "x ≤ |x|; exact order fact",
    "PLGA.neg_le_absv":
        "−x ≤ |x|; exact order fact",
    "PLGA.absv_le":
        "−b ≤ x ≤ b ⇒ |x| ≤ b; exact order fact",
    "PLGA.absv_ne_zero":
        "x ≠ 0 ⇒ |x| ≠ 0; exact",
    "PLGA.absv_mul":
        "|xy| = |x||y|; exact in IEEE arithmetic (the sign is handled exactly, the magnitude "
        "rounds identically)",
}
