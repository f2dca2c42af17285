module

public import Formal.Perron.Uniqueness

/-!
# Perron–Frobenius IV: dominance over real eigenvalues (Thm 3.8, step 6, real part)

For `A ≥ ε > 0` entrywise with a positive eigenpair `(r, v)`, every real eigenvalue `λ` (with a
real eigenvector `w ≠ 0`) satisfies `2ε − r ≤ λ ≤ r`; hence `|λ| ≤ r`, and `λ = r` or `|λ| < r`.

## Main definitions

* `shiftMat A δ`: the shifted matrix `A − δ I` (general helper).

## Main statements

* `absv_mulVec_le`: the triangle inequality `|(A w)_i| ≤ (A |w|)_i` for nonnegative `A`;
* `mulVec_shiftMat`, `shiftMat_nonneg`: `(A − δ I) x = A x − δ x`; `A ≥ ε` gives `A − ε I ≥ 0`;
* `absv_eigenvalue_le_of_nonneg`: `|λ| ≤ r` for every nonnegative `A` (weak form);
* `real_eigenvalue_bounds`: `2ε − r ≤ λ ≤ r`;
* `real_eigenvalue_dominated`: `|λ| ≤ r`, and `λ = r` or `|λ| < r`.

## Implementation notes

Route: `|λ| |w| ≤ A |w|` entrywise plus the Collatz–Wielandt lower bound gives `|λ| ≤ r` for
every nonnegative `A`; applied to the shifted matrix `A − ε I ≥ 0`, whose Perron pair is
`(r − ε, v)`, it gives `|λ − ε| ≤ r − ε`, which excludes `λ = −r`. The absolute value `absv` on an
ordered field and its basic laws are general helpers (`Formal.Data.Order`). The authors'
repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered here: complex
eigenvalues (`Formal/Perron/DominanceComplex.lean`).

## References

* Thm 3.8 (step 6) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

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

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
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
