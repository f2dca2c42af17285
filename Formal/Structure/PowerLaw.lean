module

public import Formal.Analytic
public import Formal.Data.Matrix

/-!
# The power-law (potential) tensor `A_P = A_LM^{⊙P}` (Prop 3.7)

PLGA raises the metric tensor entrywise to a learned exponent matrix `P`:
`A_P i j = (A_LM i j)^{P i j}`. For a positive base the real power is `a^p = exp(p · log a)`; we
take that as the definition. `A_P` is entrywise positive, `P = 0` gives `𝟙𝟙ᵀ`, and the power
satisfies the group laws.

## Main definitions

* the power tensor is `Mat.hadPow E.rpow A P` (`Formal.Data.Matrix`, `ExpLog.rpow`): entry
  `exp (P i j * log (A i j))`;
* `onesMat`: the all-ones matrix `𝟙𝟙ᵀ`;
* `hadLog`: the entrywise logarithm `log A`.

## Main statements

* `hadPow_pos`: `A_P` is entrywise strictly positive (for every `A`, every `P`);
* `hadPow_zero`: `P = 0` gives the all-ones matrix `𝟙𝟙ᵀ` (the state at initialization, where
  `P ≈ 0`, spec §A.5);
* `hadPow_add`: the one-parameter group law `A^{⊙(s+t)P} = A^{⊙sP} ⊙ A^{⊙tP}`;
  `hadPow_add_any`, `hadPow_add_exponent`: without positivity, for two exponent matrices;
  `hadPow_neg_hadamard`: inverses, `A^{⊙(−t)P} ⊙ A^{⊙tP} = 𝟙𝟙ᵀ`;
* `hadPow_one` (`P = 𝟙𝟙ᵀ` returns `A` on positive `A`), `hadPow_hadPow`
  (`(A^{⊙P})^{⊙Q} = A^{⊙(P⊙Q)}`), `hadPow_hadamard_base` (`(A⊙B)^{⊙P} = A^{⊙P} ⊙ B^{⊙P}`),
  `hadLog_hadPow` (`log A_P = P ⊙ log A`, the log-linear form of the power law).

## Implementation notes

`exp`/`log` are any pair given as a hypothesis (`ExpLog`, which `Real.exp`/`Real.log` satisfy,
so `E.rpow` is `Real.rpow` on positive bases), not axioms. Counterparts in the authors'
repository `burcgokden/PLDR-LLM-Math-Foundations`: `hadPow_zero`, `hadPow_add`; positivity and
the further group-law forms are new. Not covered: non-positive bases (the model has
`A_LM ≥ ε > 0`, Prop 3.7 / `metricTensor_entry_pos`), differentiability in `P`, continuity
(`P ≈ 0 ⇒ A_P ≈ 𝟙𝟙ᵀ`).

## References

* Prop 3.7 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 7 (power law), §A.5 (initialization).
-/

@[expose] public section

namespace PLGA.PowerLaw

variable {α : Type u}

/-- The all-ones matrix `𝟙𝟙ᵀ`. -/
def onesMat [OfNat α 1] (m n : Nat) : Mat m n α := fun _ _ => 1

/-- The entrywise logarithm `log A`. -/
def hadLog [Add α] [Mul α] [OfNat α 0] [OfNat α 1] [LT α] {m n : Nat} (E : ExpLog α)
    (A : Mat m n α) : Mat m n α :=
  fun i j => E.log (A i j)

section Ring
variable [Lean.Grind.CommRing α] [LT α]

/-- Entry formula of `A^{⊙P}`. -/
theorem hadPow_apply {m n : Nat} (E : ExpLog α) (A P : Mat m n α) (i : Fin m) (j : Fin n) :
    Mat.hadPow E.rpow A P i j = E.exp (P i j * E.log (A i j)) := rfl

/-- Prop 3.7: the potential tensor `A_P = A^{⊙P}` is entrywise strictly positive, for every
base `A` and exponent matrix `P`. Does not cover: bounds on the size of the entries. -/
theorem hadPow_pos {m n : Nat} (E : ExpLog α) (A P : Mat m n α) (i : Fin m) (j : Fin n) :
    0 < Mat.hadPow E.rpow A P i j :=
  E.exp_pos _

/-- Prop 3.7 (authors' `hadPow_zero`): the exponent `P = 0` gives the all-ones matrix.
Does not cover: the approximate statement `P ≈ 0 ⇒ A_P ≈ 𝟙𝟙ᵀ` (continuity). -/
theorem hadPow_zero {m n : Nat} (E : ExpLog α) (A : Mat m n α) :
    Mat.hadPow E.rpow A (Mat.zero m n) = onesMat m n := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.zero, onesMat]
  have : (0 : α) * E.log (A i j) = 0 := by grind
  rw [this, E.exp_zero]

/-- Prop 3.7 (authors' `hadPow_add`): the one-parameter group law
`A^{⊙(s+t)P} = A^{⊙sP} ⊙ A^{⊙tP}`, stated for entrywise-positive `A` as in the paper
(with `exp`/`log` as the definition it holds for every `A`; see `hadPow_add_any`).
Does not cover: real powers of non-positive bases. -/
theorem hadPow_add {m n : Nat} (E : ExpLog α) (A P : Mat m n α) (s t : α)
    (_hA : ∀ i j, 0 < A i j) :
    Mat.hadPow E.rpow A (Mat.smul (s + t) P)
      = Mat.hadamard (Mat.hadPow E.rpow A (Mat.smul s P)) (Mat.hadPow E.rpow A (Mat.smul t P)) := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.smul, Mat.hadamard]
  rw [← E.exp_add]
  congr 1
  grind

/-- The group law without the positivity hypothesis (true for the `exp ∘ log` definition).
Does not cover: agreement with `Real.rpow` off the positive cone. -/
theorem hadPow_add_any {m n : Nat} (E : ExpLog α) (A P : Mat m n α) (s t : α) :
    Mat.hadPow E.rpow A (Mat.smul (s + t) P)
      = Mat.hadamard (Mat.hadPow E.rpow A (Mat.smul s P)) (Mat.hadPow E.rpow A (Mat.smul t P)) := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.smul, Mat.hadamard]
  rw [← E.exp_add]
  congr 1
  grind

/-- The group law for two arbitrary exponent matrices: `A^{⊙(P+Q)} = A^{⊙P} ⊙ A^{⊙Q}`.
Does not cover: anything beyond the exponent rule. -/
theorem hadPow_add_exponent {m n : Nat} (E : ExpLog α) (A P Q : Mat m n α) :
    Mat.hadPow E.rpow A (Mat.add P Q)
      = Mat.hadamard (Mat.hadPow E.rpow A P) (Mat.hadPow E.rpow A Q) := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.add, Mat.hadamard]
  rw [← E.exp_add]
  congr 1
  grind

/-- `A^{⊙𝟙𝟙ᵀ} = A` for entrywise-positive `A`: the power law contains the identity map.
Does not cover: non-positive `A`. -/
theorem hadPow_one {m n : Nat} (E : ExpLog α) (A : Mat m n α) (hA : ∀ i j, 0 < A i j) :
    Mat.hadPow E.rpow A (onesMat m n) = A := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, onesMat]
  have : (1 : α) * E.log (A i j) = E.log (A i j) := by grind
  rw [this, E.exp_log _ (hA i j)]

/-- Iterated powers: `(A^{⊙P})^{⊙Q} = A^{⊙(P⊙Q)}` (for every `A`, since `A^{⊙P} > 0`).
Does not cover: anything beyond the exponent rule. -/
theorem hadPow_hadPow {m n : Nat} (E : ExpLog α) (A P Q : Mat m n α) :
    Mat.hadPow E.rpow (Mat.hadPow E.rpow A P) Q = Mat.hadPow E.rpow A (Mat.hadamard Q P) := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.hadamard]
  rw [E.log_exp]
  congr 1
  grind

/-- The log-linear form of the power law: `log A_P = P ⊙ log A`.
Does not cover: anything beyond the identity. -/
theorem hadLog_hadPow {m n : Nat} (E : ExpLog α) (A P : Mat m n α) :
    hadLog E (Mat.hadPow E.rpow A P) = Mat.hadamard P (hadLog E A) := by
  funext i j
  simp only [hadLog, Mat.hadPow, ExpLog.rpow, Mat.hadamard]
  rw [E.log_exp]

/-- `log` turns products of positive numbers into sums (from the `ExpLog` laws). -/
theorem log_mul_of_pos (E : ExpLog α) {a b : α} (ha : 0 < a) (hb : 0 < b) :
    E.log (a * b) = E.log a + E.log b := by
  have h : a * b = E.exp (E.log a + E.log b) := by
    rw [E.exp_add, E.exp_log a ha, E.exp_log b hb]
  rw [h, E.log_exp]

/-- Multiplicativity in the base: `(A ⊙ B)^{⊙P} = A^{⊙P} ⊙ B^{⊙P}` for entrywise-positive
`A`, `B`. Does not cover: non-positive bases. -/
theorem hadPow_hadamard_base {m n : Nat} (E : ExpLog α) (A B P : Mat m n α)
    (hA : ∀ i j, 0 < A i j) (hB : ∀ i j, 0 < B i j) :
    Mat.hadPow E.rpow (Mat.hadamard A B) P
      = Mat.hadamard (Mat.hadPow E.rpow A P) (Mat.hadPow E.rpow B P) := by
  funext i j
  simp only [Mat.hadPow, ExpLog.rpow, Mat.hadamard]
  rw [log_mul_of_pos E (hA i j) (hB i j), ← E.exp_add]
  congr 1
  grind

/-- Prop 3.7, inverses of the one-parameter group `t ↦ A^{⊙tP}`:
`A^{⊙(−t)P} ⊙ A^{⊙tP} = 𝟙𝟙ᵀ` (with `hadPow_zero`, `hadPow_add`: a group homomorphism from
`(α, +)` to the Hadamard-multiplicative group of positive matrices). Does not cover: anything
beyond the exponent rule. -/
theorem hadPow_neg_hadamard {m n : Nat} (E : ExpLog α) (A P : Mat m n α) (t : α) :
    Mat.hadamard (Mat.hadPow E.rpow A (Mat.smul (-t) P)) (Mat.hadPow E.rpow A (Mat.smul t P))
      = onesMat m n := by
  rw [← hadPow_add_any]
  have : Mat.smul (-t + t) P = Mat.zero m n := by
    funext i j; simp only [Mat.smul, Mat.zero]; grind
  rw [this, hadPow_zero]

end Ring

end PLGA.PowerLaw
