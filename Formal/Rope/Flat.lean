module

public import Formal.Rope.Commutant
public import Formal.Data.Matrix

/-!
# The interleaved convention: pair indices `(j, r)` ↔ flat coordinates `2j + r` (Prop 4.1)

The RoPE files index a head of size `d_k = 2m` by pairs `(j, r) : Fin m × Fin 2`. This file
states, once, the equivalence with the flat interleaved index of the spec (pairs `(2j, 2j+1)`,
torchtune's `RotaryPositionalEmbeddings`): `flatIdx j r = 2j + r`, with inverse
`i ↦ (i / 2, i % 2)`, and transports matrices and vectors to the project's `PLGA.Mat (2m) (2m)` /
`PLGA.Vec (2m)`, with products, matrix–vector products and transposes preserved; Prop 4.1 then
holds verbatim for flat matrices.

## Main definitions

* `flatIdx`, `planeOf`, `parityOf`: `2j + r` and its inverse `i ↦ (i / 2, i % 2)`;
* `BMat.toFlat`, `BMat.ofFlat`, `BVec.toFlat`, `BVec.ofFlat`: the transports;
* `flatRope`: the RoPE matrix in flat interleaved coordinates.

## Main statements

* `BMat.toFlat_ofFlat`, `BMat.ofFlat_toFlat`, `BMat.toFlat_transpose`, `BMat.toFlat_mul`,
  `BMat.toFlat_mulVec`: the transports are inverse and preserve the operations;
* `flatRope_mulVec_even`/`_odd`: the flat `R_n` acts exactly as spec §A.4.2,
  `x'_{2j} = c x_{2j} - s x_{2j+1}`, `x'_{2j+1} = s x_{2j} + c x_{2j+1}`;
* `flatRope_mul`, `flatRope_mulVec_zero`: the group law `R_n R_{n'} = R_{n+n'}` and `R_0 = 1`
  in flat coordinates;
* `flat_commutes_iff`: commuting in flat and in pair coordinates agree;
* `flat_commutes_iff_eq_commEmbed`: Prop 4.1's commutant characterization for flat matrices;
* `flat_isRelative_iff_commutes`: Prop 4.1's relative ⇔ commute for flat matrices.

## Implementation notes

This pins the interleaved convention of the authors' code; the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` states its `rot` lemmas for one 2×2 block only. Not
covered: the half-split (non-interleaved) RoPE convention.

## References

* Prop 4.1 of the paper;
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (interleaved RoPE).
-/

@[expose] public section

namespace PLGA

universe u
variable {α : Type u} {m : Nat}

/-- Flat interleaved coordinate `2j + r` of the pair index `(j, r)`. -/
def flatIdx (j : Fin m) (r : Fin 2) : Fin (2 * m) :=
  ⟨2 * j.val + r.val, by have := j.isLt; have := r.isLt; omega⟩

/-- The plane `i / 2` of a flat coordinate. -/
def planeOf (i : Fin (2 * m)) : Fin m := ⟨i.val / 2, by have := i.isLt; omega⟩

/-- The position `i % 2` inside the plane of a flat coordinate. -/
def parityOf (i : Fin (2 * m)) : Fin 2 := ⟨i.val % 2, by omega⟩

@[simp] theorem planeOf_flatIdx (j : Fin m) (r : Fin 2) : planeOf (flatIdx j r) = j := by
  apply Fin.ext; show (2 * j.val + r.val) / 2 = j.val; have := r.isLt; omega

@[simp] theorem parityOf_flatIdx (j : Fin m) (r : Fin 2) : parityOf (flatIdx j r) = r := by
  apply Fin.ext; show (2 * j.val + r.val) % 2 = r.val; have := r.isLt; omega

@[simp] theorem flatIdx_planeOf_parityOf (i : Fin (2 * m)) :
    flatIdx (planeOf i) (parityOf i) = i := by
  apply Fin.ext; show 2 * (i.val / 2) + i.val % 2 = i.val; omega

/-- A pair-indexed matrix as a flat `2m × 2m` matrix. -/
def BMat.toFlat (G : BMat m α) : Mat (2 * m) (2 * m) α :=
  fun i i' => G (planeOf i) (parityOf i) (planeOf i') (parityOf i')

/-- A flat `2m × 2m` matrix as a pair-indexed matrix. -/
def BMat.ofFlat (A : Mat (2 * m) (2 * m) α) : BMat m α :=
  fun j r k s => A (flatIdx j r) (flatIdx k s)

/-- A pair-indexed vector as a flat vector. -/
def BVec.toFlat (v : BVec m α) : Vec (2 * m) α := fun i => v (planeOf i) (parityOf i)

/-- A flat vector as a pair-indexed vector. -/
def BVec.ofFlat (x : Vec (2 * m) α) : BVec m α := fun j r => x (flatIdx j r)

theorem BMat.toFlat_ofFlat (A : Mat (2 * m) (2 * m) α) : (BMat.ofFlat A).toFlat = A := by
  funext i i'; simp only [BMat.toFlat, BMat.ofFlat, flatIdx_planeOf_parityOf]

theorem BMat.ofFlat_toFlat (G : BMat m α) : BMat.ofFlat G.toFlat = G := by
  funext j r k s; simp only [BMat.toFlat, BMat.ofFlat, planeOf_flatIdx, parityOf_flatIdx]

theorem BVec.toFlat_ofFlat (x : Vec (2 * m) α) : (BVec.ofFlat x).toFlat = x := by
  funext i; simp only [BVec.toFlat, BVec.ofFlat, flatIdx_planeOf_parityOf]

theorem BMat.toFlat_injective {G H : BMat m α} (h : G.toFlat = H.toFlat) : G = H := by
  rw [← BMat.ofFlat_toFlat G, h, BMat.ofFlat_toFlat]

theorem BMat.toFlat_transpose (A : BMat m α) : A.transpose.toFlat = Mat.transpose A.toFlat := rfl

variable [Lean.Grind.CommRing α]

/-- A sum over the flat index `Fin (2m)` is the sum over pair indices. -/
theorem fsum_two_mul (m : Nat) (f : Fin (2 * m) → α) :
    fsum (2 * m) f = psum m (fun j r => f (flatIdx j r)) := by
  induction m with
  | zero => rfl
  | succ m ih =>
    show fsum (2 * m + 1 + 1) f = _
    rw [fsum_succ, fsum_succ, ih (fun i => f i.castSucc.castSucc)]
    unfold psum; rw [fsum_succ, Lean.Grind.Semiring.add_assoc]
    rfl

theorem BMat.toFlat_mul (A B : BMat m α) : (A.mul B).toFlat = Mat.mul A.toFlat B.toFlat := by
  funext i i'
  simp only [BMat.toFlat, BMat.mul, Mat.mul]
  rw [fsum_two_mul]; simp only [planeOf_flatIdx, parityOf_flatIdx]

theorem BMat.toFlat_mulVec (A : BMat m α) (v : BVec m α) :
    (A.mulVec v).toFlat = Mat.mulVec A.toFlat v.toFlat := by
  funext i
  simp only [BVec.toFlat, BMat.mulVec, Mat.mulVec, BMat.toFlat]
  rw [fsum_two_mul]; simp only [planeOf_flatIdx, parityOf_flatIdx]

theorem BMat.dot_toFlat (u v : BVec m α) : Mat.dot u.toFlat v.toFlat = BMat.dot u v := by
  simp only [Mat.dot, BVec.toFlat, BMat.dot]
  rw [fsum_two_mul]; simp only [planeOf_flatIdx, parityOf_flatIdx]

theorem BMat.bdiag_mulVec (D : Fin m → M2 α) (v : BVec m α) (j : Fin m) (r : Fin 2) :
    (BMat.bdiag D).mulVec v j r = D j r 0 * v j 0 + D j r 1 * v j 1 := by
  simp only [BMat.mulVec]
  rw [psum_block j]
  · simp only [BMat.bdiag, if_true]
  · intro l hl; have : j ≠ l := fun e => hl e.symm
    simp only [BMat.bdiag, this, if_false]; constructor <;> grind

end PLGA

namespace PLGA.Rope

variable {α : Type u} {m : Nat} [Lean.Grind.CommRing α]
variable (ρ : RotFamily α m)

/-- The RoPE matrix in flat interleaved coordinates. -/
noncomputable def flatRope (n : Int) : Mat (2 * m) (2 * m) α := (ropeMat ρ n).toFlat

theorem flatRope_mulVec (n : Int) (x : Vec (2 * m) α) :
    Mat.mulVec (flatRope ρ n) x = ((ropeMat ρ n).mulVec (BVec.ofFlat x)).toFlat := by
  rw [BMat.toFlat_mulVec, BVec.toFlat_ofFlat]; rfl

/-- Spec A.4.2, even coordinate: `(R_n x)_{2j} = c_j(n) x_{2j} - s_j(n) x_{2j+1}`. -/
theorem flatRope_mulVec_even (n : Int) (x : Vec (2 * m) α) (j : Fin m) :
    Mat.mulVec (flatRope ρ n) x (flatIdx j 0)
      = ρ.c j n * x (flatIdx j 0) - ρ.s j n * x (flatIdx j 1) := by
  rw [flatRope_mulVec]
  simp only [BVec.toFlat, planeOf_flatIdx, parityOf_flatIdx, ropeMat, BMat.bdiag_mulVec,
    BVec.ofFlat, RotFamily.rot, M2.rot_00, M2.rot_01]
  grind

/-- Spec A.4.2, odd coordinate: `(R_n x)_{2j+1} = s_j(n) x_{2j} + c_j(n) x_{2j+1}`. -/
theorem flatRope_mulVec_odd (n : Int) (x : Vec (2 * m) α) (j : Fin m) :
    Mat.mulVec (flatRope ρ n) x (flatIdx j 1)
      = ρ.s j n * x (flatIdx j 0) + ρ.c j n * x (flatIdx j 1) := by
  rw [flatRope_mulVec]
  simp only [BVec.toFlat, planeOf_flatIdx, parityOf_flatIdx, ropeMat, BMat.bdiag_mulVec,
    BVec.ofFlat, RotFamily.rot, M2.rot_10, M2.rot_11]

/-- Group law of the flat rotations: `R_n R_{n'} = R_{n+n'}`. -/
theorem flatRope_mul (n n' : Int) :
    Mat.mul (flatRope ρ n) (flatRope ρ n') = flatRope ρ (n + n') := by
  show Mat.mul (ropeMat ρ n).toFlat (ropeMat ρ n').toFlat = (ropeMat ρ (n + n')).toFlat
  rw [← BMat.toFlat_mul, ropeMat_mul]

/-- `R_0` is the identity on flat vectors. -/
theorem flatRope_mulVec_zero (w : Vec (2 * m) α) :
    Mat.mulVec (flatRope ρ 0) w = w := by
  rw [flatRope_mulVec, ropeMat_zero, BMat.mulVec_one, BVec.toFlat_ofFlat]

/-- Commuting with every flat `R_n` is the same as the pair-indexed `BMat.ofFlat A` commuting with
every `R_n` (Prop 4.1 transported to flat coordinates). Not covered: nothing further. -/
theorem flat_commutes_iff (A : Mat (2 * m) (2 * m) α) :
    (∀ n, Mat.mul A (flatRope ρ n) = Mat.mul (flatRope ρ n) A) ↔ Commutes ρ (BMat.ofFlat A) := by
  have hA := BMat.toFlat_ofFlat A
  constructor
  · intro h n
    apply BMat.toFlat_injective
    rw [BMat.toFlat_mul, BMat.toFlat_mul, hA]; exact h n
  · intro h n
    have e := congrArg BMat.toFlat (h n)
    rw [BMat.toFlat_mul, BMat.toFlat_mul, hA] at e; exact e

/-- **Paper Prop 4.1 (flat form), relative ⇔ commute.** For a flat `2m × 2m` matrix `A`, the score
form `R_nᵀ A R_{n'}` depends only on `n' - n` iff `A R_n = R_n A` for all `n`.
Not covered: nothing beyond `isRelative_iff_commutes`. -/
theorem flat_isRelative_iff_commutes (A : Mat (2 * m) (2 * m) α) :
    (∃ F : Int → Mat (2 * m) (2 * m) α, ∀ n n',
        Mat.mul (Mat.mul (Mat.transpose (flatRope ρ n)) A) (flatRope ρ n') = F (n' - n)) ↔
      (∀ n, Mat.mul A (flatRope ρ n) = Mat.mul (flatRope ρ n) A) := by
  rw [flat_commutes_iff, ← isRelative_iff_commutes]
  have hA := BMat.toFlat_ofFlat A
  have key : ∀ n n', Mat.mul (Mat.mul (Mat.transpose (flatRope ρ n)) A) (flatRope ρ n')
      = (scoreForm ρ (BMat.ofFlat A) n n').toFlat := by
    intro n n'
    simp only [scoreForm, flatRope]
    rw [BMat.toFlat_mul, BMat.toFlat_mul, BMat.toFlat_transpose, hA]
  constructor
  · rintro ⟨F, hF⟩
    refine ⟨fun d => BMat.ofFlat (F d), fun n n' => ?_⟩
    show scoreForm ρ (BMat.ofFlat A) n n' = BMat.ofFlat (F (n' - n))
    rw [← hF n n', key, BMat.ofFlat_toFlat]
  · rintro ⟨F, hF⟩
    exact ⟨fun d => (F d).toFlat, fun n n' => by rw [key, hF]⟩

end PLGA.Rope

namespace PLGA.Rope

universe u'
variable {α : Type u'} [Lean.Grind.Field α] {m : Nat} (ρ : RotFamily α m)

/-- **Paper Prop 4.1 (flat form), commutant.** Under non-resonance and `2 ≠ 0`, a flat
`2m × 2m` matrix commutes with every flat `R_n` iff it is `blockdiag_j (a_j·1 + b_j·J)` on the
interleaved pairs `(2j, 2j+1)`. Not covered: non-resonance of the real frequencies (hypothesis). -/
theorem flat_commutes_iff_eq_commEmbed (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ)
    (A : Mat (2 * m) (2 * m) α) :
    (∀ n, Mat.mul A (flatRope ρ n) = Mat.mul (flatRope ρ n) A) ↔
      ∃ a b : Fin m → α, A = (commEmbed a b).toFlat := by
  rw [flat_commutes_iff, commutes_iff_eq_commEmbed ρ h2 hNR]
  constructor
  · rintro ⟨a, b, h⟩; exact ⟨a, b, by rw [← h, BMat.toFlat_ofFlat]⟩
  · rintro ⟨a, b, h⟩; exact ⟨a, b, by rw [h, BMat.ofFlat_toFlat]⟩

end PLGA.Rope
