module

public import Formal.Data.Matrix

/-!
# Shared infrastructure of `Formal/Structure`: matrix powers, constant sums, squares

`matPow A k = A^k` by recursion (`A^0 = 1`, `A^{k+1} = A^k A`), the other-side recursion
`A^{k+1} = A A^k`, constant sums `∑_{i<n} c = n c`, `tr 1 = n`, and `0 ≤ a·a` in an ordered
ring. Used by the DAG regularizer, the rank-one results, the density operator and LayerNorm.

No paper result is formalized here; this is infrastructure. (General lemmas that could
move to `Formal/Data/Matrix.lean`: `fsum_const`, `trace_one`, `matPow`, `mul_self_nonneg`.)
-/

@[expose] public section

namespace PLGA.Structure

open PLGA

/- Core's `Lean.Grind.Semiring` carries `NatCast` as a field that is not a global instance;
make it available here (for mathlib's `ℝ` it is the usual cast). -/
attribute [local instance] Lean.Grind.Semiring.natCast

variable {α : Type u}

/-- The `k`-th power of a square matrix: `A^0 = 1`, `A^{k+1} = A^k A`. -/
noncomputable def matPow [Add α] [Mul α] [OfNat α 0] [OfNat α 1] {n : Nat} (A : Mat n n α) :
    Nat → Mat n n α
  | 0 => Mat.one n
  | k + 1 => Mat.mul (matPow A k) A

section Semiring
variable [Lean.Grind.Semiring α]

/-- `A^0 = 1`. -/
theorem matPow_zero {n : Nat} (A : Mat n n α) : matPow A 0 = Mat.one n := rfl

/-- `A^{k+1} = A^k A`. -/
theorem matPow_succ {n : Nat} (A : Mat n n α) (k : Nat) :
    matPow A (k + 1) = Mat.mul (matPow A k) A := rfl

/-- `A^1 = A`. -/
theorem matPow_one {n : Nat} (A : Mat n n α) : matPow A 1 = A := by
  rw [matPow_succ, matPow_zero, Mat.one_mul]

/-- `A^{k+1} = A · A^k`. -/
theorem matPow_succ' {n : Nat} (A : Mat n n α) (k : Nat) :
    matPow A (k + 1) = Mat.mul A (matPow A k) := by
  induction k with
  | zero => rw [matPow_succ, matPow_zero, Mat.one_mul, Mat.mul_one]
  | succ k ih =>
    calc matPow A (k + 2) = Mat.mul (matPow A (k + 1)) A := rfl
      _ = Mat.mul (Mat.mul A (matPow A k)) A := by rw [ih]
      _ = Mat.mul A (Mat.mul (matPow A k) A) := Mat.mul_assoc _ _ _
      _ = Mat.mul A (matPow A (k + 1)) := rfl

/-- A constant sum: `∑_{i<n} c = n · c`. -/
theorem fsum_const (n : Nat) (c : α) : fsum n (fun _ : Fin n => c) = (Nat.cast n : α) * c := by
  induction n with
  | zero => simp only [fsum_zero]; grind
  | succ n ih => rw [fsum_succ, ih, Lean.Grind.Semiring.natCast_succ]; grind

/-- `tr 1 = n`. -/
theorem trace_one (n : Nat) : Mat.trace (Mat.one n : Mat n n α) = (Nat.cast n : α) := by
  have : (fun i : Fin n => (Mat.one n : Mat n n α) i i) = fun _ => 1 := by
    funext i; simp [Mat.one]
  unfold Mat.trace
  rw [this, fsum_const]; grind

end Semiring

section Ordered
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- Squares are nonnegative in an ordered commutative ring: `0 ≤ a · a`. -/
theorem mul_self_nonneg (a : α) : 0 ≤ a * a := by
  rcases Std.le_total (a := 0) (b := a) with h | h
  · exact Lean.Grind.OrderedRing.mul_nonneg h h
  · exact Lean.Grind.OrderedRing.mul_nonneg_of_nonpos_of_nonpos h h

end Ordered

end PLGA.Structure
