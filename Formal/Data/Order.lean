module

/-!
# Order helpers for ordered rings and fields

Small facts over Lean core's ordered classes (`Lean.Grind.OrderedRing` with a linear order) that
several parts of the library use: squares are nonnegative and positive off zero, positive
elements are nonzero, quotients of positive elements are positive, and the absolute value.

## Main definitions

* `absv x`: the absolute value `|x|` on an ordered ring.

## Main statements

* `mul_self_nonneg`, `mul_self_pos`: `0 ≤ a · a`, and `0 < a · a` for `a ≠ 0`;
* `le_of_mul_self_le_mul_self`: `y² ≤ x²`, `x ≥ 0` give `y ≤ x`;
* `ne_of_pos`, `div_pos`: positive elements are nonzero; `a / b > 0` for `a, b > 0`;
* `le_div_of_mul_le`, `div_le_of_le_mul`: moving a positive factor across `≤`;
* `absv_of_nonneg`, `absv_of_neg`, `absv_nonneg`, `le_absv`, `neg_le_absv`, `absv_le`,
  `absv_ne_zero`, `absv_mul`: the laws of `absv`.

## Implementation notes

No paper result is formalized here; this is infrastructure (formerly duplicated in several files
of `Formal/Perron`, `Formal/Structure`, `Formal/Attention` and `Formal/Variants`). The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` uses mathlib's order lemmas and `|·|` instead.

## References

* none in the paper (used for Thm 3.8, Prop 3.6, Prop 5.2 and the variants).
-/

@[expose] public section

namespace PLGA

variable {α : Type u}

section OrderedRing
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- Squares are nonnegative in an ordered commutative ring: `0 ≤ a · a`. -/
theorem mul_self_nonneg (a : α) : 0 ≤ a * a := by
  rcases Std.le_total (a := 0) (b := a) with h | h
  · exact Lean.Grind.OrderedRing.mul_nonneg h h
  · exact Lean.Grind.OrderedRing.mul_nonneg_of_nonpos_of_nonpos h h

/-- `a ≠ 0` gives `a · a > 0`. -/
theorem mul_self_pos {a : α} (h : a ≠ 0) : 0 < a * a := by
  rcases (show a < 0 ∨ a = 0 ∨ 0 < a by grind) with h' | h' | h'
  · exact Lean.Grind.OrderedRing.mul_pos_of_neg_of_neg h' h'
  · exact absurd h' h
  · exact Lean.Grind.OrderedRing.mul_pos h' h'

/-- `y ≤ x` whenever `y² ≤ x²` and `x ≥ 0`. -/
theorem le_of_mul_self_le_mul_self {x y : α} (hx : 0 ≤ x) (h : y * y ≤ x * x) : y ≤ x := by
  by_cases h1 : y ≤ x
  · exact h1
  · have hlt : x < y := by grind
    have h2 := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_left hlt (show (0 : α) < y by grind)
    have h3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (Std.le_of_lt hlt) hx
    grind

/-- A positive element is nonzero. -/
theorem ne_of_pos {a : α} (ha : 0 < a) : a ≠ 0 := by
  intro h; rw [h] at ha; grind

/-! ## Absolute value -/

open Classical in
/-- The absolute value `|x|` on an ordered ring. -/
noncomputable def absv (x : α) : α := if 0 ≤ x then x else -x

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|x| = x` for `x ≥ 0`. -/
theorem absv_of_nonneg {x : α} (h : 0 ≤ x) : absv x = x := by
  unfold absv; rw [if_pos h]

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `|x| = -x` for `x < 0`. -/
theorem absv_of_neg {x : α} (h : ¬ 0 ≤ x) : absv x = -x := by
  unfold absv; rw [if_neg h]

/-- `|x| ≥ 0`. -/
theorem absv_nonneg (x : α) : 0 ≤ absv x := by
  by_cases h : 0 ≤ x
  · rw [absv_of_nonneg h]; exact h
  · rw [absv_of_neg h]; grind

/-- `x ≤ |x|`. -/
theorem le_absv (x : α) : x ≤ absv x := by
  by_cases h : 0 ≤ x
  · rw [absv_of_nonneg h]; exact Std.le_refl _
  · rw [absv_of_neg h]; grind

/-- `-x ≤ |x|`. -/
theorem neg_le_absv (x : α) : -x ≤ absv x := by
  by_cases h : 0 ≤ x
  · rw [absv_of_nonneg h]; grind
  · rw [absv_of_neg h]; exact Std.le_refl _

/-- `-b ≤ x ≤ b` gives `|x| ≤ b`. -/
theorem absv_le {x b : α} (h1 : -b ≤ x) (h2 : x ≤ b) : absv x ≤ b := by
  by_cases h : 0 ≤ x
  · rw [absv_of_nonneg h]; exact h2
  · rw [absv_of_neg h]; grind

omit [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `x ≠ 0` gives `|x| ≠ 0`. -/
theorem absv_ne_zero {x : α} (h : x ≠ 0) : absv x ≠ 0 := by
  by_cases h' : 0 ≤ x
  · rw [absv_of_nonneg h']; exact h
  · rw [absv_of_neg h']; grind

/-- `|x y| = |x| |y|`. -/
theorem absv_mul (x y : α) : absv (x * y) = absv x * absv y := by
  rcases Std.le_total (a := 0) (b := x) with hx | hx <;>
    rcases Std.le_total (a := 0) (b := y) with hy | hy
  · rw [absv_of_nonneg hx, absv_of_nonneg hy,
      absv_of_nonneg (Lean.Grind.OrderedRing.mul_nonneg hx hy)]
  · have h := Lean.Grind.OrderedRing.mul_nonpos_of_nonneg_of_nonpos hx hy
    rw [absv_of_nonneg hx]
    by_cases hy0 : y = 0
    · subst hy0; rw [absv_of_nonneg (Std.le_refl _)]
      have : x * 0 = 0 := by grind
      rw [this, absv_of_nonneg (Std.le_refl _)]
    · rw [absv_of_neg (show ¬ 0 ≤ y by grind)]
      by_cases hxy : 0 ≤ x * y
      · have : x * y = 0 := by grind
        rw [this, absv_of_nonneg (Std.le_refl _)]
        have : x = 0 := by
          apply Classical.byContradiction; intro hx0
          have := Lean.Grind.OrderedRing.mul_neg_of_pos_of_neg (show 0 < x by grind)
            (show y < 0 by grind)
          grind
        subst this; grind
      · rw [absv_of_neg hxy]; grind
  · have h := Lean.Grind.OrderedRing.mul_nonpos_of_nonpos_of_nonneg hx hy
    rw [absv_of_nonneg hy]
    by_cases hx0 : x = 0
    · subst hx0; rw [absv_of_nonneg (Std.le_refl _)]
      have : 0 * y = 0 := by grind
      rw [this, absv_of_nonneg (Std.le_refl _)]
    · rw [absv_of_neg (show ¬ 0 ≤ x by grind)]
      by_cases hxy : 0 ≤ x * y
      · have : x * y = 0 := by grind
        rw [this, absv_of_nonneg (Std.le_refl _)]
        have : y = 0 := by
          apply Classical.byContradiction; intro hy0
          have := Lean.Grind.OrderedRing.mul_neg_of_neg_of_pos (show x < 0 by grind)
            (show 0 < y by grind)
          grind
        subst this; grind
      · rw [absv_of_neg hxy]; grind
  · have h := Lean.Grind.OrderedRing.mul_nonneg_of_nonpos_of_nonpos hx hy
    rw [absv_of_nonneg h]
    by_cases hx0 : x = 0
    · subst hx0; rw [absv_of_nonneg (Std.le_refl _)]; grind
    · by_cases hy0 : y = 0
      · subst hy0; rw [absv_of_nonneg (Std.le_refl _)]; grind
      · rw [absv_of_neg (show ¬ 0 ≤ x by grind), absv_of_neg (show ¬ 0 ≤ y by grind)]; grind

end OrderedRing

section OrderedField
variable [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- A quotient of positive elements is positive: `a / b > 0` for `a, b > 0`. -/
theorem div_pos {a b : α} (ha : 0 < a) (hb : 0 < b) : 0 < a / b := by
  rw [Lean.Grind.Field.div_eq_mul_inv]
  exact Lean.Grind.OrderedRing.mul_pos ha (Lean.Grind.Field.IsOrdered.inv_pos_iff.mpr hb)

/-- `a c ≤ b` with `c > 0` gives `a ≤ b / c`. -/
theorem le_div_of_mul_le {a b c : α} (hc : 0 < c) (h : a * c ≤ b) : a ≤ b / c := by
  have e : b / c * c = b := by have := hc; grind
  exact (Lean.Grind.Field.IsOrdered.mul_le_mul_iff_of_pos_right hc).mp (by rw [e]; exact h)

/-- `b ≤ a c` with `c > 0` gives `b / c ≤ a`. -/
theorem div_le_of_le_mul {a b c : α} (hc : 0 < c) (h : b ≤ a * c) : b / c ≤ a := by
  have e : b / c * c = b := by have := hc; grind
  exact (Lean.Grind.Field.IsOrdered.mul_le_mul_iff_of_pos_right hc).mp (by rw [e]; exact h)

end OrderedField

end PLGA
