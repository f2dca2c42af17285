module

public import Formal.Data.FinBij
public import Formal.Rope.Rotation

/-!
# The non-resonant RoPE commutant (Prop 4.1, all blocks)

Over a field `α` with `2 ≠ 0`, for an abstract rotation family `ρ` (see
`Formal/Rope/Rotation.lean`): under non-resonance, the matrices commuting with every `R_n` are
exactly the block-diagonal matrices with blocks `a_j·1 + b_j·J`, and `α^m × α^m ≃ commutant` by an
explicit linear bijection — the formal content of "the commutant has dimension `2m = d_k`".

## Main definitions

* `NonResonant ρ`: distinct planes are separated by the cosine at some position, and every plane
  has a position with nonzero sine;
* `commEmbed a b = blockdiag_j (a_j·1 + b_j·J)`, `commCoords G`: the parametrization and its
  coordinates;
* `commutantBij`: the explicit bijection `α^m × α^m ≃ {G | ∀ n, G R_n = R_n G}`.

## Main statements

* Theorem 3, `offDiag_block_eq_zero`: if planes `j`, `k` are separated at some position
  (`c j n ≠ c k n`), every 2×2 block `X` with `rot_j(n) X = X rot_k(n)` for all `n` is zero. The
  proof uses the positions `n` and `-n`: adding the two equations gives
  `2 (c_j n - c_k n) X = 0`;
* Theorem 4, `diag_block_commutes_iff`: if `s j n ≠ 0` for some `n`, the blocks commuting with
  every `rot_j(n)` are exactly `a·1 + b·J` (`M2.rot a b`);
* Theorem 5, `commutes_iff_eq_commEmbed`: under `NonResonant` (both separations for all planes),
  `{G | ∀ n, G R_n = R_n G}` is exactly the image of `commEmbed`; `commEmbed_commutes` (⊇, no
  non-resonance needed), `commEmbed_commCoords` (⊆, reconstruction form);
* `commEmbed_injective`, `commEmbed_add`, `commEmbed_smul`: `commutantBij` is linear.

## Implementation notes

The hypothesis `2 ≠ 0` is necessary: over a field of characteristic 2 the family `rot_j = 1`,
`rot_k(n) = 1 + (n mod 2)·[[1,1],[1,1]]` has `c_j 1 ≠ c_k 1` but has the nonzero intertwiner
`[[1,1],[1,1]]`. Non-resonance of the real frequencies `θ_j = Θ^{-2j/d_k}` is a fact about real
cos/sin that core Lean cannot state: it is the hypothesis `NonResonant ρ` here (for the reference
configuration position `n = 1` already witnesses both conditions, since `0 < θ_j ≤ 1 < π` are
distinct; the cross-check harness certifies this numerically). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` has only `commute_rot_iff` (single block) and lists the
multi-block commutant as not formalized. The complement count is in `Formal/Rope/Kernel.lean`.

## References

* Prop 4.1 of the paper (commutant);
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (RoPE frequencies), §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.Field α] {m : Nat} (ρ : RotFamily α m)

/-- Non-resonance of a rotation family: distinct planes are separated by the cosine at some
position, and every plane has a position with nonzero sine. -/
structure NonResonant (ρ : RotFamily α m) : Prop where
  /-- planes `j ≠ k` have `c j n ≠ c k n` at some position `n` -/
  cos_sep : ∀ j k : Fin m, j ≠ k → ∃ n, ρ.c j n ≠ ρ.c k n
  /-- every plane has some position `n` with `s j n ≠ 0` -/
  sin_ne : ∀ j : Fin m, ∃ n, ρ.s j n ≠ 0

/-- **Paper Prop 4.1, off-diagonal blocks (2×2 Sylvester argument).** If `c j n ≠ c k n` at
some position, the only 2×2 `X` with `rot_j(n) X = X rot_k(n)` for every `n` is `0`
(over any field with `2 ≠ 0`). Not covered: characteristic 2, where it fails. -/
theorem offDiag_block_eq_zero (h2 : (2 : α) ≠ 0) (j k : Fin m) (hsep : ∃ n, ρ.c j n ≠ ρ.c k n)
    (X : M2 α) (hX : ∀ n, M2.mul (ρ.rot j n) X = M2.mul X (ρ.rot k n)) : X = M2.zero := by
  obtain ⟨n, hn⟩ := hsep
  have e1 := hX n
  have e2 := hX (-n)
  simp only [RotFamily.rot, ρ.c_neg, ρ.s_neg] at e1 e2
  have key : ∀ r s, 2 * (ρ.c j n - ρ.c k n) * X r s = 0 := by
    intro r s
    have a1 := congrFun (congrFun e1 r) s
    have a2 := congrFun (congrFun e2 r) s
    simp only [M2.mul] at a1 a2
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] at a1 a2 <;> grind
  funext r s
  have := key r s
  show X r s = 0
  grind

/-- **Paper Prop 4.1, diagonal blocks.** If `s j n ≠ 0` at some position, a 2×2 `X` commutes
with every `rot_j(n)` iff `X = a·1 + b·J` for some `a, b`. Not covered: nothing further. -/
theorem diag_block_commutes_iff (j : Fin m) (hs : ∃ n, ρ.s j n ≠ 0) (X : M2 α) :
    (∀ n, M2.mul (ρ.rot j n) X = M2.mul X (ρ.rot j n)) ↔ ∃ a b, X = M2.rot a b := by
  constructor
  · intro hX
    obtain ⟨n, hn⟩ := hs
    have e := hX n
    simp only [RotFamily.rot] at e
    have a00 := congrFun (congrFun e 0) 0
    have a01 := congrFun (congrFun e 0) 1
    simp only [M2.mul, M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] at a00 a01
    have h1 : X 0 1 = -X 1 0 := by grind
    have h2 : X 1 1 = X 0 0 := by grind
    refine ⟨X 0 0, X 1 0, ?_⟩
    apply M2.ext <;> simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · rintro ⟨a, b, rfl⟩ n
    simp only [RotFamily.rot]
    exact M2.rot_mul_rot_comm _ _ _ _

/-- The commutant parametrization: `(a, b) ↦ blockdiag_j (a_j·1 + b_j·J)`. -/
noncomputable def commEmbed (a b : Fin m → α) : BMat m α := BMat.bdiag (fun j => M2.rot (a j) (b j))

/-- The coordinates `(a_j, b_j) = (G_{(j,0),(j,0)}, G_{(j,1),(j,0)})` of a commutant element. -/
def commCoords (G : BMat m α) : (Fin m → α) × (Fin m → α) :=
  (fun j => G j 0 j 0, fun j => G j 1 j 0)

/-- Paper Prop 4.1 (⊇): every `blockdiag_j (a_j·1 + b_j·J)` commutes with all `R_n` (no
non-resonance needed). Not covered: the converse (`commutes_iff_eq_commEmbed`). -/
theorem commEmbed_commutes (a b : Fin m → α) : Commutes ρ (commEmbed a b) := by
  intro n
  simp only [commEmbed, ropeMat]
  rw [BMat.bdiag_mul_bdiag, BMat.bdiag_mul_bdiag]
  congr; funext j; exact M2.rot_mul_rot_comm _ _ _ _

/-- A commuting `G` intertwines the plane rotations blockwise:
`rot_j(n) G_{jk} = G_{jk} rot_k(n)`. -/
theorem block_intertwines {G : BMat m α} (hG : Commutes ρ G) (j k : Fin m) (n : Int) :
    M2.mul (ρ.rot j n) (G.block j k) = M2.mul (G.block j k) (ρ.rot k n) := by
  have e := congrArg (fun H => BMat.block H j k) (hG n)
  simp only [ropeMat] at e
  rw [BMat.block_mul_bdiag, BMat.block_bdiag_mul] at e
  exact e.symm

/-- **Paper Prop 4.1, commutant (⊆), reconstruction form.** Under non-resonance and `2 ≠ 0`, a
`G` commuting with every `R_n` equals `commEmbed` of its own coordinates.
Not covered: nothing further. -/
theorem commEmbed_commCoords (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) {G : BMat m α}
    (hG : Commutes ρ G) : commEmbed (commCoords G).1 (commCoords G).2 = G := by
  apply BMat.ext_block; intro j k
  simp only [commEmbed]; rw [BMat.block_bdiag]
  by_cases hjk : j = k
  · subst hjk
    simp only [if_true]
    obtain ⟨a, b, hab⟩ := (diag_block_commutes_iff ρ j (hNR.sin_ne j) (G.block j j)).1
      (block_intertwines ρ hG j j)
    have e00 := congrFun (congrFun hab 0) 0
    have e10 := congrFun (congrFun hab 1) 0
    simp only [M2.rot_00, M2.rot_10, BMat.block] at e00 e10
    rw [hab]; simp only [commCoords, e00, e10]
  · simp only [hjk, if_false]
    exact (offDiag_block_eq_zero ρ h2 j k (hNR.cos_sep j k hjk) (G.block j k)
      (block_intertwines ρ hG j k)).symm

/-- **Paper Prop 4.1, commutant characterization.** Under non-resonance and `2 ≠ 0`:
`G R_n = R_n G` for all `n` iff `G = blockdiag_j (a_j·1 + b_j·J)` for some `a, b : α^m`.
Not covered: the non-resonance of the real frequencies itself (a hypothesis here). -/
theorem commutes_iff_eq_commEmbed (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) (G : BMat m α) :
    Commutes ρ G ↔ ∃ a b, G = commEmbed a b := by
  constructor
  · intro hG; exact ⟨_, _, (commEmbed_commCoords ρ h2 hNR hG).symm⟩
  · rintro ⟨a, b, rfl⟩; exact commEmbed_commutes ρ a b

/-- The coordinates of `commEmbed a b` are `(a, b)` (left inverse; injectivity). -/
theorem commCoords_commEmbed (a b : Fin m → α) : commCoords (commEmbed a b) = (a, b) := by
  simp only [commCoords, commEmbed, BMat.bdiag, if_true, M2.rot_00, M2.rot_10]

/-- `commEmbed` is injective. -/
theorem commEmbed_injective {a b a' b' : Fin m → α} (h : commEmbed a b = commEmbed a' b') :
    a = a' ∧ b = b' := by
  have := congrArg commCoords h
  rw [commCoords_commEmbed, commCoords_commEmbed] at this
  exact ⟨congrArg Prod.fst this, congrArg Prod.snd this⟩

/-- `commEmbed` is additive. -/
theorem commEmbed_add (a b a' b' : Fin m → α) :
    commEmbed (fun j => a j + a' j) (fun j => b j + b' j)
      = BMat.add (commEmbed a b) (commEmbed a' b') := by
  funext j r k s
  simp only [commEmbed, BMat.bdiag, BMat.add]
  by_cases h : j = k
  · simp only [h, if_true]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · simp only [h, if_false]; grind

/-- `commEmbed` is homogeneous. -/
theorem commEmbed_smul (c : α) (a b : Fin m → α) :
    commEmbed (fun j => c * a j) (fun j => c * b j) = BMat.smul c (commEmbed a b) := by
  funext j r k s
  simp only [commEmbed, BMat.bdiag, BMat.smul]
  by_cases h : j = k
  · simp only [h, if_true]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · simp only [h, if_false]; grind

theorem commEmbed_zero : commEmbed (fun _ => (0 : α)) (fun _ => 0) = (BMat.zero : BMat m α) := by
  funext j r k s
  simp only [commEmbed, BMat.bdiag, BMat.zero, M2.rot_zero_zero, M2.zero]
  split <;> rfl

/-- **Paper Prop 4.1, "the commutant has real dimension `d_k`".** Under non-resonance and
`2 ≠ 0`, the explicit bijection `α^m × α^m ≃ {G | ∀ n, G R_n = R_n G}`,
`(a, b) ↦ blockdiag_j (a_j·1 + b_j·J)`, inverse `G ↦ (G_{(j,0),(j,0)}, G_{(j,1),(j,0)})_j`;
linear by `commEmbed_add`, `commEmbed_smul`. Its parameter space has `m + m = 2m = d_k`
scalar coordinates. Not covered: a notion of dimension beyond this explicit parametrization. -/
noncomputable def commutantBij (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    Bij ((Fin m → α) × (Fin m → α)) {G : BMat m α // Commutes ρ G} where
  toFun p := ⟨commEmbed p.1 p.2, commEmbed_commutes ρ p.1 p.2⟩
  invFun G := commCoords G.1
  left_inv p := commCoords_commEmbed p.1 p.2
  right_inv G := Subtype.ext (commEmbed_commCoords ρ h2 hNR G.2)

end PLGA.Rope
