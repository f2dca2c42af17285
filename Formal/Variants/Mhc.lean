module

public import Formal.Data.Block
public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# mHC residual mixing: doubly stochastic matrices do not expand; Sinkhorn; what the bound misses

mHC (manifold-constrained hyper-connections) keeps `n` residual streams `X ∈ α^{n×d}` and updates
`X_{ℓ+1} = B_ℓ X_ℓ + C_ℓ F_ℓ(A_ℓ X_ℓ)` with `B_ℓ ≥ 0` doubly stochastic (`B𝟙 = 𝟙`, `𝟙ᵀB = 𝟙ᵀ`), `B`
produced by Sinkhorn normalization. A nonnegative doubly stochastic `B` does not increase the
squared Euclidean norm and products stay doubly stochastic; one Sinkhorn step normalizes exactly
one side; and the layer transfer can still expand, since the bound constrains `B` only.

## Main definitions

* `rowSum`, `colSum`, `normSq`: row and column sums, `‖v‖² = Σ v_i²`;
* `DoublyStochastic`: entries `≥ 0`, every row and column sums to `1`;
* `colStep`, `rowStep`: the Sinkhorn column and row steps;
* `sinkM0`, `mix2`: the examples `[[4,1],[1,1]]` and `[[2/3,1/3],[1/3,2/3]]`;
* `transfer`: the mHC layer transfer `X ↦ B X + C F(A X)`.

## Main statements

* `weighted_mean_sq_le`: the row-sum Cauchy–Schwarz step: for weights `w ≥ 0`, `Σ w = 1`,
  `(Σ w_j x_j)² ≤ Σ w_j x_j²`, via `Σ w_j (x_j − m)² ≥ 0`, no spectral theory;
* `doublyStochastic_normSq_le`: `‖B v‖² ≤ ‖v‖²` for every nonnegative doubly stochastic `B`;
* `doublyStochastic_mul` (products stay doubly stochastic), `doublyStochastic_mul_normSq_le`;
* `colStep_colSum` / `colStep_colSum_of_pos`, `rowStep_rowSum`: after a Sinkhorn column (row) step
  the column (row) sums are exactly `1`;
* `sinkhorn_round_row_sum` / `sinkhorn_orders_differ` (over `Rat`, `M⁽⁰⁾ = [[4,1],[1,1]]`): after
  one row-then-column round row 1 sums to `82/91 ≠ 1`; row-first and column-first differ;
* `mix_keeps_ones`, `mix_contracts_difference`: `B = [[2/3,1/3],[1/3,2/3]]` fixes `[1,1]` and
  scales `[1,−1]` by `1/3`;
* `mhc_transfer_amplifies` (over `Rat`): one stream, `B = 1`, `A = 1/2`, `C = 1`, `F(u) = 4u` gives
  `x ↦ 3x` although `B` is doubly stochastic.

## Implementation notes

Not a result of the PLGA paper (mHC). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered: the spectral norm as such
(only the squared-norm inequality), convergence of Sinkhorn iterations, the learned
parametrization of `A`, `C`, floating point.

## References

* mHC, manifold-constrained hyper-connections;
* `../shared/spec/VARIANTS.md` §3.
-/

@[expose] public section

namespace PLGA.Variants.Mhc

open PLGA

variable {α : Type u}

/-- Row sum `Σ_j M i j`. -/
noncomputable def rowSum [Lean.Grind.CommRing α] {m n : Nat} (M : Mat m n α) (i : Fin m) : α :=
  fsum n (fun j => M i j)

/-- Column sum `Σ_i M i j`. -/
noncomputable def colSum [Lean.Grind.CommRing α] {m n : Nat} (M : Mat m n α) (j : Fin n) : α :=
  fsum m (fun i => M i j)

/-- Squared Euclidean norm `‖v‖² = Σ v_i²`. -/
noncomputable def normSq [Lean.Grind.CommRing α] {n : Nat} (v : Vec n α) : α :=
  fsum n (fun i => v i * v i)

section Ordered
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- A nonnegative doubly stochastic matrix: entries `≥ 0`, every row and column sums to `1`. -/
def DoublyStochastic {n : Nat} (B : Mat n n α) : Prop :=
  (∀ i j, 0 ≤ B i j) ∧ (∀ i, rowSum B i = 1) ∧ (∀ j, colSum B j = 1)

/-- mHC (VARIANTS.md §3), the row-sum Cauchy–Schwarz step: for nonnegative weights summing to
`1`, `(Σ w_j x_j)² ≤ Σ w_j x_j²` (proved from `Σ w_j (x_j − m)² ≥ 0`). Does not cover: weights
with another total. -/
theorem weighted_mean_sq_le {n : Nat} (w x : Vec n α) (hw : ∀ j, 0 ≤ w j) (hs : fsum n w = 1) :
    fsum n (fun j => w j * x j) * fsum n (fun j => w j * x j)
      ≤ fsum n (fun j => w j * (x j * x j)) := by
  generalize hm : fsum n (fun j => w j * x j) = m
  have h0 := fsum_nonneg n (fun j => w j * ((x j - m) * (x j - m)))
    (fun j => Lean.Grind.OrderedRing.mul_nonneg (hw j) (mul_self_nonneg _))
  have hexp : fsum n (fun j => w j * ((x j - m) * (x j - m)))
      = fsum n (fun j => w j * (x j * x j)) - (2 * m) * fsum n (fun j => w j * x j)
        + (m * m) * fsum n w := by
    rw [← fsum_mul_left, ← fsum_mul_left, ← fsum_sub, ← fsum_add]
    apply fsum_congr; intro j; grind
  rw [hm, hs] at hexp
  rw [hexp] at h0
  grind

/-- mHC (VARIANTS.md §3): a nonnegative doubly stochastic `B` does not increase the Euclidean
norm, `‖B v‖² ≤ ‖v‖²` (hence spectral norm `≤ 1`). Does not cover: strict contraction on
`𝟙^⊥`, the full layer transfer (see `mhc_transfer_amplifies`). -/
theorem doublyStochastic_normSq_le {n : Nat} {B : Mat n n α} (hB : DoublyStochastic B)
    (v : Vec n α) : normSq (Mat.mulVec B v) ≤ normSq v := by
  obtain ⟨hnn, hrow, hcol⟩ := hB
  have h1 : normSq (Mat.mulVec B v) ≤ fsum n (fun i => fsum n (fun j => B i j * (v j * v j))) :=
    fsum_le_fsum n _ _ (fun i => weighted_mean_sq_le (B i) v (hnn i) (hrow i))
  have h2 : fsum n (fun i => fsum n (fun j => B i j * (v j * v j))) = normSq v := by
    rw [fsum_comm]; apply fsum_congr; intro j
    rw [fsum_mul_right (c := v j * v j) (f := fun i => B i j)]
    have := hcol j; simp only [colSum] at this; rw [this]; grind
  rw [h2] at h1; exact h1

/-- mHC (VARIANTS.md §3): the product of two nonnegative doubly stochastic matrices is
nonnegative doubly stochastic (so a stack of mixing steps stays in the set). Does not cover:
the full layer transfer. -/
theorem doublyStochastic_mul {n : Nat} {A B : Mat n n α} (hA : DoublyStochastic A)
    (hB : DoublyStochastic B) : DoublyStochastic (Mat.mul A B) := by
  obtain ⟨hAn, hAr, hAc⟩ := hA
  obtain ⟨hBn, hBr, hBc⟩ := hB
  refine ⟨?_, ?_, ?_⟩
  · intro i k
    exact fsum_nonneg n _ (fun j => Lean.Grind.OrderedRing.mul_nonneg (hAn i j) (hBn j k))
  · intro i
    simp only [rowSum, Mat.mul]
    rw [fsum_comm]
    have : (fun j => fsum n (fun k => A i j * B j k)) = (fun j => A i j) := by
      funext j; rw [fsum_mul_left]; have := hBr j; simp only [rowSum] at this; rw [this]; grind
    rw [this]; exact hAr i
  · intro k
    simp only [colSum, Mat.mul]
    rw [fsum_comm]
    have : (fun j => fsum n (fun i => A i j * B j k)) = (fun j => B j k) := by
      funext j; rw [fsum_mul_right]; have := hAc j; simp only [colSum] at this; rw [this]; grind
    rw [this]; exact hBc k

/-- mHC (VARIANTS.md §3): two stacked mixing steps do not increase the norm either. Does not
cover: the sub-layer branches `C F(A X)`. -/
theorem doublyStochastic_mul_normSq_le {n : Nat} {A B : Mat n n α} (hA : DoublyStochastic A)
    (hB : DoublyStochastic B) (v : Vec n α) : normSq (Mat.mulVec (Mat.mul A B) v) ≤ normSq v :=
  doublyStochastic_normSq_le (doublyStochastic_mul hA hB) v

end Ordered

/-! ## Sinkhorn steps -/

section Field
variable [Lean.Grind.Field α]

/-- Sinkhorn column step: divide every column by its sum. -/
noncomputable def colStep {m n : Nat} (M : Mat m n α) : Mat m n α := fun i j => M i j / colSum M j

/-- Sinkhorn row step: divide every row by its sum. -/
noncomputable def rowStep {m n : Nat} (M : Mat m n α) : Mat m n α := fun i j => M i j / rowSum M i

/-- mHC Sinkhorn (VARIANTS.md §3): after a column step every column sums to exactly `1`
(nonzero column sums). Does not cover: the row sums (only approximately `1`). -/
theorem colStep_colSum {m n : Nat} (M : Mat m n α) (j : Fin n) (h : colSum M j ≠ 0) :
    colSum (colStep M) j = 1 := by
  simp only [colSum, colStep]
  have : (fun i => M i j / fsum m (fun i => M i j))
      = (fun i => M i j * (fsum m (fun i => M i j))⁻¹) := by
    funext i; rw [Lean.Grind.Field.div_eq_mul_inv]
  rw [this, fsum_mul_right]
  exact Lean.Grind.Field.mul_inv_cancel h

/-- mHC Sinkhorn (VARIANTS.md §3): after a row step every row sums to exactly `1` (nonzero row
sums). Does not cover: the column sums. -/
theorem rowStep_rowSum {m n : Nat} (M : Mat m n α) (i : Fin m) (h : rowSum M i ≠ 0) :
    rowSum (rowStep M) i = 1 := by
  simp only [rowSum, rowStep]
  have : (fun j => M i j / fsum n (fun j => M i j))
      = (fun j => M i j * (fsum n (fun j => M i j))⁻¹) := by
    funext j; rw [Lean.Grind.Field.div_eq_mul_inv]
  rw [this, fsum_mul_right]
  exact Lean.Grind.Field.mul_inv_cancel h

variable [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- mHC Sinkhorn (VARIANTS.md §3): for a positive matrix (`M⁽⁰⁾ = exp Z`) with at least one row,
the column step makes every column sum exactly `1`. Does not cover: convergence of the
alternation. -/
theorem colStep_colSum_of_pos {m n : Nat} (M : Mat (m + 1) n α) (hM : ∀ i j, 0 < M i j)
    (j : Fin n) : colSum (colStep M) j = 1 := by
  apply colStep_colSum
  have hle := le_fsum_of_nonneg (m + 1) (fun i => M i j) (fun i => Std.le_of_lt (hM i j)) 0
  have hp := Std.lt_of_lt_of_le (hM 0 j) hle
  intro h0; simp only [colSum] at h0; rw [h0] at hp; grind

end Field

/-! ## Witnesses over `Rat` -/

/-- The Sinkhorn start matrix `[[4,1],[1,1]]` of VARIANTS.md §3. -/
def sinkM0 : Mat 2 2 Rat := fun i j => if i = 0 ∧ j = 0 then 4 else 1

/-- mHC Sinkhorn (VARIANTS.md §3): after one row-then-column round from `[[4,1],[1,1]]`, row 1
sums to `82/91` (error `≈ 9.9e-2`), not `1`. Does not cover: later rounds. -/
theorem sinkhorn_round_row_sum : rowSum (colStep (rowStep sinkM0)) 0 = 82 / 91 := by
  simp [rowSum, colSum, colStep, rowStep, sinkM0, fsum]
  grind

/-- mHC Sinkhorn (VARIANTS.md §3): row-first and column-first rounds give different iterates
(entry `(1,2)`: `2/7` vs `5/13`). Does not cover: the limit (equal for both orders). -/
theorem sinkhorn_orders_differ : colStep (rowStep sinkM0) ≠ rowStep (colStep sinkM0) := by
  intro h
  have := congrFun (congrFun h 0) 1
  simp [rowSum, colSum, colStep, rowStep, sinkM0, fsum] at this
  grind

/-- The mixing matrix `[[2/3,1/3],[1/3,2/3]]`. -/
def mix2 : Mat 2 2 Rat := fun i j => if i = j then 2 / 3 else 1 / 3

/-- The example mixing matrix is nonnegative doubly stochastic (VARIANTS.md §3). -/
theorem mix2_doublyStochastic : DoublyStochastic mix2 := by
  refine ⟨?_, ?_, ?_⟩
  · intro i j; simp only [mix2]; split <;> grind
  · intro i; rcases fin2_cases i with rfl | rfl <;> simp [rowSum, mix2, fsum] <;> grind
  · intro j; rcases fin2_cases j with rfl | rfl <;> simp [colSum, mix2, fsum] <;> grind

/-- mHC (VARIANTS.md §3): `B = [[2/3,1/3],[1/3,2/3]]` keeps the mean direction `[1,1]`.
Does not cover: general `B`. -/
theorem mix_keeps_ones : Mat.mulVec mix2 (fun _ => 1) = fun _ => 1 := by
  funext i; rcases fin2_cases i with rfl | rfl <;> simp [Mat.mulVec, mix2, fsum] <;> grind

/-- mHC (VARIANTS.md §3): `B = [[2/3,1/3],[1/3,2/3]]` scales the difference direction `[1,−1]` by
`1/3`. Does not cover: general `B`. -/
theorem mix_contracts_difference :
    Mat.mulVec mix2 (fun i => if i = 0 then 1 else -1)
      = fun i => (1 / 3) * (if i = 0 then 1 else -1) := by
  funext i; rcases fin2_cases i with rfl | rfl <;> simp [Mat.mulVec, mix2, fsum] <;> grind

/-- The mHC layer transfer `X ↦ B X + C F(A X)` (`A` a `1×n` row, `C` an `n×1` column, `F` the
sub-layer on `1×d` rows). -/
noncomputable def transfer {n d : Nat} (B : Mat n n Rat) (A C : Vec n Rat)
    (F : Vec d Rat → Vec d Rat) (X : Mat n d Rat) : Mat n d Rat :=
  fun i k => Mat.mul B X i k + C i * F (fun k' => fsum n (fun i' => A i' * X i' k')) k

/-- mHC counter-point (VARIANTS.md §3): one stream, `B = 1` (doubly stochastic), `A = 1/2`,
`C = 1`, `F(u) = 4u`: the transfer is `x ↦ 3x`, so it expands `‖X‖²` by `9` although `B` does
not expand. Does not cover: Lipschitz bounds for `F` (none is assumed). -/
theorem mhc_transfer_amplifies :
    DoublyStochastic (fun _ _ => (1 : Rat) : Mat 1 1 Rat) ∧
    (∀ X : Mat 1 1 Rat, transfer (fun _ _ => 1) (fun _ => 1 / 2) (fun _ => 1)
        (fun u k => 4 * u k) X = fun i k => 3 * X i k) ∧
    normSq (fun _ : Fin 1 => (1 : Rat)) < normSq (fun i : Fin 1 => transfer (fun _ _ => 1)
        (fun _ => 1 / 2) (fun _ => 1) (fun u k => 4 * u k) (fun _ _ => 1) i (0 : Fin 1)) := by
  refine ⟨⟨?_, ?_, ?_⟩, ?_, ?_⟩
  · intro i j; grind
  · intro i; simp [rowSum, fsum] <;> grind
  · intro j; simp [colSum, fsum] <;> grind
  · intro X; funext i k; simp [transfer, Mat.mul, fsum]
    have hi : i = 0 := Fin.ext (by omega)
    have hk : k = 0 := Fin.ext (by omega)
    subst hi hk; grind
  · simp [normSq, transfer, Mat.mul, fsum]; grind

end PLGA.Variants.Mhc
