module

public import Formal.Data.Matrix
public import Formal.Data.Order

/-!
# The density operator `D = Q̂ᵀ Q̂` (Prop 3.6)

PLGA builds, per head, `D = Q̂ᵀ Q̂ = ∑_p q̂_p q̂_pᵀ ∈ ℝ^{d_k×d_k}` from the rotated queries. Over an
ordered commutative ring (so for `ℝ`) `D` is symmetric and positive semidefinite, and has the
same kernel as `Q` (the identity behind `rank D = rank Q`).

## Main definitions

* `density Q`: the density operator `D = Qᵀ Q` of an `S × d` query matrix.

## Main statements

* `density_apply`: `D i j = ∑_p Q p i · Q p j` (the sum of outer products);
* `density_symm`: `Dᵀ = D`;
* `dot_density_mulVec`: `xᵀ D x = ‖Q x‖²`, hence `density_quadratic_nonneg` (`D ⪰ 0`);
* `density_mulVec_eq_zero_iff`: `D x = 0 ⇔ Q x = 0` (equal kernels, the identity behind
  `rank D = rank Q`); `density_mulVec_eq_iff`: `D x = D y ⇔ Q x = Q y`;
* `density_diag_nonneg`, `trace_density_nonneg`: `tr D = ‖Q‖_F² ≥ 0`.

## Implementation notes

Counterparts in the authors' repository `burcgokden/PLDR-LLM-Math-Foundations`:
`density_isSymm`, `density_posSemidef`, `density_quadratic_nonneg`, `density_rank`; the kernel
identity `D x = 0 ⇔ Q x = 0` is the step to `rank D = rank Q`, which `Formal.Structure.Rank`
proves for the column rank of `Formal.Data.Linear` (`colRank_density`, with
`rank D ≤ min(S, d_k)`). Not covered here: strict positivity (which fails when `rank Q < d_k`).

## References

* Prop 3.6 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 step 3 (the density operator).
-/

@[expose] public section

namespace PLGA.Density

open PLGA

variable {α : Type u}

/-- The density operator `D = Qᵀ Q` of an `S × d` query matrix. -/
noncomputable def density [Add α] [Mul α] [OfNat α 0] {S d : Nat} (Q : Mat S d α) : Mat d d α :=
  Mat.mul (Mat.transpose Q) Q

section CommRing
variable [Lean.Grind.CommRing α]

/-- Prop 3.6: `D = ∑_p q_p q_pᵀ`, entrywise. -/
theorem density_apply {S d : Nat} (Q : Mat S d α) (i j : Fin d) :
    density Q i j = fsum S (fun p => Q p i * Q p j) := rfl

/-- Prop 3.6 (authors' `density_isSymm`): `D = Qᵀ Q` is symmetric.
Does not cover: anything beyond symmetry. -/
theorem density_symm {S d : Nat} (Q : Mat S d α) : Mat.transpose (density Q) = density Q := by
  unfold density
  rw [Mat.transpose_mul, Mat.transpose_transpose]

/-- `xᵀ (Aᵀ y) = (A x)ᵀ y`. -/
theorem dot_transpose_mulVec {m n : Nat} (A : Mat m n α) (x : Vec n α) (y : Vec m α) :
    Mat.dot x (Mat.mulVec (Mat.transpose A) y) = Mat.dot (Mat.mulVec A x) y := by
  simp only [Mat.dot, Mat.mulVec, Mat.transpose]
  have h1 : (fun i => x i * fsum m (fun p => A p i * y p))
      = (fun i => fsum m (fun p => A p i * x i * y p)) := by
    funext i; rw [← fsum_mul_left]; apply fsum_congr; intro p; grind
  have h2 : (fun p => fsum n (fun i => A p i * x i) * y p)
      = (fun p => fsum n (fun i => A p i * x i * y p)) := by
    funext p; rw [← fsum_mul_right]
  rw [h1, h2, fsum_comm]

/-- Prop 3.6: the quadratic form of `D` is the squared norm of `Q x`: `xᵀ D x = (Qx)ᵀ(Qx)`. -/
theorem dot_density_mulVec {S d : Nat} (Q : Mat S d α) (x : Vec d α) :
    Mat.dot x (Mat.mulVec (density Q) x) = Mat.dot (Mat.mulVec Q x) (Mat.mulVec Q x) := by
  unfold density
  rw [← Mat.mulVec_mulVec, dot_transpose_mulVec]

/-- Linearity: `A (x − y) = A x − A y`. -/
theorem mulVec_sub {m n : Nat} (A : Mat m n α) (x y : Vec n α) :
    Mat.mulVec A (fun j => x j - y j) = fun i => Mat.mulVec A x i - Mat.mulVec A y i := by
  funext i; simp only [Mat.mulVec]; rw [← fsum_sub]; apply fsum_congr; intro j; grind

end CommRing

section Ordered
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α]
  [Std.IsLinearOrder α] [Lean.Grind.OrderedRing α]

/-- `a · a = 0 ⇒ a = 0` in an ordered ring. -/
theorem eq_zero_of_mul_self_eq_zero {a : α} (h : a * a = 0) : a = 0 := by
  refine Classical.byContradiction fun hne => ?_
  have : 0 < a * a := by
    rcases (show a < 0 ∨ a = 0 ∨ 0 < a by grind) with h' | h' | h'
    · exact Lean.Grind.OrderedRing.mul_pos_of_neg_of_neg h' h'
    · exact absurd h' hne
    · exact Lean.Grind.OrderedRing.mul_pos h' h'
  grind

/-- `vᵀ v ≥ 0`. -/
theorem dot_self_nonneg {n : Nat} (v : Vec n α) : 0 ≤ Mat.dot v v :=
  fsum_nonneg n _ (fun i => mul_self_nonneg (v i))

/-- `vᵀ v = 0 ⇒ v = 0` over an ordered ring. -/
theorem eq_zero_of_dot_self_eq_zero {n : Nat} (v : Vec n α) (h : Mat.dot v v = 0) :
    v = fun _ => 0 := by
  funext i
  apply eq_zero_of_mul_self_eq_zero
  have h1 := le_fsum_of_nonneg n (fun i => v i * v i) (fun i => mul_self_nonneg (v i)) i
  have h2 := mul_self_nonneg (v i)
  unfold Mat.dot at h
  grind

/-- Prop 3.6 (authors' `density_quadratic_nonneg` / `density_posSemidef`): `xᵀ D x ≥ 0`.
Does not cover: strict positivity (which fails when `rank Q < d_k`). -/
theorem density_quadratic_nonneg {S d : Nat} (Q : Mat S d α) (x : Vec d α) :
    0 ≤ Mat.dot x (Mat.mulVec (density Q) x) := by
  rw [dot_density_mulVec]; exact dot_self_nonneg _

/-- Prop 3.6 (kernel form of `rank D = rank Q`): `D x = 0 ⇔ Q x = 0`.
Does not cover: the rank/dimension count itself. -/
theorem density_mulVec_eq_zero_iff {S d : Nat} (Q : Mat S d α) (x : Vec d α) :
    Mat.mulVec (density Q) x = (fun _ => 0) ↔ Mat.mulVec Q x = (fun _ => 0) := by
  constructor
  · intro h
    apply eq_zero_of_dot_self_eq_zero
    rw [← dot_density_mulVec, h]
    simp only [Mat.dot]
    rw [fsum_congr d (g := fun _ => (0 : α)) (fun i => by grind), fsum_const_zero]
  · intro h
    unfold density
    rw [← Mat.mulVec_mulVec, h]
    funext i; simp only [Mat.mulVec]
    rw [fsum_congr S (g := fun _ => (0 : α)) (fun i => by grind), fsum_const_zero]

/-- Prop 3.6: `D` and `Q` identify the same vectors: `D x = D y ⇔ Q x = Q y`.
Does not cover: anything beyond linearity plus the kernel identity. -/
theorem density_mulVec_eq_iff {S d : Nat} (Q : Mat S d α) (x y : Vec d α) :
    Mat.mulVec (density Q) x = Mat.mulVec (density Q) y ↔ Mat.mulVec Q x = Mat.mulVec Q y := by
  have key := density_mulVec_eq_zero_iff Q (fun j => x j - y j)
  rw [mulVec_sub, mulVec_sub] at key
  constructor
  · intro h
    have h0 : (fun i => Mat.mulVec (density Q) x i - Mat.mulVec (density Q) y i) = fun _ => 0 := by
      funext i; rw [h]; grind
    have := congrFun (key.mp h0)
    funext i; have := this i; simp only at this; grind
  · intro h
    have h0 : (fun i => Mat.mulVec Q x i - Mat.mulVec Q y i) = fun _ => 0 := by
      funext i; rw [h]; grind
    have := congrFun (key.mpr h0)
    funext i; have := this i; simp only at this; grind

/-- The diagonal of `D` is nonnegative: `D i i = ∑_p (Q p i)² ≥ 0`. -/
theorem density_diag_nonneg {S d : Nat} (Q : Mat S d α) (i : Fin d) : 0 ≤ density Q i i :=
  fsum_nonneg S _ (fun p => mul_self_nonneg (Q p i))

/-- `tr D = ‖Q‖_F² ≥ 0`. Does not cover: the value of the trace. -/
theorem trace_density_nonneg {S d : Nat} (Q : Mat S d α) : 0 ≤ Mat.trace (density Q) :=
  fsum_nonneg d _ (fun i => density_diag_nonneg Q i)

end Ordered

end PLGA.Density
