"""Cross-check properties of ``Formal/Data/Block.lean``: ``JUSTIFY`` only (no theorem of this file
has a numeric counterpart of its own).

Conventions and tolerances: :mod:`crosscheck.properties.data`."""

from __future__ import annotations

#: theorems of this Lean file with no meaningful numeric counterpart, and why
JUSTIFY: dict[str, str] = {
    "PLGA.fin2_cases":
        "case split of Fin 2 (a pair has two coordinates); no computation",
    "PLGA.fin2_one_ne_zero":
        "decidable fact (1 : Fin 2) ≠ 0 about indices; no computation",
    "PLGA.M2.ext":
        "extensionality of 2×2 matrices (equal entries give equal matrices); a logical principle, "
        "no computation",
    "PLGA.M2.one_00":
        "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    "PLGA.M2.one_01":
        "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    "PLGA.M2.one_10":
        "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    "PLGA.M2.one_11":
        "definitional (rfl) entry of the Lean 2×2 identity; no computation",
    "PLGA.M2.mul_apply":
        "definitional unfolding of the 2×2 product",
    "PLGA.M2.mul_assoc":
        "2×2 instance of PLGA.Mat.mul_assoc (checked by matmul_associative); pyref forms no "
        "separate 2×2 products",
    "PLGA.M2.one_mul":
        "2×2 instance of PLGA.Mat.one_mul (checked by identity_is_neutral); exact in IEEE and "
        "mpmath",
    "PLGA.M2.mul_one":
        "2×2 instance of PLGA.Mat.mul_one (checked by identity_is_neutral); exact in IEEE and "
        "mpmath",
    "PLGA.M2.rot_zero_zero":
        "rot 0 0 = 0 on the Lean definition (a·1 + b·J with a = b = 0); only used to prove "
        "commEmbed_zero, no pyref counterpart",
    "PLGA.psum_congr":
        "psum algebra used only inside proofs (congruence of sums over pair indices); pyref sums "
        "flat arrays",
    "PLGA.psum_add":
        "psum algebra used only inside proofs (linearity); the flat counterpart PLGA.fsum_add is "
        "checked by matvec_linearity",
    "PLGA.psum_mul_left":
        "psum algebra used only inside proofs; the flat counterpart PLGA.fsum_mul_left is checked "
        "by matmul_associative",
    "PLGA.psum_mul_right":
        "psum algebra used only inside proofs; the flat counterpart PLGA.fsum_mul_right is checked "
        "by matmul_associative",
    "PLGA.psum_zero'":
        "psum algebra used only inside proofs (a sum of exact zeros is exactly zero in every "
        "arithmetic)",
    "PLGA.psum_comm":
        "psum algebra used only inside proofs (exchange of sums); the flat counterpart "
        "PLGA.fsum_comm is checked by matmul_associative",
    "PLGA.psum_block":
        "psum algebra used only inside proofs (terms outside one block vanish); its consequences "
        "for RoPE products are checked",
    "PLGA.psum_single":
        "psum algebra used only inside proofs (a single nonzero term); no computation",
    "PLGA.BMat.ext_block":
        "extensionality (equal 2×2 blocks give equal matrices); a logical principle, no "
        "computation",
    "PLGA.BMat.transpose_transpose":
        "definitional (rfl) involution of the pair-indexed transpose; exact data movement",
    "PLGA.BMat.mul_assoc":
        "pair-indexed restatement of PLGA.Mat.mul_assoc (checked by matmul_associative); pyref has "
        "only flat arrays",
    "PLGA.BMat.transpose_mul":
        "pair-indexed restatement of PLGA.Mat.transpose_mul (checked by transpose_of_product)",
    "PLGA.BMat.one_mul":
        "pair-indexed restatement of PLGA.Mat.one_mul (checked by identity_is_neutral)",
    "PLGA.BMat.mul_one":
        "pair-indexed restatement of PLGA.Mat.mul_one (checked by identity_is_neutral)",
    "PLGA.BMat.transpose_one":
        "pair-indexed restatement of PLGA.Mat.transpose_one (checked by identity_is_neutral)",
    "PLGA.BMat.mulVec_mulVec":
        "pair-indexed restatement of PLGA.Mat.mulVec_mulVec (checked by matvec_linearity)",
    "PLGA.BMat.mulVec_basis":
        "A e_l is column l: exact data movement (products by 1 and exact zeros); used only inside "
        "proofs",
    "PLGA.BMat.dot_basis":
        "u · e_l = u_l: exact (products by 1 and exact zeros); used only inside proofs",
    "PLGA.BMat.dot_mulVec":
        "⟨u, Av⟩ = ⟨Aᵀu, v⟩, generic linear algebra used only inside the collapse proofs, whose "
        "statements are checked",
    "PLGA.BMat.ext_mulVec":
        "extensionality through matrix–vector products; a logical principle, no computation",
    "PLGA.BMat.ext_dot":
        "extensionality through dot products; a logical principle, no computation",
    "PLGA.BMat.mulVec_one":
        "pair-indexed restatement of PLGA.Mat.mulVec_one (checked by identity_is_neutral)",
}
