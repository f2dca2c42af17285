module

public import Formal.Rope.Kernel
public import Formal.Rope.Flat
public import Formal.Data.Linear

/-!
# Dimensions, not bijections: the RoPE commutant and its complement (Prop 4.1)

Prop 4.1 says that, per head, the operators whose scores depend only on relative position form a
space of dimension `d_k` (the commutant of the RoPE matrices), and that the remaining
`d_k² - d_k` directions (`4032` at `d_k = 64`) are absolute-position sensitive. A bare set
bijection with `α^N` says nothing about dimension over `ℝ`; this file upgrades the explicit
parametrizations of `Formal/Rope/Kernel.lean` to linear isomorphisms and, with the dimension
invariance `LinIso.dim_eq` of `Formal/Data/Linear.lean` (Steinitz), makes `d_k` and `d_k² - d_k`
the only possible dimensions. It also states the direct-sum decomposition
`Mat = commutant ⊕ ker Π` and the resulting linear coordinates of all `2m × 2m` matrices.

## Main definitions

* `kernelLinIso`, `kernelLinIsoFin`: `α^{(2m)² - 2m} ≅ ker Π` (linear; `2 ≠ 0`);
* `commutantLinIso`, `commutantLinIsoFin`: `α^{2m} ≅ {G | ∀ n, G R_n = R_n G}` (linear;
  non-resonance, `2 ≠ 0`);
* `splitLinIso`: `BMat m α ≅ commutant × ker Π`, `G ↦ (Π G, G - Π G)`;
* `flatLinIso`: flat `2m × 2m` matrices `≅` pair-indexed ones;
* `matCoordsLinIso`: `Mat (2m) (2m) α ≅ α^{2m} × α^{(2m)² - 2m}`.

## Main statements

* `isLinear_kerEmbed`, `isLinear_kerCoords`, `isLinear_commEmbed`, `isLinear_commCoords`,
  `isLinear_proj`: the parametrizations, their coordinate maps and `Π` are linear;
* `kernel_dim_eq`, `commutant_dim_eq`: any linear isomorphism `α^n ≅ ker Π` has
  `n = d_k² - d_k`, any `α^n ≅ commutant` has `n = d_k` (dimension as an invariant);
* `kernel_dim_eq_reference`: at `d_k = 64`, any `α^n ≅ ker Π` has `n = 4032`;
* `commutant_kernel_directSum`: every `G` is uniquely `C + K` with `C` in the commutant and
  `Π K = 0` (namely `C = Π G`, `K = G - Π G`);
* `kernelLinIsoFin_toBij`, `commutantLinIsoFin_toBij`: the isomorphisms are the bijections
  `kernelBijFin`, `commutantBijFin` of `Formal/Rope/Kernel.lean`.

## Implementation notes

The vocabulary (`LinSpace`, `IsLinear`, `LinIso`, `IsSubspace`) is in `Formal/Data/Linear.lean`;
`ker Π` and the commutant carry the subspace operations through `IsSubspace` instances given
here. The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart (it
lists the multi-block commutant as not formalized). Not covered: non-resonance of the real RoPE
frequencies (a hypothesis, see `Formal/Rope/Commutant.lean`).

## References

* Prop 4.1 of the paper (the dimensions `d_k`, `d_k² - d_k`);
* `../shared/spec/PLGA_SPEC.md` §A.0 (`d_k = 64`), §A.4.2 (RoPE), §D (audit D2).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.Field α] {m : Nat}

/-! ## Linearity -/

/-- `Π` is additive. -/
theorem proj_add (G H : BMat m α) : proj (BMat.add G H) = BMat.add (proj G) (proj H) := by
  funext j r k s
  simp only [proj, commEmbed, BMat.bdiag, BMat.add]
  by_cases h : j = k
  · subst h; simp only [if_true]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · simp only [h, if_false]; grind

/-- `Π` is homogeneous. -/
theorem proj_smul (c : α) (G : BMat m α) : proj (BMat.smul c G) = BMat.smul c (proj G) := by
  funext j r k s
  simp only [proj, commEmbed, BMat.bdiag, BMat.smul]
  by_cases h : j = k
  · subst h; simp only [if_true]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · simp only [h, if_false]; grind

/-- **Audit D2 / Prop 4.1: the commutant projection `Π` is linear.** -/
theorem isLinear_proj : IsLinear α (proj : BMat m α → BMat m α) :=
  ⟨proj_add, proj_smul⟩

/-- `kerEmbed` is additive. -/
theorem kerEmbed_add (p q : KerIdx m → α) :
    kerEmbed (fun i => p i + q i) = BMat.add (kerEmbed p) (kerEmbed q) := by
  funext j r k s
  by_cases h : j = k
  · subst h
    simp only [BMat.add, kerEmbed_diag, kblock]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [if_true, fin2_one_ne_zero, fin2_one_ne_zero.symm, if_false] <;> grind
  · simp only [kerEmbed, BMat.add, h, dite_false]

/-- `kerEmbed` is homogeneous. -/
theorem kerEmbed_smul (c : α) (p : KerIdx m → α) :
    kerEmbed (fun i => c * p i) = BMat.smul c (kerEmbed p) := by
  funext j r k s
  by_cases h : j = k
  · subst h
    simp only [BMat.smul, kerEmbed_diag, kblock]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [if_true, fin2_one_ne_zero, fin2_one_ne_zero.symm, if_false] <;> grind
  · simp only [kerEmbed, BMat.smul, h, dite_false]

/-- **Prop 4.1: the kernel parametrization `kerEmbed` is linear.** -/
theorem isLinear_kerEmbed : IsLinear α (kerEmbed : (KerIdx m → α) → BMat m α) :=
  ⟨kerEmbed_add, kerEmbed_smul⟩

/-- The kernel coordinates `kerCoords` are linear (they read entries). -/
theorem isLinear_kerCoords : IsLinear α (kerCoords : BMat m α → KerIdx m → α) :=
  ⟨fun G H => by funext i; rcases i with ⟨⟨j, t⟩, ⟨r, s⟩⟩ | ⟨j, r⟩ <;> rfl,
    fun c G => by funext i; rcases i with ⟨⟨j, t⟩, ⟨r, s⟩⟩ | ⟨j, r⟩ <;> rfl⟩

/-- **Prop 4.1: the commutant parametrization `(a, b) ↦ commEmbed a b` is linear.** -/
theorem isLinear_commEmbed :
    IsLinear α (fun p : (Fin m → α) × (Fin m → α) => commEmbed p.1 p.2) :=
  ⟨fun p q => commEmbed_add p.1 p.2 q.1 q.2, fun c p => commEmbed_smul c p.1 p.2⟩

/-- The commutant coordinates `commCoords` are linear (they read entries). -/
theorem isLinear_commCoords : IsLinear α (commCoords : BMat m α → (Fin m → α) × (Fin m → α)) :=
  ⟨fun _ _ => rfl, fun _ _ => rfl⟩

/-! ## The two subspaces -/

/-- `ker Π` is closed under the operations. -/
instance kernel_isSubspace : IsSubspace α (fun G : BMat m α => proj G = BMat.zero) where
  add_mem G H hG hH := by
    show proj (BMat.add G H) = BMat.zero
    rw [proj_add, hG, hH]; funext j r k s; simp only [BMat.add, BMat.zero]; grind
  smul_mem c G hG := by
    show proj (BMat.smul c G) = BMat.zero
    rw [proj_smul, hG]; funext j r k s; simp only [BMat.smul, BMat.zero]; grind

/-- `(A + B) C = A C + B C`. -/
theorem bmat_add_mul (A B C : BMat m α) : (BMat.add A B).mul C = BMat.add (A.mul C) (B.mul C) := by
  funext j r k s; simp only [BMat.mul, BMat.add]; rw [← psum_add]
  apply psum_congr; intro l t; grind

/-- `A (B + C) = A B + A C`. -/
theorem bmat_mul_add (A B C : BMat m α) : A.mul (BMat.add B C) = BMat.add (A.mul B) (A.mul C) := by
  funext j r k s; simp only [BMat.mul, BMat.add]; rw [← psum_add]
  apply psum_congr; intro l t; grind

/-- `(c A) B = c (A B)`. -/
theorem bmat_smul_mul (c : α) (A B : BMat m α) : (BMat.smul c A).mul B = BMat.smul c (A.mul B) := by
  funext j r k s; simp only [BMat.mul, BMat.smul]; rw [← psum_mul_left]
  apply psum_congr; intro l t; grind

/-- `A (c B) = c (A B)`. -/
theorem bmat_mul_smul (c : α) (A B : BMat m α) : A.mul (BMat.smul c B) = BMat.smul c (A.mul B) := by
  funext j r k s; simp only [BMat.mul, BMat.smul]; rw [← psum_mul_left]
  apply psum_congr; intro l t; grind

variable (ρ : RotFamily α m)

/-- The RoPE commutant is closed under the operations. -/
instance commutant_isSubspace : IsSubspace α (fun G : BMat m α => Commutes ρ G) where
  add_mem G H hG hH n := by
    show (BMat.add G H).mul _ = (ropeMat ρ n).mul (BMat.add G H)
    rw [bmat_add_mul, bmat_mul_add, hG n, hH n]
  smul_mem c G hG n := by
    show (BMat.smul c G).mul _ = (ropeMat ρ n).mul (BMat.smul c G)
    rw [bmat_smul_mul, bmat_mul_smul, hG n]

/-! ## Linear isomorphisms and dimensions -/

/-- **Paper Prop 4.1, kernel of `Π`, linear form.** The explicit bijection `kernelBij` is a linear
isomorphism `(KerIdx m → α) ≅ ker Π` (`2 ≠ 0`). -/
noncomputable def kernelLinIso (h2 : (2 : α) ≠ 0) :
    LinIso α (KerIdx m → α) {G : BMat m α // proj G = BMat.zero} :=
  { kernelBij h2 with
    isLinear_toFun := ⟨fun p q => Subtype.ext (kerEmbed_add p q),
      fun c p => Subtype.ext (kerEmbed_smul c p)⟩ }

/-- **Paper Prop 4.1: `α^{d_k² - d_k} ≅ ker Π` linearly** (`d_k = 2m`, `2 ≠ 0`). -/
noncomputable def kernelLinIsoFin (h2 : (2 : α) ≠ 0) :
    LinIso α (Fin ((2 * m) ^ 2 - 2 * m) → α) {G : BMat m α // proj G = BMat.zero} :=
  (LinIso.arrow (kerIdxBij m) α α).symm.trans (kernelLinIso h2)

/-- The linear isomorphism `kernelLinIsoFin` is the bijection `kernelBijFin`. -/
theorem kernelLinIsoFin_toBij (h2 : (2 : α) ≠ 0) :
    (kernelLinIsoFin (m := m) h2).toBij = kernelBijFin h2 := rfl

/-- **Paper Prop 4.1, "`d_k² - d_k` absolute-position-sensitive directions" as a dimension.** Any
linear isomorphism `α^n ≅ ker Π` has `n = (2m)² - 2m` (`2 ≠ 0`, over a field). -/
theorem kernel_dim_eq (h2 : (2 : α) ≠ 0) {n : Nat}
    (e : LinIso α (Fin n → α) {G : BMat m α // proj G = BMat.zero}) : n = (2 * m) ^ 2 - 2 * m :=
  LinIso.dim_eq (e.trans (kernelLinIsoFin h2).symm)

/-- **Paper Prop 4.1 at `d_k = 64`:** `ker Π` has dimension exactly `4032`: any linear
isomorphism `α^n ≅ ker Π` for `m = 32` planes has `n = 4032`. -/
theorem kernel_dim_eq_reference (h2 : (2 : α) ≠ 0) {n : Nat}
    (e : LinIso α (Fin n → α) {G : BMat 32 α // proj G = BMat.zero}) : n = 4032 :=
  (kernel_dim_eq h2 e).trans kernel_dim_reference

/-- `pairSplit` is linear. -/
noncomputable def pairSplitLin : LinIso α (Fin m × Fin 2 → α) ((Fin m → α) × (Fin m → α)) :=
  { pairSplit with isLinear_toFun := ⟨fun _ _ => rfl, fun _ _ => rfl⟩ }

/-- **Paper Prop 4.1, commutant, linear form.** The explicit bijection `commutantBij` is a linear
isomorphism `α^m × α^m ≅ {G | ∀ n, G R_n = R_n G}` (non-resonance, `2 ≠ 0`). -/
noncomputable def commutantLinIso (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    LinIso α ((Fin m → α) × (Fin m → α)) {G : BMat m α // Commutes ρ G} :=
  { commutantBij ρ h2 hNR with
    isLinear_toFun := ⟨fun p q => Subtype.ext (commEmbed_add p.1 p.2 q.1 q.2),
      fun c p => Subtype.ext (commEmbed_smul c p.1 p.2)⟩ }

/-- **Paper Prop 4.1: `α^{d_k} ≅ commutant` linearly** (`d_k = 2m`, non-resonance, `2 ≠ 0`). -/
noncomputable def commutantLinIsoFin (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    LinIso α (Fin (2 * m) → α) {G : BMat m α // Commutes ρ G} :=
  (LinIso.arrow ((Bij.finProd m 2).trans (Bij.finCast (Nat.mul_comm m 2))) α α).symm.trans
    (pairSplitLin.trans (commutantLinIso ρ h2 hNR))

/-- The linear isomorphism `commutantLinIsoFin` is the bijection `commutantBijFin`. -/
theorem commutantLinIsoFin_toBij (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    (commutantLinIsoFin ρ h2 hNR).toBij = commutantBijFin ρ h2 hNR := rfl

/-- **Paper Prop 4.1, "the commutant has dimension `d_k`" as a dimension.** Under non-resonance
and `2 ≠ 0`, any linear isomorphism `α^n ≅ {G | ∀ n, G R_n = R_n G}` has `n = 2m = d_k`. -/
theorem commutant_dim_eq (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) {n : Nat}
    (e : LinIso α (Fin n → α) {G : BMat m α // Commutes ρ G}) : n = 2 * m :=
  LinIso.dim_eq (e.trans (commutantLinIsoFin ρ h2 hNR).symm)

/-! ## The direct sum `Mat = commutant ⊕ ker Π` -/

/-- **Paper Prop 4.1 / audit D2: `Mat = commutant ⊕ ker Π`.** Under non-resonance and `2 ≠ 0`,
every `G` is `C + K` with `C` commuting with all `R_n` and `Π K = 0`, and the pair is unique:
it is `(Π G, G - Π G)`. -/
theorem commutant_kernel_directSum (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) (G : BMat m α) :
    (Commutes ρ (proj G) ∧ proj (BMat.sub G (proj G)) = BMat.zero ∧
      BMat.add (proj G) (BMat.sub G (proj G)) = G) ∧
    ∀ C K : BMat m α, Commutes ρ C → proj K = BMat.zero → BMat.add C K = G →
      C = proj G ∧ K = BMat.sub G (proj G) := by
  refine ⟨⟨proj_commutes ρ G, proj_sub_proj h2 G, proj_add_sub G⟩, ?_⟩
  intro C K hC hK hG
  have hPC : proj C = C := (proj_eq_self_iff ρ h2 hNR C).2 hC
  have hCG : C = proj G := by
    rw [← hG, proj_add, hPC, hK]; funext j r k s; simp only [BMat.add, BMat.zero]; grind
  refine ⟨hCG, ?_⟩
  rw [← hCG, ← hG]; funext j r k s; simp only [BMat.add, BMat.sub]; grind

/-- **Paper Prop 4.1 / audit D2, the split as a linear isomorphism.**
`BMat m α ≅ commutant × ker Π`, `G ↦ (Π G, G - Π G)`, inverse `(C, K) ↦ C + K`
(non-resonance, `2 ≠ 0`). -/
noncomputable def splitLinIso (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    LinIso α (BMat m α)
      ({G : BMat m α // Commutes ρ G} × {G : BMat m α // proj G = BMat.zero}) where
  toFun G := (⟨proj G, proj_commutes ρ G⟩, ⟨BMat.sub G (proj G), proj_sub_proj h2 G⟩)
  invFun p := BMat.add p.1.1 p.2.1
  left_inv G := proj_add_sub G
  right_inv p := by
    obtain ⟨h1, h2'⟩ := (commutant_kernel_directSum ρ h2 hNR (BMat.add p.1.1 p.2.1)).2
      p.1.1 p.2.1 p.1.2 p.2.2 rfl
    exact Prod.ext (Subtype.ext h1.symm) (Subtype.ext h2'.symm)
  isLinear_toFun :=
    ⟨fun G H => by
      refine Prod.ext (Subtype.ext (proj_add G H)) (Subtype.ext ?_)
      show BMat.sub (BMat.add G H) (proj (BMat.add G H))
        = BMat.add (BMat.sub G (proj G)) (BMat.sub H (proj H))
      rw [proj_add]; funext j r k s; simp only [BMat.add, BMat.sub]; grind,
    fun c G => by
      refine Prod.ext (Subtype.ext (proj_smul c G)) (Subtype.ext ?_)
      show BMat.sub (BMat.smul c G) (proj (BMat.smul c G)) = BMat.smul c (BMat.sub G (proj G))
      rw [proj_smul]; funext j r k s; simp only [BMat.smul, BMat.sub]; grind⟩

/-- Flat `2m × 2m` matrices are linearly isomorphic to pair-indexed ones
(`A ↦ BMat.ofFlat A`, inverse `BMat.toFlat`). -/
noncomputable def flatLinIso : LinIso α (Mat (2 * m) (2 * m) α) (BMat m α) where
  toFun := BMat.ofFlat
  invFun := BMat.toFlat
  left_inv := BMat.toFlat_ofFlat
  right_inv := BMat.ofFlat_toFlat
  isLinear_toFun := ⟨fun _ _ => rfl, fun _ _ => rfl⟩

/-- **Paper Prop 4.1, coordinates of all `d_k × d_k` matrices.** Under non-resonance and
`2 ≠ 0`: `Mat (2m) (2m) α ≅ α^{2m} × α^{(2m)² - 2m}`, linearly: the first coordinates are those of
the commutant part `Π G`, the second those of the absolute-position-sensitive part `G - Π G`. -/
noncomputable def matCoordsLinIso (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    LinIso α (Mat (2 * m) (2 * m) α) ((Fin (2 * m) → α) × (Fin ((2 * m) ^ 2 - 2 * m) → α)) :=
  flatLinIso.trans ((splitLinIso ρ h2 hNR).trans
    ((commutantLinIsoFin ρ h2 hNR).symm.prodMap (kernelLinIsoFin h2).symm))

end PLGA.Rope
