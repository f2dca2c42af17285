module

public import Formal.Analytic
public import Formal.Data.Matrix

/-!
# iSwiGLU and the metric tensor `A_LM` (Def 3.1, Prop 3.7)

`iSwiGLU(u) = u · silu(u) = u² σ(u)` for a positive gate `σ` (the sigmoid in the model), and the
interaction (metric) tensor `A_LM = iSwiGLU(W A + b) + ε`, where `W` left-multiplies `A` (it mixes
rows) and `iSwiGLU` acts entrywise. `iSwiGLU ≥ 0`, `> 0` off zero, and every entry of `A_LM` is
`≥ ε` (strictly positive for `ε > 0`) — the entrywise positivity that the Perron–Frobenius
theorem (Thm 3.8) needs.

## Main definitions

* `iswiglu σ u`: `iSwiGLU(u) = u² σ(u)` for a gate `σ`;
* `metricTensor σ W A b ε`: `A_LM = iSwiGLU(W A + b) + ε`.

## Main statements

* `iswiglu_nonneg`, `iswiglu_pos`: `iSwiGLU ≥ 0`, and `> 0` for `u ≠ 0` (Def 3.1);
* `metricTensor_entry_ge`, `metricTensor_entry_pos`: every entry of `A_LM` is `≥ ε`, hence `> 0`
  for `ε > 0` (Prop 3.7).

## Implementation notes

The gate is any function (positivity via `PosFn` where needed), over any ordered ring.
Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`:
`iswiglu_nonneg`, `iswiglu_pos`, `metric_entry_ge`, `metric_entry_pos` (`Iswiglu.lean`), there
for the real sigmoid only and without the full `W A + b` input. Not covered: the shape of
`iSwiGLU` (monotonicity, growth), upper bounds on `A_LM`.

## References

* Def 3.1, Prop 3.7, Thm 3.8 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 6 (metric tensor).
-/

@[expose] public section

namespace PLGA

variable {α : Type u}

/-- `iSwiGLU(u) = u² σ(u)` for a gate `σ`. -/
def iswiglu [Mul α] (σ : α → α) (u : α) : α := u * u * σ u

/-- The metric tensor `A_LM = iSwiGLU(W A + b) + ε` (entrywise `iSwiGLU`,
`W` multiplying on the left). -/
noncomputable def metricTensor [Add α] [Mul α] [OfNat α 0] {n : Nat} (σ : α → α)
    (W A b : Mat n n α) (ε : α) : Mat n n α :=
  fun i j => iswiglu σ (Mat.mul W A i j + b i j) + ε

section Ordered
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Def 3.1: `iSwiGLU(u) = u² σ(u) ≥ 0` for any nonnegative gate value.
Does not cover: the shape of `iSwiGLU` (monotonicity, growth). -/
theorem iswiglu_nonneg (σ : α → α) (hσ : ∀ u, 0 ≤ σ u) (u : α) : 0 ≤ iswiglu σ u := by
  unfold iswiglu
  have hsq : 0 ≤ u * u := by
    rcases Std.le_total (a := 0) (b := u) with h | h
    · exact Lean.Grind.OrderedRing.mul_nonneg h h
    · exact Lean.Grind.OrderedRing.mul_nonneg_of_nonpos_of_nonpos h h
  exact Lean.Grind.OrderedRing.mul_nonneg hsq (hσ u)

/-- Def 3.1: `iSwiGLU(u) > 0` for `u ≠ 0` and a strictly positive gate (the sigmoid).
Does not cover: `u = 0`, where `iSwiGLU(0) = 0`. -/
theorem iswiglu_pos (σ : PosFn α) (u : α) (hu : u ≠ 0) : 0 < iswiglu σ.f u := by
  unfold iswiglu
  have h1 : 0 < u * u := by
    rcases (show u < 0 ∨ u = 0 ∨ 0 < u by grind) with h | h | h
    · exact Lean.Grind.OrderedRing.mul_pos_of_neg_of_neg h h
    · exact absurd h hu
    · exact Lean.Grind.OrderedRing.mul_pos h h
  exact Lean.Grind.OrderedRing.mul_pos h1 (σ.pos u)

/-- Prop 3.7: every entry of `A_LM = iSwiGLU(W A + b) + ε` is at least `ε`,
for every input `A` and parameters `W`, `b`. Does not cover: upper bounds on `A_LM`. -/
theorem metricTensor_entry_ge {n : Nat} (σ : PosFn α) (W A b : Mat n n α) (ε : α) (i j : Fin n) :
    ε ≤ metricTensor σ.f W A b ε i j := by
  unfold metricTensor
  have := iswiglu_nonneg σ.f (fun u => Std.le_of_lt (σ.pos u)) (Mat.mul W A i j + b i j)
  grind

/-- Prop 3.7: for `ε > 0` the metric tensor is entrywise strictly positive, the hypothesis
of the Perron–Frobenius theorem (Thm 3.8). -/
theorem metricTensor_entry_pos {n : Nat} (σ : PosFn α) (W A b : Mat n n α) {ε : α} (hε : 0 < ε)
    (i j : Fin n) : 0 < metricTensor σ.f W A b ε i j :=
  Std.lt_of_lt_of_le hε (metricTensor_entry_ge σ W A b ε i j)

end Ordered

end PLGA
