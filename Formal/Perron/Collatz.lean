module

public import Formal.Perron.Positivity

/-!
# Perron–Frobenius II: Collatz–Wielandt bounds (Thm 3.8, step 3)

For a nonnegative matrix `A` (in particular `A ≥ ε > 0`) and a strictly positive eigenvector
`v` with eigenvalue `r` (a *positive eigenpair*), the Collatz–Wielandt bounds in the paper form
`min_i (A x)_i / x_i ≤ r ≤ max_i (A x)_i / x_i` for every strictly positive `x`.

## Main statements

* `collatz_le`: the general comparison: if `A x ≤ M x` for some `x > 0` and `s w ≤ A w` for
  some nonnegative nonzero `w`, then `s ≤ M`;
* `collatz_lower`, `collatz_upper`: the one-sided Collatz–Wielandt bounds against `r`;
* `collatz_wielandt_min_le`, `collatz_wielandt_le_max`: the paper form (minimum and maximum of
  the ratios, attained at some index).

## Implementation notes

This file defines nothing; it states theorems about `Mat.mulVec` only. Only nonnegativity of
`A` is used, so these apply to shifted matrices `A - δ I` as well (used for dominance). The
authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered here:
existence of a positive eigenpair (`Formal/Perron/Existence.lean`); the equality cases (see
`Formal/Perron/Uniqueness.lean`); `x` with zero entries.

## References

* Thm 3.8 (step 3) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Thm 3.8, step 3 (general Collatz–Wielandt comparison): for `A ≥ 0`, if `A x ≤ M x`
with `x > 0` and `s w ≤ A w` with `w ≥ 0`, `w ≠ 0`, then `s ≤ M`.
Does not cover: the strict version (see `Uniqueness.lean` for the equality case). -/
theorem collatz_le {n : Nat} {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j) {x w : Vec n α}
    {M s : α} (hx : ∀ i, 0 < x i) (hAx : ∀ i, Mat.mulVec A x i ≤ M * x i)
    (hw : ∀ i, 0 ≤ w i) {k : Fin n} (hk : w k ≠ 0) (hAw : ∀ i, s * w i ≤ Mat.mulVec A w i) :
    s ≤ M := by
  have hn : 0 < n := Nat.lt_of_le_of_lt (Nat.zero_le _) k.isLt
  obtain ⟨j, hj⟩ := exists_max_ratio hn hx w
  have hk' : 0 < w k := by have := hw k; grind
  have hwj : 0 < w j := by
    have h1 := hj k
    have h2 := Lean.Grind.OrderedRing.mul_pos hk' (hx j)
    apply Classical.byContradiction; intro h
    have h3 : w j ≤ 0 := by grind
    have := Lean.Grind.OrderedRing.mul_nonpos_of_nonpos_of_nonneg h3 (Std.le_of_lt (hx k))
    grind
  -- `x_j (A w)_j ≤ w_j (A x)_j`
  have hcross : x j * Mat.mulVec A w j ≤ w j * Mat.mulVec A x j := by
    rw [← mulVec_smul, ← mulVec_smul]
    exact mulVec_le_mulVec hA (fun i => by have := hj i; grind) j
  have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hAw j) (Std.le_of_lt (hx j))
  have h2 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hAx j) (Std.le_of_lt hwj)
  have hp := Lean.Grind.OrderedRing.mul_pos hwj (hx j)
  apply Classical.byContradiction; intro h
  have h3 : M < s := by grind
  have h4 := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_right h3 hp
  grind

/-- Thm 3.8, step 3 (Collatz–Wielandt lower bound): for a positive eigenpair `(r, v)` of
`A ≥ 0`, every `s` with `s w ≤ A w` for a nonnegative nonzero `w` satisfies `s ≤ r`.
Does not cover: the equality case. -/
theorem collatz_lower {n : Nat} {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j) {r : α} {v : Vec n α}
    (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i) {w : Vec n α} {s : α}
    (hw : ∀ i, 0 ≤ w i) {k : Fin n} (hk : w k ≠ 0) (hAw : ∀ i, s * w i ≤ Mat.mulVec A w i) :
    s ≤ r :=
  collatz_le hA hv (fun i => by rw [hAv i]; exact Std.le_refl _) hw hk hAw

/-- Thm 3.8, step 3 (Collatz–Wielandt upper bound): for a positive eigenpair `(r, v)` of
`A ≥ 0` (`n > 0`), every `M` with `A x ≤ M x` for a strictly positive `x` satisfies
`r ≤ M`. Does not cover: the equality case. -/
theorem collatz_upper {n : Nat} (hn : 0 < n) {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j) {r : α}
    {v : Vec n α} (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i) {x : Vec n α}
    {M : α} (hx : ∀ i, 0 < x i) (hAx : ∀ i, Mat.mulVec A x i ≤ M * x i) : r ≤ M :=
  collatz_le hA hx hAx (fun i => Std.le_of_lt (hv i)) (k := ⟨0, hn⟩)
    (fun h => by have := hv ⟨0, hn⟩; grind) (fun i => by rw [hAv i]; exact Std.le_refl _)

/-- Thm 3.8, step 3 (paper form, lower half): for a positive eigenpair `(r, v)` of `A ≥ 0`
and any strictly positive `x`, the minimum of `(A x)_i / x_i` (attained at some `i`) is at
most `r`. Does not cover: `x` with zero entries. -/
theorem collatz_wielandt_min_le {n : Nat} (hn : 0 < n) {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j)
    {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i)
    {x : Vec n α} (hx : ∀ i, 0 < x i) :
    ∃ i, (∀ l, Mat.mulVec A x i / x i ≤ Mat.mulVec A x l / x l) ∧
      Mat.mulVec A x i / x i ≤ r := by
  obtain ⟨i, hi⟩ := exists_min_index hn (fun l => Mat.mulVec A x l / x l)
  refine ⟨i, hi, ?_⟩
  apply collatz_lower hA hv hAv (fun l => Std.le_of_lt (hx l)) (k := i)
    (fun h => by have := hx i; grind)
  intro l
  have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hi l) (Std.le_of_lt (hx l))
  have hxl := hx l
  have e : Mat.mulVec A x l / x l * x l = Mat.mulVec A x l := by grind
  rw [e] at h1; exact h1

/-- Thm 3.8, step 3 (paper form, upper half): for a positive eigenpair `(r, v)` of `A ≥ 0`
and any strictly positive `x`, the maximum of `(A x)_i / x_i` (attained at some `i`) is at
least `r`. Does not cover: `x` with zero entries. -/
theorem collatz_wielandt_le_max {n : Nat} (hn : 0 < n) {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j)
    {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i)
    {x : Vec n α} (hx : ∀ i, 0 < x i) :
    ∃ i, (∀ l, Mat.mulVec A x l / x l ≤ Mat.mulVec A x i / x i) ∧
      r ≤ Mat.mulVec A x i / x i := by
  obtain ⟨i, hi⟩ := exists_max_index hn (fun l => Mat.mulVec A x l / x l)
  refine ⟨i, hi, ?_⟩
  apply collatz_upper hn hA hv hAv hx
  intro l
  have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hi l) (Std.le_of_lt (hx l))
  have hxl := hx l
  have e : Mat.mulVec A x l / x l * x l = Mat.mulVec A x l := by grind
  rw [e] at h1; exact h1

end PLGA.Perron
