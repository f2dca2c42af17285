module

public import Formal.Perron.Positivity

/-!
# Perron–Frobenius VI: the completeness hypothesis (for Thm 3.8, step 8)

Existence of the Perron root needs completeness of the scalar field. It enters only as the
hypothesis structure `SupComplete α` — every nonempty set bounded above has a least upper bound
(Dedekind completeness) — never as an axiom. This file provides it with the general helpers the
existence proof uses.

## Main definitions

* `SupComplete α`: Dedekind completeness of an ordered type (`ℝ` satisfies it by
  `Real.exists_isLUB`; `ℚ` does not).

## Main statements

* `exists_seq_sup`, `exists_seq_inf`: suprema and infima of bounded sequences, with their
  approximation property;
* `mono_of_succ`, `anti_of_succ`, `mono_of_succ_le`, `anti_of_succ_le`: monotone-sequence
  comparisons;
* `le_of_forall_pos_mul`: the principle "`Y ≤ X + δ C` for all `δ > 0` implies `Y ≤ X`";
* `exists_half`: every element has a half.

## Implementation notes

No paper result is formalized in this file; these are general helpers for step 8. The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart (it works over mathlib's
`ℝ`, complete by construction).

## References

* Thm 3.8 (step 8) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

/-- Dedekind completeness of an ordered type: every nonempty set bounded above has a least
upper bound. `ℝ` satisfies it (`Real.exists_isLUB`); `ℚ` does not. -/
structure SupComplete (α : Type u) [LE α] : Prop where
  /-- existence of least upper bounds -/
  exists_lub : ∀ S : α → Prop, (∃ x, S x) → (∃ b, ∀ y, S y → y ≤ b) →
    ∃ s, (∀ y, S y → y ≤ s) ∧ ∀ b, (∀ y, S y → y ≤ b) → s ≤ b

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Every element has a half. -/
theorem exists_half (a : α) : ∃ d : α, d + d = a := by
  have h2 : (2 : α) ≠ 0 := by
    have := Lean.Grind.OrderedRing.zero_lt_one (R := α); grind
  exact ⟨a / 2, by grind⟩

/-- If `Y ≤ X + δ C` for every `δ > 0` (with `C ≥ 0`), then `Y ≤ X`. -/
theorem le_of_forall_pos_mul {X Y C : α} (hC : 0 ≤ C) (h : ∀ δ : α, 0 < δ → Y ≤ X + δ * C) :
    Y ≤ X := by
  apply Classical.byContradiction; intro hne
  have hC1 : C + 1 ≠ 0 := by have := Lean.Grind.OrderedRing.zero_lt_one (R := α); grind
  obtain ⟨δ, hδ⟩ : ∃ δ : α, δ * (C + 1) = Y - X := ⟨(Y - X) / (C + 1), by grind⟩
  have hδpos : 0 < δ := by
    apply Classical.byContradiction; intro h'
    have := Lean.Grind.OrderedRing.mul_nonpos_of_nonpos_of_nonneg (show δ ≤ 0 by grind)
      (show 0 ≤ C + 1 by have := Lean.Grind.OrderedRing.zero_lt_one (R := α); grind)
    grind
  have := h δ hδpos
  grind

/-- Least upper bound of a sequence bounded above, with its approximation property. -/
theorem exists_seq_sup (hC : SupComplete α) (a : Nat → α) {B : α} (hB : ∀ k, a k ≤ B) :
    ∃ L, (∀ k, a k ≤ L) ∧ (∀ b, (∀ k, a k ≤ b) → L ≤ b) ∧
      ∀ δ : α, 0 < δ → ∃ k, L - δ < a k := by
  obtain ⟨s, hs1, hs2⟩ := hC.exists_lub (fun y => ∃ k, y = a k) ⟨a 0, 0, rfl⟩
    ⟨B, fun y ⟨k, hk⟩ => hk ▸ hB k⟩
  refine ⟨s, fun k => hs1 _ ⟨k, rfl⟩, fun b hb => hs2 b (fun y ⟨k, hk⟩ => hk ▸ hb k), ?_⟩
  intro δ hδ
  apply Classical.byContradiction; intro hne
  have : s ≤ s - δ := hs2 (s - δ) (fun y ⟨k, hk⟩ => by
    subst hk; apply Classical.byContradiction; intro h'; exact hne ⟨k, by grind⟩)
  grind

/-- Greatest lower bound of a sequence bounded below, with its approximation property. -/
theorem exists_seq_inf (hC : SupComplete α) (a : Nat → α) {B : α} (hB : ∀ k, B ≤ a k) :
    ∃ L, (∀ k, L ≤ a k) ∧ (∀ b, (∀ k, b ≤ a k) → b ≤ L) ∧
      ∀ δ : α, 0 < δ → ∃ k, a k < L + δ := by
  obtain ⟨L, h1, h2, h3⟩ := exists_seq_sup hC (fun k => -a k) (B := -B)
    (fun k => by have := hB k; grind)
  refine ⟨-L, fun k => by have := h1 k; grind, fun b hb => ?_, fun δ hδ => ?_⟩
  · have := h2 (-b) (fun k => by have := hb k; grind); grind
  · obtain ⟨k, hk⟩ := h3 δ hδ; exact ⟨k, by grind⟩

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- A sequence with `a k ≤ a (k+1)` is monotone. -/
theorem mono_of_succ {a : Nat → α} (h : ∀ k, a k ≤ a (k + 1)) (j d : Nat) : a j ≤ a (j + d) := by
  induction d with
  | zero => exact Std.le_refl _
  | succ d ih => exact Std.le_trans ih (h (j + d))

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- A sequence with `a (k+1) ≤ a k` is antitone. -/
theorem anti_of_succ {a : Nat → α} (h : ∀ k, a (k + 1) ≤ a k) (j d : Nat) : a (j + d) ≤ a j := by
  induction d with
  | zero => exact Std.le_refl _
  | succ d ih => exact Std.le_trans (h (j + d)) ih

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- Monotone sequences, `j ≤ k` form. -/
theorem mono_of_succ_le {a : Nat → α} (h : ∀ k, a k ≤ a (k + 1)) {j k : Nat} (hjk : j ≤ k) :
    a j ≤ a k := by
  obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk; exact mono_of_succ h j d

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- Antitone sequences, `j ≤ k` form. -/
theorem anti_of_succ_le {a : Nat → α} (h : ∀ k, a (k + 1) ≤ a k) {j k : Nat} (hjk : j ≤ k) :
    a k ≤ a j := by
  obtain ⟨d, rfl⟩ := Nat.exists_eq_add_of_le hjk; exact anti_of_succ h j d

end PLGA.Perron
