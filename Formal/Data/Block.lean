module

public import Formal.Data.Sum

/-!
# Pair-indexed (2×2-block) matrices for RoPE

RoPE acts on a head of dimension `d_k = 2m` by rotating the interleaved coordinate pairs
`(2j, 2j+1)`, `j < m`. All RoPE proofs therefore index a head vector by a *pair index*
`(j, r) : Fin m × Fin 2`, which stands for the flat interleaved coordinate `2j + r` (the
equivalence with `Fin (2m)` and with `PLGA.Mat` is stated once, in `Formal/Rope/Flat.lean`).

## Main definitions

* `M2 α`: 2×2 matrices `Fin 2 → Fin 2 → α`, with `M2.mul`, `M2.transpose`, `M2.one`, `M2.zero`
  and `M2.rot a b = [[a, -b], [b, a]]` (`= a·1 + b·J`, `J = [[0, -1], [1, 0]]`);
* `psum`: the sum over pair indices;
* `BVec m α`, `BMat m α`: pair-indexed vectors and `2m × 2m` matrices (`G j r k s` is the flat
  entry `(2j+r, 2k+s)`), `BMat.block G j k` its 2×2 block `(j, k)`;
* `BMat.mul`, `BMat.transpose`, `BMat.one`, `BMat.bdiag` (block-diagonal matrices),
  `BMat.mulVec`, `BMat.dot`, `BMat.frob` (Frobenius pairing), `BMat.basis` (basis vectors).

## Main statements

* `M2.rot_mul_rot`, `M2.rot_mul_rot_comm`, `M2.transpose_rot`: the matrices `a·1 + b·J` form a
  commutative family closed under products and transposes;
* `psum_comm`, `psum_block`, `psum_single`: exchange of sums, sums supported on one block;
* `BMat.mul_assoc`, `BMat.transpose_mul`, `BMat.bdiag_mul`, `BMat.mul_bdiag`,
  `BMat.bdiag_mul_bdiag`: the product with a block-diagonal matrix computed blockwise;
* `BMat.ext_block`, `BMat.ext_mulVec`, `BMat.ext_dot`, `BMat.dot_mulVec`: extensionality through
  blocks, `mulVec` and `dot`.

## Implementation notes

No paper result is formalized here; this is infrastructure for `Formal/Rope/*` (moved here from
`Formal/Rope/Block.lean`; the bijection structure `Bij` is in `Formal/Data/FinBij.lean`). General
lemmas about `fsum` live in the section "psum". The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` works with one 2×2 block and mathlib's `Matrix`.

## References

* Prop 4.1 of the paper (RoPE);
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (interleaved RoPE convention).
-/

@[expose] public section

namespace PLGA

universe u
variable {α : Type u}

theorem fin2_cases (r : Fin 2) : r = 0 ∨ r = 1 := by
  rcases r with ⟨v, hv⟩
  by_cases h : v = 0
  · left; subst h; rfl
  · right; apply Fin.ext; show v = 1; omega

theorem fin2_one_ne_zero : (1 : Fin 2) ≠ 0 := by decide

/-! ## 2×2 matrices -/

/-- 2×2 matrices. -/
abbrev M2 (α : Type u) := Fin 2 → Fin 2 → α

namespace M2

/-- 2×2 product. -/
def mul [Add α] [Mul α] (A B : M2 α) : M2 α := fun r s => A r 0 * B 0 s + A r 1 * B 1 s

/-- 2×2 transpose. -/
def transpose (A : M2 α) : M2 α := fun r s => A s r

/-- `rot a b = [[a, -b], [b, a]] = a·1 + b·J`; RoPE's `rot φ` is `rot (cos φ) (sin φ)`. -/
def rot [Neg α] (a b : α) : M2 α := fun r s => if r = s then a else if r = 0 then -b else b

/-- The 2×2 identity. -/
def one [OfNat α 0] [OfNat α 1] : M2 α := fun r s => if r = s then 1 else 0

/-- The 2×2 zero matrix. -/
def zero [OfNat α 0] : M2 α := fun _ _ => 0

theorem ext {A B : M2 α} (h00 : A 0 0 = B 0 0) (h01 : A 0 1 = B 0 1) (h10 : A 1 0 = B 1 0)
    (h11 : A 1 1 = B 1 1) : A = B := by
  funext r s
  rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;> assumption

section
variable [Neg α] (a b : α)
@[simp] theorem rot_00 : rot a b 0 0 = a := rfl
@[simp] theorem rot_01 : rot a b 0 1 = -b := rfl
@[simp] theorem rot_10 : rot a b 1 0 = b := rfl
@[simp] theorem rot_11 : rot a b 1 1 = a := rfl
end

@[simp] theorem one_00 [OfNat α 0] [OfNat α 1] : (one : M2 α) 0 0 = 1 := rfl
@[simp] theorem one_01 [OfNat α 0] [OfNat α 1] : (one : M2 α) 0 1 = 0 := rfl
@[simp] theorem one_10 [OfNat α 0] [OfNat α 1] : (one : M2 α) 1 0 = 0 := rfl
@[simp] theorem one_11 [OfNat α 0] [OfNat α 1] : (one : M2 α) 1 1 = 1 := rfl

theorem mul_apply [Add α] [Mul α] (A B : M2 α) (r s : Fin 2) :
    mul A B r s = A r 0 * B 0 s + A r 1 * B 1 s := rfl

variable [Lean.Grind.CommRing α]

theorem mul_assoc (A B C : M2 α) : mul (mul A B) C = mul A (mul B C) := by
  funext r s; simp only [mul]; grind

theorem one_mul (A : M2 α) : mul one A = A := by
  apply ext <;> simp only [mul, one_00, one_01, one_10, one_11] <;> grind

theorem mul_one (A : M2 α) : mul A one = A := by
  apply ext <;> simp only [mul, one_00, one_01, one_10, one_11] <;> grind

theorem rot_one_zero : rot (1 : α) 0 = one := by
  apply ext <;> simp only [rot_00, rot_01, rot_10, rot_11, one_00, one_01, one_10, one_11] <;> grind

theorem rot_zero_zero : rot (0 : α) 0 = zero := by
  apply ext <;> simp only [rot_00, rot_01, rot_10, rot_11, zero] <;> grind

theorem rot_mul_rot (a b c d : α) :
    mul (rot a b) (rot c d) = rot (a * c - b * d) (a * d + b * c) := by
  apply ext <;> simp only [mul, rot_00, rot_01, rot_10, rot_11] <;> grind

/-- Any two matrices `a·1 + b·J` commute. -/
theorem rot_mul_rot_comm (a b c d : α) : mul (rot a b) (rot c d) = mul (rot c d) (rot a b) := by
  rw [rot_mul_rot, rot_mul_rot]; apply ext <;> simp only [rot_00, rot_01, rot_10, rot_11] <;> grind

theorem transpose_rot (a b : α) : transpose (rot a b) = rot a (-b) := by
  apply ext <;> simp only [transpose, rot_00, rot_01, rot_10, rot_11] <;> grind

end M2

/-! ## psum: sums over pair indices -/

/-- Sum over the pair index `(j, r) : Fin m × Fin 2`. -/
noncomputable def psum [Add α] [OfNat α 0] (m : Nat) (f : Fin m → Fin 2 → α) : α :=
  fsum m (fun j => f j 0 + f j 1)

section psum
variable [Lean.Grind.CommRing α] {m n : Nat}

theorem psum_congr {f g : Fin m → Fin 2 → α} (h : ∀ j r, f j r = g j r) : psum m f = psum m g := by
  have : f = g := funext fun j => funext fun r => h j r
  rw [this]

theorem psum_add (f g : Fin m → Fin 2 → α) :
    psum m (fun j r => f j r + g j r) = psum m f + psum m g := by
  unfold psum; rw [← fsum_add]; apply fsum_congr; intro j; grind

theorem psum_mul_left (c : α) (f : Fin m → Fin 2 → α) :
    psum m (fun j r => c * f j r) = c * psum m f := by
  unfold psum; rw [← fsum_mul_left]; apply fsum_congr; intro j; grind

theorem psum_mul_right (c : α) (f : Fin m → Fin 2 → α) :
    psum m (fun j r => f j r * c) = psum m f * c := by
  unfold psum; rw [← fsum_mul_right]; apply fsum_congr; intro j; grind

theorem psum_zero' : psum m (fun _ _ => (0 : α)) = 0 := by
  unfold psum
  rw [fsum_congr m (g := fun _ => (0 : α)) (fun _ => by grind)]
  exact fsum_const_zero m

/-- Exchange of two pair-index sums. -/
theorem psum_comm (f : Fin m → Fin 2 → Fin n → Fin 2 → α) :
    psum m (fun j r => psum n (fun k s => f j r k s)) =
      psum n (fun k s => psum m (fun j r => f j r k s)) := by
  unfold psum
  have h1 : ∀ j, fsum n (fun k => f j 0 k 0 + f j 0 k 1) + fsum n (fun k => f j 1 k 0 + f j 1 k 1)
      = fsum n (fun k => (f j 0 k 0 + f j 0 k 1) + (f j 1 k 0 + f j 1 k 1)) :=
    fun j => (fsum_add n _ _).symm
  have h2 : ∀ k, fsum m (fun j => f j 0 k 0 + f j 1 k 0) + fsum m (fun j => f j 0 k 1 + f j 1 k 1)
      = fsum m (fun j => (f j 0 k 0 + f j 1 k 0) + (f j 0 k 1 + f j 1 k 1)) :=
    fun k => (fsum_add m _ _).symm
  rw [fsum_congr m h1, fsum_congr n h2, fsum_comm]
  apply fsum_congr; intro k; apply fsum_congr; intro j; grind

/-- A pair-index sum whose terms vanish outside the block `l`. -/
theorem psum_block (l : Fin m) (f : Fin m → Fin 2 → α) (h : ∀ j, j ≠ l → f j 0 = 0 ∧ f j 1 = 0) :
    psum m f = f l 0 + f l 1 := by
  unfold psum
  apply fsum_single m l
  intro j hj; rw [(h j hj).1, (h j hj).2]; grind

/-- A pair-index sum with a single (possibly) nonzero term. -/
theorem psum_single (l : Fin m) (t : Fin 2) (f : Fin m → Fin 2 → α)
    (h : ∀ j r, ¬ (j = l ∧ r = t) → f j r = 0) : psum m f = f l t := by
  rw [psum_block l f (fun j hj => ⟨h j 0 (fun e => hj e.1), h j 1 (fun e => hj e.1)⟩)]
  rcases fin2_cases t with rfl | rfl
  · rw [h l 1 (fun e => fin2_one_ne_zero e.2)]; grind
  · rw [h l 0 (fun e => fin2_one_ne_zero e.2.symm)]; grind

end psum

/-! ## Pair-indexed vectors and matrices -/

/-- A head vector, pair-indexed: `v j r` is the flat interleaved coordinate `2j + r`. -/
abbrev BVec (m : Nat) (α : Type u) := Fin m → Fin 2 → α

/-- A `2m × 2m` matrix, pair-indexed: `G j r k s` is the flat entry `(2j + r, 2k + s)`. -/
abbrev BMat (m : Nat) (α : Type u) := Fin m → Fin 2 → Fin m → Fin 2 → α

namespace BMat

variable {m : Nat}

/-- Matrix product. -/
noncomputable def mul [Add α] [Mul α] [OfNat α 0] (A B : BMat m α) : BMat m α :=
  fun j r k s => psum m (fun l t => A j r l t * B l t k s)

/-- Transpose. -/
def transpose (A : BMat m α) : BMat m α := fun j r k s => A k s j r

/-- The 2×2 block `(j, k)`. -/
def block (G : BMat m α) (j k : Fin m) : M2 α := fun r s => G j r k s

/-- The block-diagonal matrix with 2×2 diagonal blocks `D j`. -/
def bdiag [OfNat α 0] (D : Fin m → M2 α) : BMat m α := fun j r k s => if j = k then D j r s else 0

/-- The identity. -/
def one [OfNat α 0] [OfNat α 1] : BMat m α := bdiag (fun _ => M2.one)

/-- The zero matrix. -/
def zero [OfNat α 0] : BMat m α := fun _ _ _ _ => 0

/-- Entrywise sum. -/
def add [Add α] (A B : BMat m α) : BMat m α := fun j r k s => A j r k s + B j r k s

/-- Entrywise difference. -/
def sub [Sub α] (A B : BMat m α) : BMat m α := fun j r k s => A j r k s - B j r k s

/-- Scalar multiple. -/
def smul [Mul α] (c : α) (A : BMat m α) : BMat m α := fun j r k s => c * A j r k s

/-- Matrix–vector product. -/
noncomputable def mulVec [Add α] [Mul α] [OfNat α 0] (A : BMat m α) (v : BVec m α) : BVec m α :=
  fun j r => psum m (fun l t => A j r l t * v l t)

/-- Dot product of pair-indexed vectors. -/
noncomputable def dot [Add α] [Mul α] [OfNat α 0] (u v : BVec m α) : α :=
  psum m (fun j r => u j r * v j r)

/-- Frobenius pairing `⟨A, B⟩_F = ∑ A_{ab} B_{ab}`. -/
noncomputable def frob [Add α] [Mul α] [OfNat α 0] (A B : BMat m α) : α :=
  psum m (fun j r => psum m (fun k s => A j r k s * B j r k s))

/-- The basis vector at pair index `(l, t)`. -/
def basis [OfNat α 0] [OfNat α 1] (l : Fin m) (t : Fin 2) : BVec m α :=
  fun j r => if j = l ∧ r = t then 1 else 0

theorem ext_block {A B : BMat m α} (h : ∀ j k, A.block j k = B.block j k) : A = B := by
  funext j r k s; exact congrFun (congrFun (h j k) r) s

theorem block_bdiag [OfNat α 0] (D : Fin m → M2 α) (j k : Fin m) :
    (bdiag D).block j k = if j = k then D j else M2.zero := by
  funext r s; by_cases h : j = k <;> simp [block, bdiag, h, M2.zero]

@[simp] theorem transpose_transpose (A : BMat m α) : transpose (transpose A) = A := rfl

variable [Lean.Grind.CommRing α]

theorem mul_assoc (A B C : BMat m α) : mul (mul A B) C = mul A (mul B C) := by
  funext j r k s
  simp only [mul]
  have h1 : ∀ l t, psum m (fun p u => A j r p u * B p u l t) * C l t k s
      = psum m (fun p u => A j r p u * B p u l t * C l t k s) :=
    fun l t => (psum_mul_right _ _).symm
  have h2 : ∀ p u, A j r p u * psum m (fun l t => B p u l t * C l t k s)
      = psum m (fun l t => A j r p u * B p u l t * C l t k s) := by
    intro p u; rw [← psum_mul_left]; apply psum_congr; intro l t; grind
  rw [psum_congr h1, psum_congr h2, psum_comm]

theorem transpose_mul (A B : BMat m α) : transpose (mul A B) = mul (transpose B) (transpose A) := by
  funext j r k s; simp only [transpose, mul]; apply psum_congr; intro l t; grind

/-- Left multiplication by a block-diagonal matrix, blockwise. -/
theorem bdiag_mul (D : Fin m → M2 α) (G : BMat m α) (j : Fin m) (r : Fin 2) (k : Fin m)
    (s : Fin 2) :
    mul (bdiag D) G j r k s = M2.mul (D j) (G.block j k) r s := by
  simp only [mul]
  rw [psum_block j]
  · simp [bdiag, M2.mul, block]
  · intro l hl; have : j ≠ l := fun e => hl e.symm
    simp only [bdiag, this, if_false]; constructor <;> grind

/-- Right multiplication by a block-diagonal matrix, blockwise. -/
theorem mul_bdiag (G : BMat m α) (D : Fin m → M2 α) (j : Fin m) (r : Fin 2) (k : Fin m)
    (s : Fin 2) :
    mul G (bdiag D) j r k s = M2.mul (G.block j k) (D k) r s := by
  simp only [mul]
  rw [psum_block k]
  · simp [bdiag, M2.mul, block]
  · intro l hl
    simp only [bdiag, hl, if_false]; constructor <;> grind

theorem bdiag_mul_bdiag (D E : Fin m → M2 α) :
    mul (bdiag D) (bdiag E) = bdiag (fun j => M2.mul (D j) (E j)) := by
  funext j r k s
  rw [bdiag_mul, block_bdiag]
  by_cases h : j = k
  · subst h; simp [bdiag]
  · simp only [h, if_false, bdiag]; simp only [M2.mul, M2.zero]; grind

theorem block_mul_bdiag (G : BMat m α) (D : Fin m → M2 α) (j k : Fin m) :
    (mul G (bdiag D)).block j k = M2.mul (G.block j k) (D k) := by
  funext r s; exact mul_bdiag G D j r k s

theorem block_bdiag_mul (D : Fin m → M2 α) (G : BMat m α) (j k : Fin m) :
    (mul (bdiag D) G).block j k = M2.mul (D j) (G.block j k) := by
  funext r s; exact bdiag_mul D G j r k s

theorem transpose_bdiag (D : Fin m → M2 α) :
    transpose (bdiag D) = bdiag (fun j => M2.transpose (D j)) := by
  funext j r k s
  simp only [transpose, bdiag, M2.transpose]
  by_cases h : j = k
  · subst h; simp
  · have : k ≠ j := fun e => h e.symm
    simp [h, this]

theorem one_mul (G : BMat m α) : mul one G = G := by
  apply ext_block; intro j k; funext r s
  show mul (bdiag _) G j r k s = _
  rw [bdiag_mul, M2.one_mul]

theorem mul_one (G : BMat m α) : mul G one = G := by
  apply ext_block; intro j k; funext r s
  show mul G (bdiag _) j r k s = _
  rw [mul_bdiag, M2.mul_one]

theorem transpose_one : transpose (one : BMat m α) = one := by
  show transpose (bdiag _) = bdiag _
  rw [transpose_bdiag]; congr; funext j; apply M2.ext <;> rfl

theorem mulVec_mulVec (A B : BMat m α) (v : BVec m α) :
    mulVec A (mulVec B v) = mulVec (mul A B) v := by
  funext j r
  simp only [mulVec, mul]
  have h1 : ∀ l t, A j r l t * psum m (fun p u => B l t p u * v p u)
      = psum m (fun p u => A j r l t * B l t p u * v p u) := by
    intro l t; rw [← psum_mul_left]; apply psum_congr; intro p u; grind
  have h2 : ∀ p u, psum m (fun l t => A j r l t * B l t p u) * v p u
      = psum m (fun l t => A j r l t * B l t p u * v p u) := fun p u => (psum_mul_right _ _).symm
  rw [psum_congr h1, psum_congr h2, psum_comm]

theorem mulVec_basis (A : BMat m α) (l : Fin m) (t : Fin 2) :
    mulVec A (basis l t) = fun j r => A j r l t := by
  funext j r
  simp only [mulVec]
  rw [psum_single l t]
  · simp [basis]; grind
  · intro p u h; simp [basis, h]; grind

theorem dot_basis (u : BVec m α) (l : Fin m) (t : Fin 2) : dot u (basis l t) = u l t := by
  simp only [dot]
  rw [psum_single l t]
  · simp [basis]; grind
  · intro p w h; simp [basis, h]; grind

/-- Moving a matrix across the dot product. -/
theorem dot_mulVec (u v : BVec m α) (A : BMat m α) :
    dot u (mulVec A v) = dot (mulVec (transpose A) u) v := by
  simp only [dot, mulVec, transpose]
  have h1 : ∀ j r, u j r * psum m (fun l t => A j r l t * v l t)
      = psum m (fun l t => u j r * A j r l t * v l t) := by
    intro j r; rw [← psum_mul_left]; apply psum_congr; intro l t; grind
  have h2 : ∀ l t, psum m (fun j r => A j r l t * u j r) * v l t
      = psum m (fun j r => u j r * A j r l t * v l t) := by
    intro l t; rw [← psum_mul_right]; apply psum_congr; intro j r; grind
  rw [psum_congr h1, psum_congr h2, psum_comm]

theorem ext_mulVec {A B : BMat m α} (h : ∀ v, mulVec A v = mulVec B v) : A = B := by
  funext j r k s
  have := congrFun (congrFun (h (basis k s)) j) r
  rw [mulVec_basis, mulVec_basis] at this
  exact this

theorem ext_dot {u u' : BVec m α} (h : ∀ v, dot u v = dot u' v) : u = u' := by
  funext l t
  have := h (basis l t)
  rw [dot_basis, dot_basis] at this
  exact this

theorem mulVec_one (v : BVec m α) : mulVec one v = v := by
  funext j r
  simp only [mulVec, one, bdiag]
  rw [psum_single j r]
  · rcases fin2_cases r with rfl | rfl <;> simp <;> grind
  · intro l t h
    by_cases hj : j = l
    · subst hj
      have : r ≠ t := fun e => h ⟨rfl, e.symm⟩
      rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases t with rfl | rfl <;>
        first | exact absurd rfl this | simp <;> grind
    · simp [hj]; grind

end BMat

end PLGA
