"""Cross-check properties of ``Formal/Data/Sum.lean``: ``JUSTIFY`` only (no theorem of this file
has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.data`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.fsum_zero":
        "definitional unfolding of the empty sum; no computation to check",
    "PLGA.fsum_succ":
        "definitional unfolding of the recursive sum; no computation to check",
    "PLGA.fsum_const_zero":
        "a sum of exact zeros is exactly zero in every arithmetic; nothing numeric to check",
    "PLGA.fsum_congr":
        "congruence (equal summands give equal sums) is a property of functions, not of arithmetic",
    "PLGA.fsum_neg":
        "sign symmetry of summation is exact in IEEE and mpmath arithmetic (negation is exact)",
    "PLGA.fsum_sub":
        "linearity of finite sums; covered numerically by matvec_linearity's fsum_add instance",
    "PLGA.fsum_nonneg":
        "order fact about exact sums; floating-point sums of nonnegatives are nonnegative by "
        "monotone rounding, nothing to measure",
    "PLGA.fsum_le_fsum":
        "order fact about exact sums; used only inside proofs (Perron, DAG bounds) whose "
        "statements are checked",
    "PLGA.le_fsum_of_nonneg":
        "order fact about exact sums; used only inside proofs whose statements are checked",
    "PLGA.fsum_const":
        "arithmetic identity Σ_{i<n} c = n·c of exact sums, used inside the LayerNorm/DAG proofs "
        "whose statements are checked",
}
