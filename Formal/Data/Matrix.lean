module

public import Formal.Data.Sum

/-!
# Vectors and matrices as functions

`Vec n α := Fin n → α` and `Mat m n α := Fin m → Fin n → α`, with the operations and lemmas the
PLGA proofs need, over Lean core's algebra classes.

## Main definitions

* `Vec`, `Mat`: vectors and matrices (row index first);
* `Mat.mul`, `Mat.transpose`, `Mat.one`, `Mat.diag`, `Mat.add`, `Mat.sub`, `Mat.smul`, `Mat.zero`:
  product, transpose, identity, diagonal matrices and the linear structure;
* `Mat.hadamard`, `Mat.trace`, `Mat.mulVec`, `Mat.dot`: the entrywise (Hadamard) product `A ⊙ B`,
  trace, matrix–vector product, dot product;
* `Mat.rowBroadcast b`: `𝟙 bᵀ` (every row equals `b`);
* `Mat.hadPow pw A P`: the entrywise power `A^{⊙P}` for a power function `pw` (`Real.rpow`, or
  `ExpLog.rpow`);
* `Mat.pow A k`: matrix powers, `A^0 = 1`, `A^{k+1} = A^k A`.

## Main statements

* `Mat.mul_assoc`, `Mat.mul_add`, `Mat.add_mul`, `Mat.mul_one`, `Mat.one_mul`, `Mat.mul_smul`,
  `Mat.smul_mul`: associativity, distributivity, units;
* `Mat.mulVec_mulVec`, `Mat.mulVec_one`: `A (B v) = (A B) v`, `1 v = v`;
* `Mat.pow_zero`, `Mat.pow_succ`, `Mat.pow_one`, `Mat.pow_succ'`: both recursions of `Mat.pow`;
* `Mat.transpose_mul`, `Mat.transpose_transpose`, `Mat.transpose_one`, `Mat.trace_mul_comm`,
  `Mat.trace_one`, `Mat.dot_comm`.

## Implementation notes

No paper result is formalized here; this is infrastructure. Row-vector convention of the spec:
a projection is `X W + 𝟙 bᵀ` (`Mat.rowBroadcast`). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` uses mathlib's `Matrix` instead; core Lean has no
determinants or ranks (see `Formal/Structure/RankOne.lean` for a Laplace-expansion `det`).

## References

* none in the paper; `../shared/spec/PLGA_SPEC.md` §A.4 (row convention of the architecture).
-/

@[expose] public section

namespace PLGA

/-- A vector of length `n`. -/
abbrev Vec (n : Nat) (α : Type u) := Fin n → α
/-- An `m × n` matrix, row index first. -/
abbrev Mat (m n : Nat) (α : Type u) := Fin m → Fin n → α

namespace Mat

variable {α : Type u}

/-- Matrix product `(A * B) i k = ∑ j, A i j * B j k`. -/
noncomputable def mul [Add α] [Mul α] [OfNat α 0] {m n p : Nat} (A : Mat m n α) (B : Mat n p α) :
    Mat m p α :=
  fun i k => fsum n (fun j => A i j * B j k)

/-- Transpose. -/
def transpose {m n : Nat} (A : Mat m n α) : Mat n m α := fun j i => A i j

/-- The identity matrix. -/
def one [OfNat α 0] [OfNat α 1] (n : Nat) : Mat n n α := fun i j => if i = j then 1 else 0

/-- The diagonal matrix with diagonal `d`. -/
def diag [OfNat α 0] {n : Nat} (d : Vec n α) : Mat n n α := fun i j => if i = j then d i else 0

/-- Entrywise sum. -/
def add [Add α] {m n : Nat} (A B : Mat m n α) : Mat m n α := fun i j => A i j + B i j

/-- Entrywise difference. -/
def sub [Sub α] {m n : Nat} (A B : Mat m n α) : Mat m n α := fun i j => A i j - B i j

/-- Scalar multiple. -/
def smul [Mul α] {m n : Nat} (c : α) (A : Mat m n α) : Mat m n α := fun i j => c * A i j

/-- The zero matrix. -/
def zero [OfNat α 0] (m n : Nat) : Mat m n α := fun _ _ => 0

/-- Entrywise (Hadamard) product `A ⊙ B`. -/
def hadamard [Mul α] {m n : Nat} (A B : Mat m n α) : Mat m n α := fun i j => A i j * B i j

/-- Trace of a square matrix. -/
noncomputable def trace [Add α] [OfNat α 0] {n : Nat} (A : Mat n n α) : α := fsum n (fun i => A i i)

/-- Matrix–vector product `(A v) i = ∑ j, A i j * v j`. -/
noncomputable def mulVec [Add α] [Mul α] [OfNat α 0] {m n : Nat} (A : Mat m n α) (v : Vec n α) :
    Vec m α :=
  fun i => fsum n (fun j => A i j * v j)

/-- Dot product. -/
noncomputable def dot [Add α] [Mul α] [OfNat α 0] {n : Nat} (u v : Vec n α) : α :=
  fsum n (fun i => u i * v i)

/-- The all-ones column times a row: every row equals `b` (`𝟙 bᵀ`). -/
def rowBroadcast {m n : Nat} (b : Vec n α) : Mat m n α := fun _ j => b j

/-- Entrywise power `A^{⊙P}`, `(A^{⊙P}) i j = pw (A i j) (P i j)`, for a power function
`pw : base → exponent → value` (`Real.rpow`, or `ExpLog.rpow`). -/
def hadPow {m n : Nat} (pw : α → α → α) (A P : Mat m n α) : Mat m n α :=
  fun i j => pw (A i j) (P i j)

/-- The `k`-th power of a square matrix: `A^0 = 1`, `A^{k+1} = A^k A`. -/
noncomputable def pow [Add α] [Mul α] [OfNat α 0] [OfNat α 1] {n : Nat} (A : Mat n n α) :
    Nat → Mat n n α
  | 0 => one n
  | k + 1 => mul (pow A k) A

section Semiring
variable [Lean.Grind.Semiring α]

theorem mul_apply {m n p : Nat} (A : Mat m n α) (B : Mat n p α) (i : Fin m) (k : Fin p) :
    mul A B i k = fsum n (fun j => A i j * B j k) := rfl

theorem mul_assoc {m n p q : Nat} (A : Mat m n α) (B : Mat n p α) (C : Mat p q α) :
    mul (mul A B) C = mul A (mul B C) := by
  funext i l
  simp only [mul]
  have h1 : (fun k => fsum n (fun j => A i j * B j k) * C k l)
      = (fun k => fsum n (fun j => A i j * B j k * C k l)) := by
    funext k; rw [← fsum_mul_right]
  have h2 : (fun j => A i j * fsum p (fun k => B j k * C k l))
      = (fun j => fsum p (fun k => A i j * B j k * C k l)) := by
    funext j; rw [← fsum_mul_left]; apply fsum_congr; intro k; grind
  rw [h1, h2, fsum_comm]

theorem mul_add {m n p : Nat} (A : Mat m n α) (B C : Mat n p α) :
    mul A (add B C) = add (mul A B) (mul A C) := by
  funext i k; simp only [mul, add]; rw [← fsum_add]; apply fsum_congr; intro j; grind

theorem add_mul {m n p : Nat} (A B : Mat m n α) (C : Mat n p α) :
    mul (add A B) C = add (mul A C) (mul B C) := by
  funext i k; simp only [mul, add]; rw [← fsum_add]; apply fsum_congr; intro j; grind

theorem mul_one {m n : Nat} (A : Mat m n α) : mul A (one n) = A := by
  funext i k
  simp only [mul, one]
  rw [fsum_single n k]
  · simp <;> grind
  · intro j hj; simp [hj] <;> grind

theorem one_mul {m n : Nat} (A : Mat m n α) : mul (one m) A = A := by
  funext i k
  simp only [mul, one]
  rw [fsum_single m i]
  · simp <;> grind
  · intro j hj; have : i ≠ j := fun e => hj e.symm
    simp [this] <;> grind

theorem mul_smul {m n p : Nat} (A : Mat m n α) (c : α) (B : Mat n p α)
    (hc : ∀ x : α, x * c = c * x) : mul A (smul c B) = smul c (mul A B) := by
  funext i k; simp only [mul, smul]; rw [← fsum_mul_left]; apply fsum_congr; intro j
  rw [← Lean.Grind.Semiring.mul_assoc, hc (A i j), Lean.Grind.Semiring.mul_assoc]

theorem smul_mul {m n p : Nat} (c : α) (A : Mat m n α) (B : Mat n p α) :
    mul (smul c A) B = smul c (mul A B) := by
  funext i k; simp only [mul, smul]; rw [← fsum_mul_left]; apply fsum_congr; intro j
  exact Lean.Grind.Semiring.mul_assoc _ _ _

theorem mulVec_mulVec {m n p : Nat} (A : Mat m n α) (B : Mat n p α) (v : Vec p α) :
    mulVec A (mulVec B v) = mulVec (mul A B) v := by
  funext i
  simp only [mulVec, mul]
  have h1 : (fun j => A i j * fsum p (fun k => B j k * v k))
      = (fun j => fsum p (fun k => A i j * B j k * v k)) := by
    funext j; rw [← fsum_mul_left]; apply fsum_congr; intro k; grind
  have h2 : (fun k => fsum n (fun j => A i j * B j k) * v k)
      = (fun k => fsum n (fun j => A i j * B j k * v k)) := by
    funext k; rw [← fsum_mul_right]
  rw [h1, h2, fsum_comm]

theorem mulVec_one {n : Nat} (v : Vec n α) : mulVec (one n) v = v := by
  funext i
  simp only [mulVec, one]
  rw [fsum_single n i]
  · simp <;> grind
  · intro j hj; have : i ≠ j := fun e => hj e.symm
    simp [this] <;> grind

/-- `A^0 = 1`. -/
theorem pow_zero {n : Nat} (A : Mat n n α) : pow A 0 = one n := rfl

/-- `A^{k+1} = A^k A`. -/
theorem pow_succ {n : Nat} (A : Mat n n α) (k : Nat) : pow A (k + 1) = mul (pow A k) A := rfl

/-- `A^1 = A`. -/
theorem pow_one {n : Nat} (A : Mat n n α) : pow A 1 = A := by
  rw [pow_succ, pow_zero, one_mul]

/-- `A^{k+1} = A · A^k`. -/
theorem pow_succ' {n : Nat} (A : Mat n n α) (k : Nat) : pow A (k + 1) = mul A (pow A k) := by
  induction k with
  | zero => rw [pow_succ, pow_zero, one_mul, mul_one]
  | succ k ih =>
    calc pow A (k + 2) = mul (pow A (k + 1)) A := rfl
      _ = mul (mul A (pow A k)) A := by rw [ih]
      _ = mul A (mul (pow A k) A) := mul_assoc _ _ _
      _ = mul A (pow A (k + 1)) := rfl

section NatCast
attribute [local instance] Lean.Grind.Semiring.natCast

/-- `tr 1 = n`. -/
theorem trace_one (n : Nat) : trace (one n : Mat n n α) = (Nat.cast n : α) := by
  have : (fun i : Fin n => (one n : Mat n n α) i i) = fun _ => 1 := by
    funext i; simp [one]
  unfold trace
  rw [this, fsum_const]; grind

end NatCast

end Semiring

section CommSemiring
variable [Lean.Grind.CommSemiring α]

theorem transpose_mul {m n p : Nat} (A : Mat m n α) (B : Mat n p α) :
    transpose (mul A B) = mul (transpose B) (transpose A) := by
  funext k i; simp only [transpose, mul]; apply fsum_congr; intro j; grind

theorem trace_mul_comm {m n : Nat} (A : Mat m n α) (B : Mat n m α) :
    trace (mul A B) = trace (mul B A) := by
  simp only [trace, mul]
  rw [fsum_comm]; apply fsum_congr; intro j; apply fsum_congr; intro i; grind

theorem dot_comm {n : Nat} (u v : Vec n α) : dot u v = dot v u := by
  simp only [dot]; apply fsum_congr; intro i; grind

end CommSemiring

@[simp] theorem transpose_transpose {m n : Nat} (A : Mat m n α) : transpose (transpose A) = A := rfl

theorem transpose_one [OfNat α 0] [OfNat α 1] (n : Nat) :
    transpose (one n : Mat n n α) = one n := by
  funext i j; simp only [transpose, one]
  by_cases h : i = j
  · simp [h]
  · have : j ≠ i := fun e => h e.symm
    simp [h, this]

end Mat

end PLGA
