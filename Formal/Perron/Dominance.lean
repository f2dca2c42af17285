module

public import Formal.Perron.Uniqueness

/-!
# Perron–Frobenius IV: dominance over real eigenvalues (Thm 3.8, step 6, real part)

For `A ≥ ε > 0` entrywise with a positive eigenpair `(r, v)`, every real eigenvalue `λ`
(with a real eigenvector `w ≠ 0`) satisfies `2ε − r ≤ λ ≤ r`; hence `|λ| ≤ r`, and
`λ = r` or `|λ| < r`.

Route: `|λ| |w| ≤ A |w|` entrywise plus the Collatz–Wielandt lower bound gives `|λ| ≤ r` for
every nonnegative `A`; applied to the shifted matrix `A − ε I ≥ 0`, whose Perron pair is
`(r − ε, v)`, it gives `|λ − ε| ≤ r − ε`, which excludes `λ = −r`.

Proved here also: the absolute value `absv` on an ordered field with its basic laws, and
the shifted matrix `shiftMat A δ = A − δ I` (general helpers).
Not covered here: complex eigenvalues (`DominanceComplex.lean`).
-/

@[expose] public section

namespace PLGA.Perron

set_option linter.unusedSectionVars false

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-! ## Absolute value (general helpers) -/

open Classical in
/-- The absolute value `|x|` on an ordered field. -/
noncomputable def absv (x : α) : α := if 0 ≤ x then x else -x

/-- `|x| = x` for `x ≥ 0`. -/
theorem absv_of_nonneg {x : α} (h : 0 ≤ x) : absv x = x := by
  unfold absv; rw [if_pos h]

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

/-- Triangle inequality for a nonnegative matrix: `|(A w)_i| ≤ (A |w|)_i`. -/
theorem absv_mulVec_le {m n : Nat} {A : Mat m n α} (hA : ∀ i j, 0 ≤ A i j) (w : Vec n α)
    (i : Fin m) : absv (Mat.mulVec A w i) ≤ Mat.mulVec A (fun j => absv (w j)) i := by
  apply absv_le
  · rw [← mulVec_neg]; exact mulVec_le_mulVec hA (fun j => by have := neg_le_absv (w j); grind) i
  · exact mulVec_le_mulVec hA (fun j => le_absv (w j)) i

/-! ## The shifted matrix `A − δ I` (general helper) -/

/-- `A − δ I`. -/
def shiftMat {n : Nat} (A : Mat n n α) (δ : α) : Mat n n α :=
  fun i j => A i j - (if i = j then δ else 0)

/-- `(A − δ I) x = A x − δ x`. -/
theorem mulVec_shiftMat {n : Nat} (A : Mat n n α) (δ : α) (x : Vec n α) (i : Fin n) :
    Mat.mulVec (shiftMat A δ) x i = Mat.mulVec A x i - δ * x i := by
  have e : Mat.mulVec (shiftMat A δ) x i
      = Mat.mulVec A x i - fsum n (fun j => (if i = j then δ else 0) * x j) := by
    simp only [Mat.mulVec, shiftMat]; rw [← fsum_sub]; apply fsum_congr; intro j; grind
  rw [e, fsum_single n i]
  · simp
  · intro j hj; have : ¬ i = j := fun h => hj h.symm
    rw [if_neg this]; grind

/-- `A ≥ ε` entrywise gives `A − ε I ≥ 0` entrywise. -/
theorem shiftMat_nonneg {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) :
    ∀ i j, 0 ≤ shiftMat A ε i j := by
  intro i j; unfold shiftMat
  by_cases h : i = j
  · simp [h]; have := hA j j; grind
  · simp [h]; have := hA i j; grind

/-! ## Dominance over real eigenvalues -/

/-- Thm 3.8, step 6 (weak form, any `A ≥ 0`): for a positive eigenpair `(r, v)` of a
nonnegative matrix, every real eigenvalue `λ` (eigenvector `w ≠ 0`) has `|λ| ≤ r`.
Does not cover: strictness (needs `A > 0`, `real_eigenvalue_bounds`). -/
theorem absv_eigenvalue_le_of_nonneg {n : Nat} {A : Mat n n α} (hA : ∀ i j, 0 ≤ A i j)
    {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i)
    {lam : α} {w : Vec n α} {k : Fin n} (hwk : w k ≠ 0)
    (hAw : ∀ i, Mat.mulVec A w i = lam * w i) : absv lam ≤ r := by
  apply collatz_lower hA hv hAv (w := fun j => absv (w j)) (fun j => absv_nonneg _) (k := k)
    (absv_ne_zero hwk)
  intro i
  have h := absv_mulVec_le hA w i
  rw [hAw i, absv_mul] at h
  exact h

/-- Thm 3.8, step 6 (real eigenvalues, quantitative): for `A ≥ ε > 0` with positive eigenpair
`(r, v)`, every real eigenvalue `λ` satisfies `2ε − r ≤ λ ≤ r`. Does not cover: complex
eigenvalues (`DominanceComplex.lean`). -/
theorem real_eigenvalue_bounds {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {lam : α} {w : Vec n α} {k : Fin n}
    (hwk : w k ≠ 0) (hAw : ∀ i, Mat.mulVec A w i = lam * w i) :
    2 * ε - r ≤ lam ∧ lam ≤ r := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have h1 := absv_eigenvalue_le_of_nonneg hA0 hv hAv hwk hAw
  have h2 := absv_eigenvalue_le_of_nonneg (shiftMat_nonneg hε hA) hv
    (r := r - ε) (fun i => by rw [mulVec_shiftMat, hAv i]; grind) (lam := lam - ε) hwk
    (fun i => by rw [mulVec_shiftMat, hAw i]; grind)
  have := le_absv lam
  have := neg_le_absv (lam - ε)
  constructor <;> grind

/-- Thm 3.8, step 6 (real eigenvalues): `|λ| ≤ r`, and `λ = r` or `|λ| < r`.
Does not cover: complex eigenvalues (`DominanceComplex.lean`). -/
theorem real_eigenvalue_dominated {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {lam : α} {w : Vec n α} {k : Fin n}
    (hwk : w k ≠ 0) (hAw : ∀ i, Mat.mulVec A w i = lam * w i) :
    absv lam ≤ r ∧ (lam = r ∨ absv lam < r) := by
  have ⟨h1, h2⟩ := real_eigenvalue_bounds hε hA hv hAv hwk hAw
  by_cases h : 0 ≤ lam
  · rw [absv_of_nonneg h]; constructor
    · exact h2
    · grind
  · rw [absv_of_neg h]; constructor <;> grind

end PLGA.Perron
