module

public import Formal.Structure.LayerNorm
public import Formal.Structure.RankOne

/-!
# The residual metric learner Φ_res is one shared row map (Prop 3.11)

Φ_res: an initial row LayerNorm `LN_A`, then `N_res` residual units
`A ← LN_u(A + g_{u,2}(g_{u,1}(A)))`, each `g` a SwiGLU block
`A ↦ (silu(A W₁ᵀ + 𝟙b₁ᵀ) ⊙ (A W₂ᵀ + 𝟙b₂ᵀ)) W₃ᵀ + 𝟙b₃ᵀ` written with matrix products, the
LayerNorms over the last axis; the parameters are shared by all heads. This matrix-level
definition acts on every row by ONE map of that row, `Φ(A)_i = φ(A_i)`, for every number of rows,
every input and every row. Contrast: the metric step `A ↦ W A` (spec §G.2) is not row-local.

## Main definitions

* `silu`, `SwiGLUParams`, `UnitParams`, `PhiResParams`: the gate and the parameters;
* `swigluMat`, `swigluRow`: the SwiGLU block on a matrix (torch row convention) and on a row;
* `lnMat`: row LayerNorm of a matrix;
* `unitMat`, `unitRow`: one residual unit on a matrix and on a row;
* `phiResMat`, `phiResRow`: Φ_res on a matrix and its shared row map `φ`;
* `RowLocal`: one row map computes every output row from its input row.

## Main statements

* `swigluMat_apply`, `unitMat_apply`: the blocks act row by row;
* `phiResMat_apply`: `Φ(A)_i = φ(A_i)` with `φ = phiResRow`;
* `phiResMat_rowLocal`: Φ_res is row-local;
* `phiResMat_row_eq`: equal rows in give equal rows out, across heads and inputs;
* `phiResMat_rowClone`: `Φ(𝟙 αᵀ) = 𝟙 φ(α)ᵀ`, rank-one inputs stay rank-one (links to Prop 3.9);
* `leftMul_not_rowLocal`: `A ↦ W A` is not row-local (explicit witness over `Int`).

## Implementation notes

The gate `σ` of `silu(u) = u σ(u)` is an arbitrary function (row-locality needs none of its
properties); LayerNorm uses a hypothesis square root (`SqrtFn`). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. Not covered: any analytic property of
Φ_res (Lipschitz constants, contraction); nearly equal rows.

## References

* Prop 3.11, Prop 3.9 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4 steps 4–5 (Φ_res), §G.2 (the metric step).
-/

@[expose] public section

namespace PLGA.RowMap

open PLGA PLGA.LayerNorm PLGA.RankOne

variable {α : Type u}

/-- `silu(u) = u σ(u)`. -/
def silu [Mul α] (σ : α → α) (u : α) : α := u * σ u

/-- Parameters of one SwiGLU block `ℝ^n → ℝ^h → ℝ^n`. -/
structure SwiGLUParams (α : Type u) (n h : Nat) where
  /-- gate weight -/
  W1 : Mat h n α
  /-- gate bias -/
  b1 : Vec h α
  /-- value weight -/
  W2 : Mat h n α
  /-- value bias -/
  b2 : Vec h α
  /-- output weight -/
  W3 : Mat n h α
  /-- output bias -/
  b3 : Vec n α

/-- Parameters of one residual unit: two SwiGLU blocks and the LayerNorm affine pair. -/
structure UnitParams (α : Type u) (n h : Nat) where
  /-- first block -/
  g1 : SwiGLUParams α n h
  /-- second block -/
  g2 : SwiGLUParams α n h
  /-- LayerNorm scale -/
  γ : Vec n α
  /-- LayerNorm shift -/
  β : Vec n α

/-- Parameters of Φ_res: the initial LayerNorm `LN_A` and the list of units. -/
structure PhiResParams (α : Type u) (n h : Nat) where
  /-- `LN_A` scale -/
  γA : Vec n α
  /-- `LN_A` shift -/
  βA : Vec n α
  /-- the residual units, applied in order -/
  units : List (UnitParams α n h)

section Defs
variable [Lean.Grind.Field α]

/-- The SwiGLU block on a whole matrix, in the row-vector convention of torch:
`(silu(A W₁ᵀ + 𝟙b₁ᵀ) ⊙ (A W₂ᵀ + 𝟙b₂ᵀ)) W₃ᵀ + 𝟙b₃ᵀ`. -/
noncomputable def swigluMat (σ : α → α) {m n h : Nat} (p : SwiGLUParams α n h) (A : Mat m n α) :
    Mat m n α :=
  Mat.add
    (Mat.mul
      (Mat.hadamard
        (fun i j => silu σ (Mat.add (Mat.mul A (Mat.transpose p.W1)) (Mat.rowBroadcast p.b1) i j))
        (Mat.add (Mat.mul A (Mat.transpose p.W2)) (Mat.rowBroadcast p.b2)))
      (Mat.transpose p.W3))
    (Mat.rowBroadcast p.b3)

/-- The SwiGLU block on one row `r`. -/
noncomputable def swigluRow (σ : α → α) {n h : Nat} (p : SwiGLUParams α n h) (r : Vec n α) :
    Vec n α :=
  fun k => fsum h (fun j =>
      silu σ (fsum n (fun l => r l * p.W1 j l) + p.b1 j)
        * (fsum n (fun l => r l * p.W2 j l) + p.b2 j)
        * p.W3 k j) + p.b3 k

/-- Row LayerNorm of a matrix (LayerNorm over the last axis). -/
noncomputable def lnMat [LE α] (S : SqrtFn α) (ε : α) {m n : Nat} (γ β : Vec n α) (A : Mat m n α) :
    Mat m n α :=
  fun i => lnEps S ε γ β (A i)

/-- One residual unit `A ↦ LN(A + g₂(g₁(A)))` on a matrix. -/
noncomputable def unitMat [LE α] (S : SqrtFn α) (ε : α) (σ : α → α) {m n h : Nat}
    (u : UnitParams α n h)
    (A : Mat m n α) : Mat m n α :=
  lnMat S ε u.γ u.β (Mat.add A (swigluMat σ u.g2 (swigluMat σ u.g1 A)))

/-- One residual unit on a row. -/
noncomputable def unitRow [LE α] (S : SqrtFn α) (ε : α) (σ : α → α) {n h : Nat}
    (u : UnitParams α n h)
    (r : Vec n α) : Vec n α :=
  lnEps S ε u.γ u.β (fun k => r k + swigluRow σ u.g2 (swigluRow σ u.g1 r) k)

/-- Φ_res on a matrix: `LN_A`, then the residual units in order. -/
noncomputable def phiResMat [LE α] (S : SqrtFn α) (ε : α) (σ : α → α) {m n h : Nat}
    (P : PhiResParams α n h) (A : Mat m n α) : Mat m n α :=
  P.units.foldl (fun B u => unitMat S ε σ u B) (lnMat S ε P.γA P.βA A)

/-- The shared row map `φ` of Φ_res. -/
noncomputable def phiResRow [LE α] (S : SqrtFn α) (ε : α) (σ : α → α) {n h : Nat}
    (P : PhiResParams α n h) (r : Vec n α) : Vec n α :=
  P.units.foldl (fun x u => unitRow S ε σ u x) (lnEps S ε P.γA P.βA r)

/-- A matrix map is row-local if one row map computes every output row from its input row. -/
def RowLocal {m n n' : Nat} (F : Mat m n α → Mat m n' α) : Prop :=
  ∃ φ : Vec n α → Vec n' α, ∀ A i, F A i = φ (A i)

end Defs

/-- Folding row-local steps stays row-local. -/
theorem foldl_rowwise {β : Type v} {m n : Nat} (f : Mat m n α → β → Mat m n α)
    (g : Vec n α → β → Vec n α) (hfg : ∀ B b i, f B b i = g (B i) b) (us : List β)
    (B : Mat m n α) (i : Fin m) : us.foldl f B i = us.foldl g (B i) := by
  induction us generalizing B with
  | nil => rfl
  | cons u us ih => simp only [List.foldl_cons]; rw [ih, hfg]

section Field
variable [Lean.Grind.Field α]

/-- Spec A.4 step 5: the matrix-level SwiGLU block (`swigluMat`) acts row by row, by `swigluRow`.
Does not cover: anything about the values. -/
theorem swigluMat_apply (σ : α → α) {m n h : Nat} (p : SwiGLUParams α n h) (A : Mat m n α)
    (i : Fin m) : swigluMat σ p A i = swigluRow σ p (A i) := rfl

variable [LE α]

/-- Spec A.4 step 5: one residual unit acts row by row. -/
theorem unitMat_apply (S : SqrtFn α) (ε : α) (σ : α → α) {m n h : Nat} (u : UnitParams α n h)
    (A : Mat m n α) (i : Fin m) : unitMat S ε σ u A i = unitRow S ε σ u (A i) := rfl

/-- Prop 3.11: Φ_res acts on every row by the one shared map `φ = phiResRow`:
`Φ(A)_i = φ(A_i)` for every input `A` (any number of rows), every row `i`.
Does not cover: properties of `φ` itself. -/
theorem phiResMat_apply (S : SqrtFn α) (ε : α) (σ : α → α) {m n h : Nat}
    (P : PhiResParams α n h) (A : Mat m n α) (i : Fin m) :
    phiResMat S ε σ P A i = phiResRow S ε σ P (A i) :=
  foldl_rowwise _ _ (fun B u i => unitMat_apply S ε σ u B i) P.units _ i

/-- Prop 3.11: Φ_res is row-local. -/
theorem phiResMat_rowLocal (S : SqrtFn α) (ε : α) (σ : α → α) {m n h : Nat}
    (P : PhiResParams α n h) : RowLocal (phiResMat (m := m) S ε σ P) :=
  ⟨phiResRow S ε σ P, phiResMat_apply S ε σ P⟩

/-- Prop 3.11: equal rows in give equal rows out — across inputs of any sizes, hence across
heads (Φ_res's parameters are shared by all heads). Does not cover: nearly equal rows. -/
theorem phiResMat_row_eq (S : SqrtFn α) (ε : α) (σ : α → α) {m m' n h : Nat}
    (P : PhiResParams α n h) (A : Mat m n α) (A' : Mat m' n α) (i : Fin m) (i' : Fin m')
    (hrow : A i = A' i') : phiResMat S ε σ P A i = phiResMat S ε σ P A' i' := by
  rw [phiResMat_apply, phiResMat_apply, hrow]

/-- Prop 3.11 with Prop 3.9: Φ_res maps an identical-rows input `𝟙 αᵀ` to the identical-rows
matrix `𝟙 φ(α)ᵀ`. Does not cover: whether `φ(α)` sums to zero (nilpotency). -/
theorem phiResMat_rowClone (S : SqrtFn α) (ε : α) (σ : α → α) {n h : Nat}
    (P : PhiResParams α n h) (a : Vec n α) :
    phiResMat S ε σ P (rowClone a) = rowClone (phiResRow S ε σ P a) := by
  funext i j
  rw [phiResMat_apply]; rfl

end Field

/-- Spec G.2 contrast: left multiplication `A ↦ W A` (the metric step, which mixes rows) is not
row-local: with `W` the row swap, two inputs with equal row `0` give different output rows `0`.
Does not cover: which left multiplications are row-local (the scalar ones). -/
theorem leftMul_not_rowLocal :
    ¬ RowLocal (fun A : Mat 2 2 Int => Mat.mul (fun i j => if i.val = j.val then 0 else 1) A) := by
  rintro ⟨φ, hφ⟩
  let A : Mat 2 2 Int := fun _ _ => 0
  let A' : Mat 2 2 Int := fun i _ => if i.val = 0 then 0 else 1
  have hrow : A 0 = A' 0 := by funext j; simp [A, A']
  have h1 := hφ A 0
  have h2 := hφ A' 0
  rw [hrow, ← h2] at h1
  have := congrFun h1 0
  simp [Mat.mul, fsum_succ, A, A'] at this

end PLGA.RowMap
