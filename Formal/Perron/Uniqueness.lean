module

public import Formal.Perron.Collatz

/-!
# Perron–Frobenius III: uniqueness, simplicity, left = right (Thm 3.8, steps 4, 5, 7)

For `A ≥ ε > 0` entrywise and a positive eigenpair `(r, v)` (`A v = r v`, `v > 0`): every real
`x` with `A x ≤ r x` (or `A x ≥ r x`) is a multiple of `v`; hence the Perron root is unique,
geometrically simple, has no generalized eigenvector, and the left and right Perron roots agree.

## Main statements

* `eq_smul_of_mulVec_le`, `eq_smul_of_mulVec_ge`: the "`w − t v` minimum argument";
* `eigenvalue_eq_of_nonneg_eigvecs`: two nonnegative nonzero eigenvectors have the same
  eigenvalue (step 4, uniqueness of the Perron root);
* `eq_smul_of_eigvec`: geometric simplicity: every real eigenvector for `r` is a multiple of
  `v` (step 4);
* `no_generalized_eigvec`: algebraic simplicity in the form available without determinants:
  `(A − r)² w = 0 ⇒ (A − r) w = 0`, so `r` has no Jordan block of size `≥ 2`; with geometric
  simplicity this is algebraic multiplicity one (step 7);
* `dot_mulVec_eq_dot_transpose`, `left_right_root_eq`: left and right Perron roots agree
  (step 5);
* `transpose_entry_ge`, `eq_smul_of_left_eigvec`: the left versions, via `Mat.transpose A`,
  whose entries are also `≥ ε`.

## Implementation notes

This file defines nothing. The left versions of the statements are the same theorems applied
to `Mat.transpose A`. The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no
counterpart. Not covered: algebraic multiplicity as the multiplicity of a root of the
characteristic polynomial (core Lean has no determinants); complex eigenvectors for `r` reduce
to their real and imaginary parts, each covered by `eq_smul_of_eigvec`; the normalization
`yᵀ v = 1` of the Perron projector.

## References

* Thm 3.8 (steps 4, 5, 7) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems; Perron–Frobenius absent there).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- Thm 3.8, step 4 (the `w − t v` minimum argument): for `A ≥ ε > 0` and a positive
eigenpair `(r, v)`, every real vector `x` with `A x ≤ r x` is a multiple of `v`.
Does not cover: complex vectors (apply it to real and imaginary parts). -/
theorem eq_smul_of_mulVec_le {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {x : Vec n α}
    (hx : ∀ i, Mat.mulVec A x i ≤ r * x i) : ∃ t : α, ∀ i, x i = t * v i := by
  by_cases hn : 0 < n
  case neg => exact ⟨0, fun i => absurd i.isLt (by omega)⟩
  obtain ⟨k, hk⟩ := exists_min_index hn (fun i => x i / v i)
  refine ⟨x k / v k, ?_⟩
  let t := x k / v k
  have hu : ∀ i, 0 ≤ x i - t * v i := by
    intro i
    have h1 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hk i) (Std.le_of_lt (hv i))
    have hvi := hv i
    have e : x i / v i * v i = x i := by grind
    rw [e] at h1
    show 0 ≤ x i - x k / v k * v i
    grind
  have huk : x k - t * v k = 0 := by have := hv k; show x k - x k / v k * v k = 0; grind
  have hAu : Mat.mulVec A (fun j => x j - t * v j) k ≤ 0 := by
    rw [mulVec_sub, mulVec_smul, hAv k]
    have := hx k
    have e : r * x k - t * (r * v k) = r * (x k - t * v k) := by grind
    grind
  intro i
  apply Classical.byContradiction; intro hne
  have hne' : x i - t * v i ≠ 0 := by grind
  have := mulVec_pos hε hA hu (k := i) hne' k
  grind

/-- Thm 3.8, step 4 (the `w − t v` argument, other direction): for `A ≥ ε > 0` and a positive
eigenpair `(r, v)`, every real vector `x` with `r x ≤ A x` is a multiple of `v`.
Does not cover: complex vectors. -/
theorem eq_smul_of_mulVec_ge {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {x : Vec n α}
    (hx : ∀ i, r * x i ≤ Mat.mulVec A x i) : ∃ t : α, ∀ i, x i = t * v i := by
  obtain ⟨t, ht⟩ := eq_smul_of_mulVec_le hε hA hv hAv (x := fun j => -x j)
    (fun i => by rw [mulVec_neg]; have := hx i; grind)
  exact ⟨-t, fun i => by have := ht i; grind⟩

/-- Thm 3.8, step 4 (geometric simplicity): for `A ≥ ε > 0` and a positive eigenpair
`(r, v)`, every real eigenvector of `A` for `r` is a multiple of `v`.
Does not cover: eigenvectors for other eigenvalues (see `Dominance.lean`). -/
theorem eq_smul_of_eigvec {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {w : Vec n α}
    (hw : ∀ i, Mat.mulVec A w i = r * w i) : ∃ t : α, ∀ i, w i = t * v i :=
  eq_smul_of_mulVec_le hε hA hv hAv (fun i => by rw [hw i]; exact Std.le_refl _)

/-- Thm 3.8, step 4 (uniqueness of the Perron root): two nonnegative nonzero eigenvectors of
an entrywise positive matrix have the same eigenvalue. Does not cover: eigenvectors with
entries of both signs (their eigenvalues are dominated, `Dominance.lean`). -/
theorem eigenvalue_eq_of_nonneg_eigvecs {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r s : α} {v w : Vec n α} (hv : ∀ i, 0 ≤ v i) {k : Fin n}
    (hvk : v k ≠ 0) (hAv : ∀ i, Mat.mulVec A v i = r * v i) (hw : ∀ i, 0 ≤ w i) {l : Fin n}
    (hwl : w l ≠ 0) (hAw : ∀ i, Mat.mulVec A w i = s * w i) : r = s := by
  have hA0 : ∀ i j, 0 ≤ A i j := fun i j => Std.le_of_lt (Std.lt_of_lt_of_le hε (hA i j))
  have hvp := (eigvec_pos_of_nonneg hε hA hv hvk hAv).1
  have hwp := (eigvec_pos_of_nonneg hε hA hw hwl hAw).1
  have h1 := collatz_lower hA0 hvp hAv hw hwl (fun i => by rw [hAw i]; exact Std.le_refl _)
  have h2 := collatz_lower hA0 hwp hAw hv hvk (fun i => by rw [hAv i]; exact Std.le_refl _)
  exact Std.le_antisymm h2 h1

/-- Thm 3.8, step 7 (algebraic simplicity, index one): for `A ≥ ε > 0` and a positive
eigenpair `(r, v)`, `(A − r)² w = 0` implies `(A − r) w = 0`: there is no generalized
eigenvector, i.e. no Jordan block of size `≥ 2` for `r`. Does not cover: the characteristic
polynomial (no determinants in core Lean). -/
theorem no_generalized_eigvec {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {v : Vec n α} (hv : ∀ i, 0 < v i)
    (hAv : ∀ i, Mat.mulVec A v i = r * v i) {w : Vec n α}
    (hw : ∀ i, Mat.mulVec A (fun j => Mat.mulVec A w j - r * w j) i
      = r * (Mat.mulVec A w i - r * w i)) :
    ∀ i, Mat.mulVec A w i = r * w i := by
  obtain ⟨c, hc⟩ := eq_smul_of_eigvec hε hA hv hAv hw
  have hw' : ∃ t : α, ∀ i, w i = t * v i := by
    rcases Std.le_total (a := 0) (b := c) with h | h
    · refine eq_smul_of_mulVec_ge hε hA hv hAv (fun i => ?_)
      have := hc i
      have := Lean.Grind.OrderedRing.mul_nonneg h (Std.le_of_lt (hv i))
      grind
    · refine eq_smul_of_mulVec_le hε hA hv hAv (fun i => ?_)
      have := hc i
      have := Lean.Grind.OrderedRing.mul_nonpos_of_nonpos_of_nonneg h (Std.le_of_lt (hv i))
      grind
  obtain ⟨t, ht⟩ := hw'
  intro i
  have e : w = fun j => t * v j := funext ht
  rw [e, mulVec_smul, hAv i]
  grind

/-! ## Left and right (step 5) -/

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α] in
/-- The transpose of an entrywise-`≥ ε` matrix is entrywise `≥ ε`. -/
theorem transpose_entry_ge {n : Nat} {A : Mat n n α} {ε : α} (hA : ∀ i j, ε ≤ A i j) :
    ∀ i j, ε ≤ Mat.transpose A i j := fun i j => hA j i

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `yᵀ (A x) = (Aᵀ y)ᵀ x` (general helper). -/
theorem dot_mulVec_eq_dot_transpose {n : Nat} (A : Mat n n α) (x y : Vec n α) :
    Mat.dot y (Mat.mulVec A x) = Mat.dot (Mat.mulVec (Mat.transpose A) y) x := by
  simp only [Mat.dot, Mat.mulVec, Mat.transpose]
  have h1 : (fun i => y i * fsum n (fun j => A i j * x j))
      = (fun i => fsum n (fun j => y i * (A i j * x j))) := by
    funext i; rw [← fsum_mul_left]
  have h2 : (fun j => fsum n (fun i => A i j * y i) * x j)
      = (fun j => fsum n (fun i => y i * (A i j * x j))) := by
    funext j; rw [← fsum_mul_right]; apply fsum_congr; intro i; grind
  rw [h1, h2, fsum_comm]

/-- Thm 3.8, step 5: the left and right Perron roots coincide. If `A v = r v` with `v > 0`
and `Aᵀ y = s y` with `y ≥ 0`, `y ≠ 0`, then `r = s`. Does not cover: the normalization
`yᵀ v = 1` of the Perron projector. -/
theorem left_right_root_eq {n : Nat} {A : Mat n n α} {r s : α} {v y : Vec n α}
    (hv : ∀ i, 0 < v i) (hAv : ∀ i, Mat.mulVec A v i = r * v i) (hy : ∀ i, 0 ≤ y i)
    {k : Fin n} (hyk : y k ≠ 0)
    (hAy : ∀ i, Mat.mulVec (Mat.transpose A) y i = s * y i) : r = s := by
  have h := dot_mulVec_eq_dot_transpose A v y
  have e1 : Mat.mulVec A v = fun i => r * v i := funext hAv
  have e2 : Mat.mulVec (Mat.transpose A) y = fun i => s * y i := funext hAy
  rw [e1, e2] at h
  simp only [Mat.dot] at h
  have h1 : fsum n (fun i => y i * (r * v i)) = r * fsum n (fun i => y i * v i) := by
    rw [← fsum_mul_left]; apply fsum_congr; intro i; grind
  have h2 : fsum n (fun i => s * y i * v i) = s * fsum n (fun i => y i * v i) := by
    rw [← fsum_mul_left]; apply fsum_congr; intro i; grind
  rw [h1, h2] at h
  have hyk' : 0 < y k := by have := hy k; grind
  have hpos : 0 < fsum n (fun i => y i * v i) :=
    fsum_pos (fun i => Lean.Grind.OrderedRing.mul_nonneg (hy i) (Std.le_of_lt (hv i)))
      (k := k) (Lean.Grind.OrderedRing.mul_pos hyk' (hv k))
  apply Classical.byContradiction; intro hne
  rcases (show r < s ∨ s < r by grind) with h3 | h3
  · have := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_right h3 hpos; grind
  · have := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_right h3 hpos; grind

/-- Thm 3.8, step 4 for `Aᵀ` (left geometric simplicity): for a positive left eigenpair
`(s, y)` of `A ≥ ε > 0`, every real left eigenvector for `s` is a multiple of `y`.
Does not cover: eigenvectors for other eigenvalues. -/
theorem eq_smul_of_left_eigvec {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {s : α} {y : Vec n α} (hy : ∀ i, 0 < y i)
    (hAy : ∀ i, Mat.mulVec (Mat.transpose A) y i = s * y i) {z : Vec n α}
    (hz : ∀ i, Mat.mulVec (Mat.transpose A) z i = s * z i) : ∃ t : α, ∀ i, z i = t * y i :=
  eq_smul_of_eigvec hε (transpose_entry_ge hA) hy hAy hz

end PLGA.Perron
