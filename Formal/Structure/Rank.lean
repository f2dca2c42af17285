module

public import Formal.Structure.Density
public import Formal.Data.Linear

/-!
# `rank(QᵀQ) = rank Q ≤ min(S, d_k)` (Prop 3.6)

Prop 3.6 states that the density operator `D = Q̂ᵀ Q̂` of an `S × d_k` query matrix has the rank
of `Q̂`, hence at most `min(S, d_k)`. With the column rank `colRank` of `Formal/Data/Linear.lean`
(the maximal number of linearly independent columns) this follows from the kernel identity
`D x = 0 ⇔ Q x = 0` (`Formal/Structure/Density.lean`) and the Steinitz bound.

## Main statements

* `linIndep_cols_density_iff`: a family of columns of `D` is linearly independent iff the same
  family of columns of `Q` is;
* `colRank_density`: `rank D = rank Q`;
* `colRank_density_le_min`: `rank D ≤ min(S, d)`.

## Implementation notes

Over an ordered field (`ℝ`); the order enters only through the kernel identity. Counterpart in
the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`: `density_rank` (mathlib's
`Matrix.rank`). Not covered: the numerical rank of a floating-point `D` (the cross-check harness
compares exact ranks on rational inputs).

## References

* Prop 3.6 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 3 (the density operator).
-/

@[expose] public section

namespace PLGA.Density

open PLGA

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Prop 3.6: columns `σ` of `D = QᵀQ` are linearly independent iff columns `σ` of `Q` are. -/
theorem linIndep_cols_density_iff {S d k : Nat} (Q : Mat S d α) (σ : Fin k → Fin d) :
    LinIndep (cols (density Q) σ) ↔ LinIndep (cols Q σ) :=
  linIndep_cols_iff_of_mulVec_eq_zero_iff (density_mulVec_eq_zero_iff Q) σ

/-- **Paper Prop 3.6 (authors' `density_rank`): `rank(QᵀQ) = rank Q`** (column rank over an
ordered field). Not covered: numerical rank in floating point. -/
theorem colRank_density {S d : Nat} (Q : Mat S d α) : colRank (density Q) = colRank Q :=
  colRank_eq_of_mulVec_eq_zero_iff (density_mulVec_eq_zero_iff Q)

/-- **Paper Prop 3.6: `rank(QᵀQ) ≤ min(S, d_k)`** for an `S × d_k` query matrix `Q`. -/
theorem colRank_density_le_min {S d : Nat} (Q : Mat S d α) : colRank (density Q) ≤ min S d := by
  rw [colRank_density]; exact colRank_le_min Q

end PLGA.Density
