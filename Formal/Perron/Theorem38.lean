module

public import Formal.Perron.DominanceComplex
public import Formal.Perron.Existence
public import Formal.Metric

/-!
# Perron–Frobenius for the metric tensor `A_LM` (Thm 3.8)

`IsPerronFrobenius` bundles the whole conclusion of Thm 3.8; it holds for every `A ≥ ε > 0`
given positive right and left eigenpairs with the same eigenvalue (any ordered field), for every
such `A` under `SupComplete α`, and in particular for every metric tensor
`A_LM = iSwiGLU(W A + b) + ε` with a positive gate `σ` (the sigmoid) and `ε > 0`.

## Main definitions

* `IsPerronFrobenius S A r v y`: for a matrix `A`, a Perron root `r` and right/left Perron
  vectors `v`, `y`: positivity propagation and positive powers (step 1), positivity and
  uniqueness of nonnegative eigenvectors (steps 2, 4), the Collatz–Wielandt bounds (step 3),
  geometric simplicity on both sides (steps 4, 5), absence of generalized eigenvectors (step 7)
  and dominance over every real and complex eigenvalue (step 6).

## Main statements

* `isPerronFrobenius_of_pairs`: for any ordered field, given positive right and left eigenpairs
  with the same eigenvalue (no completeness needed);
* `perron_frobenius`: for every `A ≥ ε > 0`, under `SupComplete α` (step 8, existence);
* `metricTensor_perron_frobenius`: Thm 3.8 as stated for PLGA, every metric tensor `A_LM`;
* `metricTensor_isPerronFrobenius_of_pairs`: the PLGA form without completeness.

## Implementation notes

Hypotheses enter only as structures satisfied by `ℝ`: `SupComplete` (least upper bounds) and
`SqrtFn` (`Real.sqrt`, for moduli of complex eigenvalues). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` lists Perron–Frobenius as "not yet in mathlib" and has no
counterpart. Not covered: algebraic multiplicity as a root multiplicity of the characteristic
polynomial (no determinants in core Lean; step 7 is stated as the absence of Jordan blocks of
size `≥ 2`).

## References

* Thm 3.8 (steps 1–8), Def 3.1 and Prop 3.7 (`A_LM`) of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (metric tensor), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- The conclusion of the Perron–Frobenius theorem (Thm 3.8) for `A`, Perron root `r`,
right Perron vector `v` and left Perron vector `y`. -/
structure IsPerronFrobenius (S : SqrtFn α) {n : Nat} (A : Mat n n α) (r : α) (v y : Vec n α) :
    Prop where
  /-- the Perron root is positive -/
  root_pos : 0 < r
  /-- the right Perron vector is strictly positive -/
  right_pos : ∀ i, 0 < v i
  /-- the left Perron vector is strictly positive -/
  left_pos : ∀ i, 0 < y i
  /-- `A v = r v` -/
  right_eig : ∀ i, Mat.mulVec A v i = r * v i
  /-- `Aᵀ y = r y` -/
  left_eig : ∀ i, Mat.mulVec (Mat.transpose A) y i = r * y i
  /-- step 1: nonnegative nonzero vectors are mapped to positive ones -/
  positive_image : ∀ x : Vec n α, (∀ j, 0 ≤ x j) → ∀ k, x k ≠ 0 →
    ∀ i, 0 < Mat.mulVec A x i
  /-- step 1: all powers `A^(k+1)` are entrywise positive -/
  pow_pos : ∀ k i j, 0 < Mat.pow A (k + 1) i j
  /-- steps 2 and 4: a nonnegative nonzero eigenvector is positive and belongs to `r` -/
  nonneg_eigvec : ∀ (s : α) (x : Vec n α), (∀ j, 0 ≤ x j) → ∀ k, x k ≠ 0 →
    (∀ i, Mat.mulVec A x i = s * x i) → s = r ∧ ∀ i, 0 < x i
  /-- step 3: `min_i (A x)_i / x_i ≤ r ≤ max_i (A x)_i / x_i` for `x > 0` -/
  collatz_wielandt : ∀ x : Vec n α, (∀ i, 0 < x i) →
    (∃ i, Mat.mulVec A x i / x i ≤ r) ∧ (∃ i, r ≤ Mat.mulVec A x i / x i)
  /-- step 4: geometric simplicity (right) -/
  geom_simple : ∀ w : Vec n α, (∀ i, Mat.mulVec A w i = r * w i) → ∃ t : α, ∀ i, w i = t * v i
  /-- step 5: geometric simplicity (left) -/
  left_geom_simple : ∀ z : Vec n α, (∀ i, Mat.mulVec (Mat.transpose A) z i = r * z i) →
    ∃ t : α, ∀ i, z i = t * y i
  /-- step 7: no generalized eigenvector, `(A − r)² w = 0 ⇒ (A − r) w = 0` -/
  no_gen_eigvec : ∀ w : Vec n α,
    (∀ i, Mat.mulVec A (fun j => Mat.mulVec A w j - r * w j) i
      = r * (Mat.mulVec A w i - r * w i)) → ∀ i, Mat.mulVec A w i = r * w i
  /-- step 6: every real eigenvalue `λ` has `|λ| ≤ r`, and `λ = r` or `|λ| < r` -/
  real_dominated : ∀ (lam : α) (w : Vec n α) (k : Fin n), w k ≠ 0 →
    (∀ i, Mat.mulVec A w i = lam * w i) → absv lam ≤ r ∧ (lam = r ∨ absv lam < r)
  /-- step 6: every complex eigenvalue `a + i b` has `a² + b² ≤ r²`, with equality only for
  `a + i b = r` -/
  complex_dominated : ∀ (a b : α) (x z : Vec n α) (k : Fin n), (x k ≠ 0 ∨ z k ≠ 0) →
    (∀ i, Mat.mulVec A x i = a * x i - b * z i) → (∀ i, Mat.mulVec A z i = b * x i + a * z i) →
    a * a + b * b ≤ r * r ∧ (a * a + b * b = r * r → a = r ∧ b = 0)

/-- Thm 3.8 (all conclusions, given the Perron pairs): for `A ≥ ε > 0` (`n > 0`) with positive
right and left eigenvectors for one eigenvalue `r`, `A` has the full Perron–Frobenius
structure. No completeness is needed. Does not cover: existence of the pairs
(`perron_frobenius`). -/
theorem isPerronFrobenius_of_pairs (S : SqrtFn α) {n : Nat} (hn : 0 < n) {A : Mat n n α}
    {ε : α} (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) {r : α} {v y : Vec n α}
    (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i) (hy : ∀ i, 0 < y i)
    (hAy : ∀ i, Mat.mulVec (Mat.transpose A) y i = r * y i) : IsPerronFrobenius S A r v y := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have hv0 : v ⟨0, hn⟩ ≠ 0 := fun h => by have := hv ⟨0, hn⟩; grind
  refine
    { root_pos := (eigvec_pos_of_nonneg hε hA (fun i => Std.le_of_lt (hv i)) hv0 hAv).2
      right_pos := hv
      left_pos := hy
      right_eig := hAv
      left_eig := hAy
      positive_image := fun x hx k hk i => mulVec_pos hε hA hx hk i
      pow_pos := mpow_pos hε hA
      nonneg_eigvec := fun s x hx k hk hAx =>
        ⟨(eigenvalue_eq_of_nonneg_eigvecs hε hA (fun i => Std.le_of_lt (hv i)) hv0 hAv hx hk
          hAx).symm, (eigvec_pos_of_nonneg hε hA hx hk hAx).1⟩
      collatz_wielandt := fun x hx => ?_
      geom_simple := fun w hw => eq_smul_of_eigvec hε hA hv hAv hw
      left_geom_simple := fun z hz => eq_smul_of_left_eigvec hε hA hy hAy hz
      no_gen_eigvec := fun w hw => no_generalized_eigvec hε hA hv hAv hw
      real_dominated := fun lam w k hk hw => real_eigenvalue_dominated hε hA hv hAv hk hw
      complex_dominated := fun a b x z k hk hx hz =>
        complex_eigenvalue_dominated S hε hA hv hAv hk hx hz }
  obtain ⟨i, _, hi⟩ := collatz_wielandt_min_le hn hA0 hv hAv hx
  obtain ⟨j, _, hj⟩ := collatz_wielandt_le_max hn hA0 hv hAv hx
  exact ⟨⟨i, hi⟩, ⟨j, hj⟩⟩

/-- Thm 3.8 (Perron–Frobenius for entrywise-positive matrices): under `SupComplete α` (true for
`ℝ`), every `A` with all entries `≥ ε > 0` (`n > 0`) has a Perron root `r > 0` with strictly
positive right and left Perron vectors and the full Perron–Frobenius structure.
Does not cover: the characteristic-polynomial form of algebraic simplicity. -/
theorem perron_frobenius (hC : SupComplete α) (S : SqrtFn α) {n : Nat} (hn : 0 < n)
    {A : Mat n n α} {ε : α} (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) :
    ∃ (r : α) (v y : Vec n α), IsPerronFrobenius S A r v y := by
  obtain ⟨r, v, y, _, hv, hy, hAv, hAy⟩ := exists_perron_pairs hC hn hε hA
  exact ⟨r, v, y, isPerronFrobenius_of_pairs S hn hε hA hv hAv hy hAy⟩

/-- Thm 3.8 as stated for PLGA: for every input `A`, parameters `W`, `b`, positive gate `σ`
(the sigmoid) and `ε > 0`, the metric tensor `A_LM = iSwiGLU(W A + b) + ε` has a Perron root
`r > 0`, strictly positive right and left Perron vectors, and the full Perron–Frobenius
structure (`IsPerronFrobenius`), assuming only `SupComplete α` and a square root (both true
for `ℝ`). Does not cover: the characteristic-polynomial form of algebraic simplicity. -/
theorem metricTensor_perron_frobenius (hC : SupComplete α) (S : SqrtFn α) (σ : PosFn α)
    {n : Nat} (hn : 0 < n) (W Ain b : Mat n n α) {ε : α} (hε : 0 < ε) :
    ∃ (r : α) (v y : Vec n α), IsPerronFrobenius S (metricTensor σ.f W Ain b ε) r v y :=
  perron_frobenius hC S hn hε (metricTensor_entry_ge σ W Ain b ε)

/-- Thm 3.8 for PLGA without completeness: whenever the metric tensor `A_LM` has positive right
and left eigenvectors for a common eigenvalue `r`, it has the full Perron–Frobenius structure
over any ordered field. Does not cover: existence of the pairs (`metricTensor_perron_frobenius`). -/
theorem metricTensor_isPerronFrobenius_of_pairs (S : SqrtFn α) (σ : PosFn α) {n : Nat}
    (hn : 0 < n) (W Ain b : Mat n n α) {ε : α} (hε : 0 < ε) {r : α} {v y : Vec n α}
    (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec (metricTensor σ.f W Ain b ε) v i = r * v i)
    (hy : ∀ i, 0 < y i)
    (hAy : ∀ i, Mat.mulVec (Mat.transpose (metricTensor σ.f W Ain b ε)) y i = r * y i) :
    IsPerronFrobenius S (metricTensor σ.f W Ain b ε) r v y :=
  isPerronFrobenius_of_pairs S hn hε (metricTensor_entry_ge σ W Ain b ε) hv hAv hy hAy

end PLGA.Perron
