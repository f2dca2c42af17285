module

public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# Perron–Frobenius I: positivity propagation (Thm 3.8, steps 1–2)

For a square matrix `A` with every entry `≥ ε > 0`: `A x > 0` entrywise for every nonnegative
nonzero `x`, all powers `A^(k+1)` are entrywise positive (step 1), and a nonnegative nonzero
eigenvector is strictly positive with a positive eigenvalue that is at least `ε` and at least
`n ε · min x / max x` (step 2).

## Main definitions

* `dimA`: the dimension `n` as an element of `α` (`1 + ⋯ + 1`, equal to `Nat.cast n` by
  `dimA_eq_natCast`).

## Main statements

* `exists_min_index`, `exists_max_index`, `exists_max_ratio`, `exists_min_ratio`: finite
  extrema over `Fin n` (the ratio versions are used by every Collatz–Wielandt argument);
* `mulVec_add`, `mulVec_sub`, `mulVec_smul`, `mulVec_neg`, `mulVec_le_mulVec`, `mulVec_nonneg`:
  linearity and monotonicity of `Mat.mulVec` (general helpers);
* `eps_mul_fsum_le_mulVec`, `mulVec_pos`: step 1, `(A x)_i ≥ ε · ∑_j x_j`, hence `A x > 0`;
* `mpow_pos`: step 1, `A^(k+1)` (`Mat.pow`) is entrywise positive;
* `eigvec_pos_of_nonneg`: step 2, a nonnegative nonzero eigenvector is strictly positive and
  its eigenvalue positive;
* `eps_le_eigenvalue`, `eigenvalue_mul_max_ge`: step 2, the eigenvalue is at least `ε` and at
  least `n ε · min x / max x`.

## Implementation notes

Setting of the whole `Formal/Perron` series: an ordered field `α` (Lean core's
`Lean.Grind.Field` with a linear order and `Lean.Grind.OrderedRing`, so mathlib's `ℝ` is an
instance) and a square matrix `A : Mat n n α` with every entry `≥ ε > 0`, the positivity that
Prop 3.7 establishes for the metric tensor `A_LM`. The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no Perron–Frobenius statement ("Perron–Frobenius
theory (Thm. 3.8, not yet in mathlib)"). Not covered here: eigenvalue comparison, uniqueness,
dominance and existence (later files); quantitative lower bounds on the entries of `A^k`;
vectors with negative entries.

## References

* Thm 3.8 (steps 1–2), Prop 3.7 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 (`A_LM`), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Perron

variable {α : Type u} [Lean.Grind.Field α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-! ## Finite extrema over `Fin n` (general helpers) -/

omit [Lean.Grind.Field α] [LT α] [Std.LawfulOrderLT α] [Lean.Grind.OrderedRing α] in
/-- A function on a nonempty `Fin n` attains its minimum. -/
theorem exists_min_index : ∀ {n : Nat}, 0 < n → ∀ f : Fin n → α, ∃ k, ∀ i, f k ≤ f i
  | 0, h, _ => absurd h (Nat.lt_irrefl 0)
  | n + 1, _, f => by
    by_cases hn : n = 0
    · subst hn
      refine ⟨0, fun i => ?_⟩
      have : i = 0 := Fin.ext (by have := i.isLt; show i.val = 0; omega)
      subst this; exact Std.le_refl _
    · obtain ⟨k, hk⟩ := exists_min_index (n := n) (by omega) (fun i => f i.castSucc)
      rcases Std.le_total (a := f k.castSucc) (b := f (Fin.last n)) with h | h
      · refine ⟨k.castSucc, fun i => ?_⟩
        induction i using Fin.lastCases with
        | last => exact h
        | cast j => exact hk j
      · refine ⟨Fin.last n, fun i => ?_⟩
        induction i using Fin.lastCases with
        | last => exact Std.le_refl _
        | cast j => exact Std.le_trans h (hk j)

/-- A function on a nonempty `Fin n` attains its maximum. -/
theorem exists_max_index {n : Nat} (hn : 0 < n) (f : Fin n → α) : ∃ k, ∀ i, f i ≤ f k := by
  obtain ⟨k, hk⟩ := exists_min_index hn (fun i => -f i)
  exact ⟨k, fun i => by have := hk i; grind⟩

/-- The ratio `w i / x i` (for `x > 0`) attains its maximum, in cross-multiplied form. -/
theorem exists_max_ratio {n : Nat} (hn : 0 < n) {x : Fin n → α} (hx : ∀ i, 0 < x i)
    (w : Fin n → α) : ∃ k, ∀ i, w i * x k ≤ w k * x i := by
  obtain ⟨k, hk⟩ := exists_max_index hn (fun i => w i / x i)
  refine ⟨k, fun i => ?_⟩
  have hxi := hx i
  have hxk := hx k
  have hpos : 0 ≤ x i * x k := Std.le_of_lt (Lean.Grind.OrderedRing.mul_pos hxi hxk)
  have h := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hk i) hpos
  have e1 : w i / x i * (x i * x k) = w i * x k := by grind
  have e2 : w k / x k * (x i * x k) = w k * x i := by grind
  rw [e1, e2] at h
  exact h

/-- The ratio `w i / x i` (for `x > 0`) attains its minimum, in cross-multiplied form. -/
theorem exists_min_ratio {n : Nat} (hn : 0 < n) {x : Fin n → α} (hx : ∀ i, 0 < x i)
    (w : Fin n → α) : ∃ k, ∀ i, w k * x i ≤ w i * x k := by
  obtain ⟨k, hk⟩ := exists_max_ratio hn hx (fun i => -w i)
  exact ⟨k, fun i => by have := hk i; grind⟩

/-! ## `Mat.mulVec`: linearity and monotonicity (general helpers) -/

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `A (x + y) = A x + A y`. -/
theorem mulVec_add {m n : Nat} (A : Mat m n α) (x y : Vec n α) (i : Fin m) :
    Mat.mulVec A (fun j => x j + y j) i = Mat.mulVec A x i + Mat.mulVec A y i := by
  simp only [Mat.mulVec]; rw [← fsum_add]; apply fsum_congr; intro j; grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `A (x − y) = A x − A y`. -/
theorem mulVec_sub {m n : Nat} (A : Mat m n α) (x y : Vec n α) (i : Fin m) :
    Mat.mulVec A (fun j => x j - y j) i = Mat.mulVec A x i - Mat.mulVec A y i := by
  simp only [Mat.mulVec]; rw [← fsum_sub]; apply fsum_congr; intro j; grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `A (c x) = c (A x)`. -/
theorem mulVec_smul {m n : Nat} (A : Mat m n α) (c : α) (x : Vec n α) (i : Fin m) :
    Mat.mulVec A (fun j => c * x j) i = c * Mat.mulVec A x i := by
  simp only [Mat.mulVec]; rw [← fsum_mul_left]; apply fsum_congr; intro j; grind

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `A (−x) = −(A x)`. -/
theorem mulVec_neg {m n : Nat} (A : Mat m n α) (x : Vec n α) (i : Fin m) :
    Mat.mulVec A (fun j => -x j) i = -Mat.mulVec A x i := by
  simp only [Mat.mulVec]; rw [← fsum_neg]; apply fsum_congr; intro j; grind

/-- A nonnegative matrix is monotone on vectors. -/
theorem mulVec_le_mulVec {m n : Nat} {A : Mat m n α} (hA : ∀ i j, 0 ≤ A i j) {x y : Vec n α}
    (h : ∀ j, x j ≤ y j) (i : Fin m) : Mat.mulVec A x i ≤ Mat.mulVec A y i :=
  fsum_le_fsum n _ _ (fun j => Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (h j) (hA i j))

/-- A nonnegative matrix maps nonnegative vectors to nonnegative vectors. -/
theorem mulVec_nonneg {m n : Nat} {A : Mat m n α} (hA : ∀ i j, 0 ≤ A i j) {x : Vec n α}
    (hx : ∀ j, 0 ≤ x j) (i : Fin m) : 0 ≤ Mat.mulVec A x i :=
  fsum_nonneg n _ (fun j => Lean.Grind.OrderedRing.mul_nonneg (hA i j) (hx j))

/-- One term of a nonnegative matrix–vector product is bounded by the whole product. -/
theorem single_le_mulVec {m n : Nat} {A : Mat m n α} (hA : ∀ i j, 0 ≤ A i j) {x : Vec n α}
    (hx : ∀ j, 0 ≤ x j) (i : Fin m) (k : Fin n) : A i k * x k ≤ Mat.mulVec A x i :=
  le_fsum_of_nonneg n (fun j => A i j * x j)
    (fun j => Lean.Grind.OrderedRing.mul_nonneg (hA i j) (hx j)) k

/-- A sum of nonnegative terms with one positive term is positive. -/
theorem fsum_pos {n : Nat} {x : Vec n α} (hx : ∀ j, 0 ≤ x j) {k : Fin n} (hk : 0 < x k) :
    0 < fsum n x :=
  Std.lt_of_lt_of_le hk (le_fsum_of_nonneg n x hx k)

/-- The dimension `n` as an element of `α` (`1 + ⋯ + 1`, i.e. `(n : α)`). -/
noncomputable def dimA (n : Nat) : α := fsum n (fun _ : Fin n => (1 : α))

section NatCast
attribute [local instance] Lean.Grind.Semiring.natCast

omit [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α] in
/-- `dimA n` is the cast `(n : α)`. -/
theorem dimA_eq_natCast (n : Nat) : (dimA n : α) = Nat.cast n := by
  unfold dimA; rw [fsum_const]; grind

end NatCast

/-- `(n : α) > 0` for `n > 0`. -/
theorem dimA_pos {n : Nat} (hn : 0 < n) : 0 < (dimA n : α) :=
  fsum_pos (k := ⟨0, hn⟩) (fun _ => Std.le_of_lt Lean.Grind.OrderedRing.zero_lt_one)
    Lean.Grind.OrderedRing.zero_lt_one

/-! ## Step 1: positivity propagation -/

/-- Thm 3.8, step 1 (quantitative): for `A ≥ ε` entrywise and `x ≥ 0`,
`(A x)_i ≥ ε · ∑_j x_j`. Does not cover: vectors with negative entries. -/
theorem eps_mul_fsum_le_mulVec {m n : Nat} {A : Mat m n α} {ε : α} (hA : ∀ i j, ε ≤ A i j)
    {x : Vec n α} (hx : ∀ j, 0 ≤ x j) (i : Fin m) : ε * fsum n x ≤ Mat.mulVec A x i := by
  rw [← fsum_mul_left]
  exact fsum_le_fsum n _ _
    (fun j => Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hA i j) (hx j))

/-- Thm 3.8, step 1: an entrywise positive matrix (`A ≥ ε > 0`) maps every nonnegative
nonzero vector to a strictly positive one. Does not cover: vectors with negative entries. -/
theorem mulVec_pos {m n : Nat} {A : Mat m n α} {ε : α} (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j)
    {x : Vec n α} (hx : ∀ j, 0 ≤ x j) {k : Fin n} (hk : x k ≠ 0) (i : Fin m) :
    0 < Mat.mulVec A x i := by
  have hk' : 0 < x k := by have := hx k; grind
  exact Std.lt_of_lt_of_le (Lean.Grind.OrderedRing.mul_pos hε (fsum_pos hx hk'))
    (eps_mul_fsum_le_mulVec hA hx i)

/-- Thm 3.8, step 1: every power `A^(k+1)` of an entrywise positive matrix is entrywise
positive. Does not cover: quantitative lower bounds on the entries of `A^k`. -/
theorem mpow_pos {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε) (hA : ∀ i j, ε ≤ A i j) :
    ∀ k : Nat, ∀ i j, 0 < Mat.pow A (k + 1) i j := by
  intro k
  induction k with
  | zero =>
    intro i j
    rw [Mat.pow_one]; exact Std.lt_of_lt_of_le hε (hA i j)
  | succ k ih =>
    intro i j
    rw [Mat.pow_succ']
    show 0 < Mat.mulVec A (fun l => Mat.pow A (k + 1) l j) i
    exact mulVec_pos hε hA (fun l => Std.le_of_lt (ih l j)) (k := j)
      (fun h => by have := ih j j; grind) i

/-! ## Step 2: nonnegative eigenvectors are positive -/

/-- Thm 3.8, step 2: a nonnegative nonzero eigenvector of an entrywise positive matrix is
strictly positive, and its eigenvalue is positive. Does not cover: eigenvectors with
entries of both signs. -/
theorem eigvec_pos_of_nonneg {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {x : Vec n α} (hx : ∀ j, 0 ≤ x j) {k : Fin n}
    (hk : x k ≠ 0) (hr : ∀ i, Mat.mulVec A x i = r * x i) : (∀ i, 0 < x i) ∧ 0 < r := by
  have hpos := fun i => mulVec_pos hε hA hx hk i
  have hk' : 0 < x k := by have := hx k; grind
  have hrpos : 0 < r := by
    apply Classical.byContradiction; intro h
    have h1 : r ≤ 0 := by grind
    have := Lean.Grind.OrderedRing.mul_nonpos_of_nonpos_of_nonneg h1 (Std.le_of_lt hk')
    have := hpos k; rw [hr k] at this; grind
  refine ⟨fun i => ?_, hrpos⟩
  apply Classical.byContradiction; intro h
  have h1 : x i ≤ 0 := by grind
  have := Lean.Grind.OrderedRing.mul_nonpos_of_nonneg_of_nonpos (Std.le_of_lt hrpos) h1
  have := hpos i; rw [hr i] at this; grind

/-- Thm 3.8, step 2 (quantitative): for a nonnegative eigenvector, `ε · ∑ x ≤ r · x_i`
for every `i`. Does not cover: upper bounds on `r`. -/
theorem eps_mul_fsum_le_eigenvalue_mul {n : Nat} {A : Mat n n α} {ε : α}
    (hA : ∀ i j, ε ≤ A i j) {r : α} {x : Vec n α} (hx : ∀ j, 0 ≤ x j)
    (hr : ∀ i, Mat.mulVec A x i = r * x i) (i : Fin n) : ε * fsum n x ≤ r * x i := by
  rw [← hr i]; exact eps_mul_fsum_le_mulVec hA hx i

/-- Thm 3.8, step 2: the eigenvalue of a positive eigenvector is at least `ε`. Does not
cover: the sharper bound `n ε · min x / max x` (see `eigenvalue_mul_max_ge`). -/
theorem eps_le_eigenvalue {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {x : Vec n α} (hx : ∀ j, 0 < x j)
    (hr : ∀ i, Mat.mulVec A x i = r * x i) (i : Fin n) : ε ≤ r := by
  have h1 := eps_mul_fsum_le_eigenvalue_mul hA (fun j => Std.le_of_lt (hx j)) hr i
  have h2 := le_fsum_of_nonneg n x (fun j => Std.le_of_lt (hx j)) i
  have h3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h2 (Std.le_of_lt hε)
  have h4 : ε * x i ≤ r * x i := Std.le_trans h3 h1
  apply Classical.byContradiction; intro h
  have h5 : r < ε := by grind
  have := Lean.Grind.OrderedRing.mul_lt_mul_of_pos_right h5 (hx i)
  grind

/-- Thm 3.8, step 2 (the `n ε · min x / max x` bound): if `μ ≤ x_j ≤ X` for all `j`, then
`n · ε · μ ≤ r · X`, i.e. `r ≥ n ε μ / X`. Does not cover: upper bounds on `r`. -/
theorem eigenvalue_mul_max_ge {n : Nat} {A : Mat n n α} {ε : α} (hε : 0 < ε)
    (hA : ∀ i j, ε ≤ A i j) {r : α} {x : Vec n α} (hx : ∀ j, 0 ≤ x j) {k : Fin n}
    (hk : x k ≠ 0) (hr : ∀ i, Mat.mulVec A x i = r * x i) {μ X : α} (hμ : ∀ j, μ ≤ x j)
    (hX : ∀ j, x j ≤ X) : dimA n * ε * μ ≤ r * X := by
  have hrpos := (eigvec_pos_of_nonneg hε hA hx hk hr).2
  have h1 := eps_mul_fsum_le_eigenvalue_mul hA hx hr k
  have h2 : fsum n (fun _ : Fin n => μ) ≤ fsum n x := fsum_le_fsum n _ _ hμ
  rw [fsum_const, ← dimA_eq_natCast] at h2
  have h3 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left h2 (Std.le_of_lt hε)
  have h4 := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hX k) (Std.le_of_lt hrpos)
  have e : ε * (dimA n * μ) = dimA n * ε * μ := by grind
  rw [e] at h3
  exact Std.le_trans h3 (Std.le_trans h1 h4)

end PLGA.Perron
