module

public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# The identical-rows (rank-one) matrix `𝟙 αᵀ` (Prop 3.9)

When every row of a `d × d` tensor is the same vector `α` (the collapse that Prop 3.9 and the
audit's rank-one statistics study; e.g. a Φ_res output on a rank-one input), the matrix is
`A = 𝟙 αᵀ`. Over a commutative ring it has rank at most one in the elementary sense (all `2×2`
minors vanish), `A² = (Σα) A`, it is nilpotent when `Σα = 0`, and it is singular for `d ≥ 2`.

## Main definitions

* `rowClone α`: the matrix `𝟙 αᵀ` whose every row is `α`;
* `skip`: `Fin.succAbove`, the index map that skips one row;
* `det`: the determinant by Laplace expansion along the first column (mathlib's
  `Matrix.det_succ_column_zero`).

## Main statements

* `rowClone_apply`, `rowClone_row_eq` (all rows equal), `rowClone_minor2_eq_zero` (every `2×2`
  minor vanishes: the elementary form of `rank ≤ 1`), `rowClone_eq_zero_iff`;
* `rowClone_mulVec`, `rowClone_mulVec_one`: `A v = (α·v) 𝟙`, `A 𝟙 = (Σα) 𝟙`;
* `rowClone_mul_self`: `A² = (Σα) A`; `rowClone_pow`: `A^{k+1} = (Σα)^k A`;
* `rowClone_sq_eq_zero`, `rowClone_pow_eq_zero`: nilpotent when `Σα = 0`;
* `rowClone_exists_kernel_vector`: for `d ≥ 2` a nonzero `v` with `A v = 0`;
* `det_rowClone`: `det (𝟙 αᵀ) = 0` for `d ≥ 2`;
* `rowClone_mulVec_mem_line`, `rowClone_range_eq_line_iff`: the range lies on the line of `𝟙`
  (`rank ≤ 1`) and is that whole line **iff** `α ≠ 0` (`rank = 1` iff `α ≠ 0`, range form);
* `rowClone_eigenvalue_eq_sum`: every nonzero eigenvalue equals `Σα`;
* `rowClone_smul_inv_idem`: `A / Σα` is idempotent when `Σα ≠ 0`.

## Implementation notes

Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`: `rowClone_*`
(`rowClone_rank_le_one`, `rowClone_eq_zero_iff`, `rowClone_mulVec_one`, `rowClone_mul_self`,
`rowClone_pow`, `rowClone_sq_eq_zero`), `rowClone_det_eq_zero` and `rowClone_rank_eq_one`
(↔ `rowClone_range_eq_line_iff`, which adds the converse). Not covered: `rank` as a
dimension (no linear-algebra library in core), the equivalence of this `det` with the Leibniz
formula, the singular-value determinant bound (Prop 3.9(iv)), approximate collapse.

## References

* Prop 3.9 of the paper;
* `../shared/spec/PLGA_SPEC.md` §D (audit rank-one statistics), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.RankOne

open PLGA

variable {α : Type u}

/-- The matrix `𝟙 αᵀ` whose every row is `a`. -/
def rowClone {n : Nat} (a : Vec n α) : Mat n n α := Mat.rowBroadcast a

/-- `Fin.succAbove`: the `a`-th index of `Fin (n+1)` skipping `i`. -/
noncomputable def skip {n : Nat} (i : Fin (n + 1)) (a : Fin n) : Fin (n + 1) :=
  if a.val < i.val then a.castSucc else a.succ

/-- The determinant by Laplace expansion along the first column:
`det A = ∑_i (-1)^i A_{i0} det(A without row i and column 0)`. -/
noncomputable def det [Lean.Grind.CommRing α] : (n : Nat) → Mat n n α → α
  | 0, _ => 1
  | n + 1, A =>
    fsum (n + 1) (fun i => (-1) ^ i.val * A i 0 * det n (fun a b => A (skip i a) b.succ))

section CommRing
variable [Lean.Grind.CommRing α]

omit [Lean.Grind.CommRing α] in
/-- Entry `(i, j)` of `𝟙 αᵀ` is `α_j`. -/
theorem rowClone_apply {n : Nat} (a : Vec n α) (i j : Fin n) : rowClone a i j = a j := rfl

omit [Lean.Grind.CommRing α] in
/-- Prop 3.9: all rows of `𝟙 αᵀ` are equal. -/
theorem rowClone_row_eq {n : Nat} (a : Vec n α) (i i' : Fin n) : rowClone a i = rowClone a i' :=
  rfl

/-- Prop 3.9 (elementary form of authors' `rowClone_rank_le_one`): every `2 × 2` minor of
`𝟙 αᵀ` vanishes. Does not cover: rank as a dimension. -/
theorem rowClone_minor2_eq_zero {n : Nat} (a : Vec n α) (i i' j j' : Fin n) :
    rowClone a i j * rowClone a i' j' - rowClone a i j' * rowClone a i' j = 0 := by
  simp only [rowClone_apply]; grind

/-- Prop 3.9 (authors' `rowClone_eq_zero_iff`): `𝟙 αᵀ = 0 ⇔ α = 0`. -/
theorem rowClone_eq_zero_iff {n : Nat} (a : Vec n α) :
    rowClone a = Mat.zero n n ↔ a = fun _ => 0 := by
  constructor
  · intro h; funext j; exact congrFun (congrFun h j) j
  · intro h; funext i j; simp only [rowClone_apply, Mat.zero, h]

/-- `A v = (α · v) 𝟙` for `A = 𝟙 αᵀ`. -/
theorem rowClone_mulVec {n : Nat} (a v : Vec n α) :
    Mat.mulVec (rowClone a) v = fun _ => Mat.dot a v := rfl

/-- Prop 3.9 (authors' `rowClone_mulVec_one`): `A 𝟙 = (Σα) 𝟙`: `𝟙` is an eigenvector with
eigenvalue `Σα`. Does not cover: the other eigenvalues (all `0`). -/
theorem rowClone_mulVec_one {n : Nat} (a : Vec n α) :
    Mat.mulVec (rowClone a) (fun _ => 1) = fun _ => fsum n a := by
  funext i
  simp only [rowClone_mulVec, Mat.dot]
  apply fsum_congr; intro j; grind

/-- Prop 3.9 (authors' `rowClone_mul_self`): `A² = (Σα) A`. -/
theorem rowClone_mul_self {n : Nat} (a : Vec n α) :
    Mat.mul (rowClone a) (rowClone a) = Mat.smul (fsum n a) (rowClone a) := by
  funext i k
  simp only [Mat.mul, Mat.smul, rowClone_apply]
  rw [fsum_mul_right]

/-- Prop 3.9 (authors' `rowClone_pow`): `A^{k+1} = (Σα)^k A`. -/
theorem rowClone_pow {n : Nat} (a : Vec n α) (k : Nat) :
    Mat.pow (rowClone a) (k + 1) = Mat.smul (fsum n a ^ k) (rowClone a) := by
  induction k with
  | zero =>
    rw [Mat.pow_one]; funext i j; simp only [Mat.smul, Lean.Grind.Semiring.pow_zero]; grind
  | succ k ih =>
    rw [Mat.pow_succ, ih, Mat.smul_mul, rowClone_mul_self]
    funext i j; simp only [Mat.smul, Lean.Grind.Semiring.pow_succ]; grind

/-- Prop 3.9 (authors' `rowClone_sq_eq_zero`): if `Σα = 0` then `A² = 0`. -/
theorem rowClone_sq_eq_zero {n : Nat} (a : Vec n α) (h : fsum n a = 0) :
    Mat.mul (rowClone a) (rowClone a) = Mat.zero n n := by
  rw [rowClone_mul_self, h]; funext i j; simp only [Mat.smul, Mat.zero]; grind

/-- Prop 3.9: if `Σα = 0` then `A^k = 0` for every `k ≥ 2` (nilpotent). -/
theorem rowClone_pow_eq_zero {n : Nat} (a : Vec n α) (h : fsum n a = 0) {k : Nat} (hk : 2 ≤ k) :
    Mat.pow (rowClone a) k = Mat.zero n n := by
  obtain ⟨j, rfl⟩ : ∃ j, k = j + 1 + 1 := ⟨k - 2, by omega⟩
  rw [rowClone_pow, h]
  funext i l; simp only [Mat.smul, Mat.zero, Lean.Grind.Semiring.pow_succ]; grind

/-- The Laplace expansion for `1 × 1` matrices: `det M = M₀₀`. -/
theorem det_one_by_one (M : Mat 1 1 α) : det 1 M = M 0 0 := by
  show fsum 1 (fun i => (-1) ^ i.val * M i 0 * det 0 (fun a b => M (skip i a) b.succ)) = M 0 0
  rw [fsum_succ, fsum_zero]
  show 0 + (-1) ^ 0 * M 0 0 * 1 = M 0 0
  rw [Lean.Grind.Semiring.pow_zero]
  grind

/-- Prop 3.9 (authors' `rowClone_det_eq_zero`): for `d ≥ 2`, `det (𝟙 αᵀ) = 0`, with `det` the
Laplace expansion along the first column. Does not cover: the equivalence of this `det` with
the Leibniz formula (it is mathlib's `Matrix.det_succ_column_zero` recursion). -/
theorem det_rowClone (n : Nat) (a : Vec (n + 2) α) : det (n + 2) (rowClone a) = 0 := by
  induction n with
  | zero =>
    have hm : det 1 (fun (_ : Fin 1) (b : Fin 1) => a b.succ) = a 1 := by
      rw [det_one_by_one]; rfl
    show fsum 2 (fun i => (-1) ^ i.val * a 0 * det 1 (fun _ b => a b.succ)) = 0
    rw [hm]
    simp only [fsum_succ, fsum_zero]
    have h0 : ((Fin.last 0).castSucc : Fin 2).val = 0 := rfl
    have h1 : (Fin.last 1 : Fin 2).val = 1 := rfl
    rw [h0, h1]
    simp only [Lean.Grind.Semiring.pow_zero, Lean.Grind.Semiring.pow_succ]
    grind
  | succ n ih =>
    show fsum (n + 3) (fun i => (-1) ^ i.val * a 0 * det (n + 2) (rowClone (fun b => a b.succ))) = 0
    rw [ih]
    rw [fsum_congr (n + 3) (g := fun _ => (0 : α)) (fun i => by grind), fsum_const_zero]

end CommRing

section Field
variable [Lean.Grind.Field α]

/-- Prop 3.9 (singularity, kernel form): for `d ≥ 2`, `𝟙 αᵀ` has a nonzero kernel vector.
Does not cover: the dimension of the kernel (`d - 1` when `α ≠ 0`). -/
theorem rowClone_exists_kernel_vector {n : Nat} (a : Vec (n + 2) α) :
    ∃ v : Vec (n + 2) α, v ≠ (fun _ => 0) ∧ Mat.mulVec (rowClone a) v = fun _ => 0 := by
  let i0 : Fin (n + 2) := ⟨0, by omega⟩
  let i1 : Fin (n + 2) := ⟨1, by omega⟩
  have h01 : i0 ≠ i1 := by intro e; have := congrArg Fin.val e; simp [i0, i1] at this
  by_cases ha : a i0 = 0 ∧ a i1 = 0
  · refine ⟨fun j => if j = i0 then 1 else 0, ?_, ?_⟩
    · intro e; have := congrFun e i0; simp at this; grind
    · funext i
      rw [rowClone_mulVec]; simp only [Mat.dot]
      rw [fsum_single (n + 2) i0]
      · simp only [if_true]; rw [ha.1]; grind
      · intro j hj; simp only [hj, if_false]; grind
  · refine ⟨fun j => if j = i0 then a i1 else if j = i1 then -a i0 else 0, ?_, ?_⟩
    · intro e
      apply ha
      have e0 := congrFun e i0
      have e1 := congrFun e i1
      simp only [if_true, h01.symm, if_false] at e0 e1
      exact ⟨by grind, e0⟩
    · funext i
      rw [rowClone_mulVec]; simp only [Mat.dot]
      have hsplit : (fun j => a j * (if j = i0 then a i1 else if j = i1 then -a i0 else 0))
          = fun j => (if j = i0 then a j * a i1 else 0) + (if j = i1 then a j * -a i0 else 0) := by
        funext j
        by_cases h0 : j = i0
        · have : j ≠ i1 := by rw [h0]; exact h01
          simp only [h0, if_true, h01, if_false]; grind
        · by_cases h1 : j = i1
          · simp only [h1, h01.symm, if_true, if_false]; grind
          · simp only [h0, h1, if_false]; grind
      rw [hsplit, fsum_add, fsum_single (n + 2) i0, fsum_single (n + 2) i1]
      · simp only [if_true]; grind
      · intro j hj; simp only [hj, if_false]
      · intro j hj; simp only [hj, if_false]

/-- Prop 3.9, `rank ≤ 1` in range form (authors' `rowClone_rank_le_one`): every image
`(𝟙 αᵀ) v = (α · v) 𝟙` lies on the line spanned by `𝟙`. Does not cover: rank as a dimension. -/
theorem rowClone_mulVec_mem_line {n : Nat} (a v : Vec n α) :
    ∃ c, Mat.mulVec (rowClone a) v = fun _ => c :=
  ⟨Mat.dot a v, rfl⟩

/-- `α · (x e_j) = α_j x`: the dot product with a multiple of a standard basis vector. -/
theorem dot_single {n : Nat} (a : Vec n α) (j : Fin n) (x : α) :
    Mat.dot a (fun k => if k = j then x else 0) = a j * x := by
  simp only [Mat.dot]
  rw [fsum_single n j]
  · simp only [if_true]
  · intro k hk; simp only [hk, if_false]; grind

/-- Prop 3.9, `rank = 1` **iff** `α ≠ 0`, in range form (authors' `rowClone_rank_eq_one`, one
direction there): the range of `𝟙 αᵀ` is exactly the line `{c 𝟙}` (a one-dimensional space for
`d ≥ 1`) if and only if `α ≠ 0`; for `α = 0` the range is `{0}`. Does not cover: rank as a
dimension (core Lean has no dimension theory). -/
theorem rowClone_range_eq_line_iff {n : Nat} (a : Vec (n + 1) α) :
    (∀ w : Vec (n + 1) α, (∃ v, Mat.mulVec (rowClone a) v = w) ↔ ∃ c, w = fun _ => c)
      ↔ a ≠ fun _ => 0 := by
  constructor
  · intro H ha
    obtain ⟨v, hv⟩ := (H (fun _ => 1)).mpr ⟨1, rfl⟩
    have h0 := congrFun hv 0
    rw [rowClone_mulVec, ha] at h0
    simp only [Mat.dot] at h0
    rw [fsum_congr (n + 1) (g := fun _ => (0 : α)) (fun i => by grind), fsum_const_zero] at h0
    exact Lean.Grind.Field.zero_ne_one h0
  · intro ha w
    constructor
    · rintro ⟨v, rfl⟩; exact rowClone_mulVec_mem_line a v
    · rintro ⟨c, rfl⟩
      have : ∃ j, a j ≠ 0 := by
        apply Classical.byContradiction; intro hn
        apply ha; funext j; apply Classical.byContradiction; intro hj; exact hn ⟨j, hj⟩
      obtain ⟨j, hj⟩ := this
      refine ⟨fun k => if k = j then c / a j else 0, ?_⟩
      funext i
      rw [rowClone_mulVec]
      show Mat.dot a (fun k => if k = j then c / a j else 0) = c
      rw [dot_single]
      grind

/-- Prop 3.9, the unique nonzero eigenvalue: if `(𝟙 αᵀ) v = λ v` with `v ≠ 0` and `λ ≠ 0`, then
`λ = Σα` (and `v` is a multiple of `𝟙`). Does not cover: the multiplicity of `0`. -/
theorem rowClone_eigenvalue_eq_sum {n : Nat} (a v : Vec n α) (lam : α) (hv : v ≠ fun _ => 0)
    (hlam : lam ≠ 0) (h : Mat.mulVec (rowClone a) v = fun i => lam * v i) : lam = fsum n a := by
  have hi : ∃ i, v i ≠ 0 := by
    apply Classical.byContradiction; intro hn
    apply hv; funext j; apply Classical.byContradiction; intro hj; exact hn ⟨j, hj⟩
  obtain ⟨i0, hi0⟩ := hi
  have hc : ∀ i, v i = v i0 := by
    intro i
    have e1 := congrFun h i
    have e2 := congrFun h i0
    rw [rowClone_mulVec] at e1 e2
    have : lam * v i = lam * v i0 := by rw [← e1, ← e2]
    have : lam * (v i - v i0) = 0 := by grind
    rcases Lean.Grind.Field.of_mul_eq_zero this with h' | h'
    · exact absurd h' hlam
    · grind
  have e := congrFun h i0
  rw [rowClone_mulVec] at e
  simp only [Mat.dot] at e
  rw [fsum_congr n (g := fun j => a j * v i0) (fun j => by rw [hc j]), fsum_mul_right] at e
  have : (lam - fsum n a) * v i0 = 0 := by grind
  rcases Lean.Grind.Field.of_mul_eq_zero this with h' | h'
  · grind
  · exact absurd h' hi0

/-- Prop 3.9: for `s = Σα ≠ 0`, `A / s` is idempotent, `(A/s)² = A/s` (an oblique projection onto
the line of `𝟙`). Does not cover: `s = 0` (then `A² = 0`, `rowClone_sq_eq_zero`). -/
theorem rowClone_smul_inv_idem {n : Nat} (a : Vec n α) (h : fsum n a ≠ 0) :
    Mat.mul (Mat.smul (fsum n a)⁻¹ (rowClone a)) (Mat.smul (fsum n a)⁻¹ (rowClone a))
      = Mat.smul (fsum n a)⁻¹ (rowClone a) := by
  rw [Mat.smul_mul, Mat.mul_smul _ _ _ (fun x => by grind), rowClone_mul_self]
  funext i j
  simp only [Mat.smul]
  have : (fsum n a)⁻¹ * ((fsum n a)⁻¹ * (fsum n a * rowClone a i j))
      = (fsum n a)⁻¹ * rowClone a i j := by
    have := Lean.Grind.Field.inv_mul_cancel h
    grind
  exact this

end Field

end PLGA.RankOne
