module

public import Formal.Rope.Projection
public import Formal.Data.FinBij

/-!
# Dimension counts: commutant `d_k`, absolute-position-sensitive part `d_k² - d_k` (Prop 4.1)

Prop 4.1 counts, per head, a commutant of real dimension `d_k` and `d_k² - d_k`
absolute-position-sensitive directions (`4032` at `d_k = 64`). Core Lean has no dimension theory,
so the counts are stated as explicit bijections with `α^N` for a computed `N`.

## Main definitions

* `skipIdx`, `unskipIdx`: the `t`-th plane index different from `j`, and its inverse;
* `KerIdx m`: the free coordinates of the kernel of the commutant projection `Π`,
  `(off-diagonal block pairs (j, k), j ≠ k, × 4 entries) ⊕ (m diagonal blocks × 2)`;
* `kblock`, `kerEmbed`, `kerCoords`: a diagonal block in the kernel is `[[x, y], [y, -x]]`, an
  off-diagonal block is free;
* `kernelBij`: `(KerIdx m → α) ≃ ker Π`; `kerIdxBij`: `KerIdx m ≃ Fin ((2m)² - 2m)`;
* `kernelBijFin`: `α^{(2m)² - 2m} ≃ ker Π`;
* `pairSplit`, `commutantBijFin`: `α^{2m} ≃ {G | ∀ n, G R_n = R_n G}` (non-resonance, `2 ≠ 0`).

## Main statements

* `proj_kerEmbed`, `kerCoords_kerEmbed`, `kerEmbed_kerCoords`: `kerEmbed` lands in `ker Π` and
  is a bijection onto it (`2 ≠ 0`);
* `kerIdx_count`: `m(m-1)·4 + 2m = (2m)² - 2m`, the count `d_k² - d_k`;
* `kernel_dim_reference`: `(2·32)² - 2·32 = 4032`;
* `commutant_add_kernel_count`: commutant and kernel coordinates fill the `(2m)²` entries.

## Implementation notes

The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart. The counts
here are explicit parametrizations; `Formal.Rope.Dimension` makes them linear isomorphisms and
proves the dimensions invariant (`kernel_dim_eq`, `commutant_dim_eq`: any linear coordinate space
isomorphic to the kernel or the commutant has `(2m)² − 2m`, resp. `2m`, coordinates).

## References

* Prop 4.1 of the paper (the counts `d_k`, `d_k² - d_k`);
* `../shared/spec/PLGA_SPEC.md` §A.0 (`d_k = 64`), §A.4.2 (RoPE).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.Field α] {m : Nat}

/-- The `t`-th plane index different from `j` (skipping `j`). -/
def skipIdx (j : Fin m) (t : Fin (m - 1)) : Fin m :=
  ⟨if t.val < j.val then t.val else t.val + 1, by
    have := t.isLt; have := j.isLt; split <;> omega⟩

/-- Inverse of `skipIdx j` on `k ≠ j`. -/
def unskipIdx (j k : Fin m) (h : ¬ j = k) : Fin (m - 1) :=
  ⟨if k.val < j.val then k.val else k.val - 1, by
    have := k.isLt; have := j.isLt; have : j.val ≠ k.val := fun e => h (Fin.ext e)
    split <;> omega⟩

theorem skipIdx_ne (j : Fin m) (t : Fin (m - 1)) : ¬ j = skipIdx j t := by
  intro e; have := congrArg Fin.val e; simp only [skipIdx] at this; split at this <;> omega

theorem skipIdx_unskipIdx (j k : Fin m) (h : ¬ j = k) : skipIdx j (unskipIdx j k h) = k := by
  have : j.val ≠ k.val := fun e => h (Fin.ext e)
  apply Fin.ext; simp only [skipIdx, unskipIdx]
  by_cases hk : k.val < j.val
  · simp only [hk, if_true]
  · simp only [hk, if_false]; split <;> omega

theorem unskipIdx_skipIdx (j : Fin m) (t : Fin (m - 1)) (h : ¬ j = skipIdx j t) :
    unskipIdx j (skipIdx j t) h = t := by
  apply Fin.ext; simp only [skipIdx, unskipIdx]
  by_cases ht : t.val < j.val
  · simp only [ht, if_true]
  · simp only [ht, if_false]; split <;> omega

/-- The free coordinates of `ker Π`: `inl ((j, t), (r, s))` is entry `(r, s)` of the
off-diagonal block `(j, skipIdx j t)`; `inr (j, r)` is entry `(0, r)` of diagonal block `j`. -/
abbrev KerIdx (m : Nat) := ((Fin m × Fin (m - 1)) × (Fin 2 × Fin 2)) ⊕ (Fin m × Fin 2)

/-- The kernel shape of a diagonal block: `[[x, y], [y, -x]]`. -/
def kblock [Neg α] (x y : α) : M2 α := fun r s => if r = s then (if r = 0 then x else -x) else y

/-- The kernel element with free coordinates `p`. -/
def kerEmbed (p : KerIdx m → α) : BMat m α := fun j r k s =>
  if h : j = k then kblock (p (.inr (j, 0))) (p (.inr (j, 1))) r s
  else p (.inl ((j, unskipIdx j k h), (r, s)))

/-- The free coordinates of a matrix. -/
def kerCoords (G : BMat m α) : KerIdx m → α := fun i =>
  match i with
  | .inl ((j, t), (r, s)) => G j r (skipIdx j t) s
  | .inr (j, r) => G j 0 j r

theorem kerEmbed_diag (p : KerIdx m → α) (j : Fin m) (r s : Fin 2) :
    kerEmbed p j r j s = kblock (p (.inr (j, 0))) (p (.inr (j, 1))) r s := dif_pos rfl

/-- `kerEmbed` lands in the kernel of `Π`. -/
theorem proj_kerEmbed (p : KerIdx m → α) : proj (kerEmbed p) = BMat.zero := by
  simp only [proj, kerEmbed_diag]
  have ha : (fun j => (kblock (p (.inr (j, 0))) (p (.inr (j, 1))) 0 0 +
      kblock (p (.inr (j, 0))) (p (.inr (j, 1))) 1 1) / 2) = fun _ => (0 : α) := by
    funext j; simp only [kblock, if_true, fin2_one_ne_zero, if_false]; grind
  have hb : (fun j => (kblock (p (.inr (j, 0))) (p (.inr (j, 1))) 1 0 -
      kblock (p (.inr (j, 0))) (p (.inr (j, 1))) 0 1) / 2) = fun _ => (0 : α) := by
    funext j; simp only [kblock, fin2_one_ne_zero, if_false, fin2_one_ne_zero.symm]; grind
  rw [ha, hb, commEmbed_zero]

/-- Coordinates of `kerEmbed p` are `p`. -/
theorem kerCoords_kerEmbed (p : KerIdx m → α) : kerCoords (kerEmbed p) = p := by
  funext i
  rcases i with ⟨⟨j, t⟩, ⟨r, s⟩⟩ | ⟨j, r⟩
  · simp only [kerCoords, kerEmbed, skipIdx_ne j t, dite_false, unskipIdx_skipIdx]
  · simp only [kerCoords, kerEmbed_diag, kblock]
    rcases fin2_cases r with rfl | rfl
    · simp only [if_true]
    · simp only [fin2_one_ne_zero.symm, if_false]

/-- A kernel element is `kerEmbed` of its coordinates (`2 ≠ 0`). -/
theorem kerEmbed_kerCoords (h2 : (2 : α) ≠ 0) {G : BMat m α} (hG : proj G = BMat.zero) :
    kerEmbed (kerCoords G) = G := by
  funext j r k s
  by_cases h : j = k
  · subst h
    rw [kerEmbed_diag]
    have e := proj_apply_diag G j
    rw [hG] at e
    simp only [BMat.zero] at e
    have e1 : G j 1 j 1 = -G j 0 j 0 := by grind
    have e2 : G j 1 j 0 = G j 0 j 1 := by grind
    simp only [kerCoords, kblock]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [if_true, fin2_one_ne_zero, fin2_one_ne_zero.symm, if_false, e1, e2]
  · simp only [kerEmbed, h, dite_false, kerCoords, skipIdx_unskipIdx]

/-- **Paper Prop 4.1, the absolute-position-sensitive part is parametrized.** The explicit
bijection `(KerIdx m → α) ≃ ker Π` (`2 ≠ 0`). Not covered: linear-algebraic dimension as an
invariant. -/
noncomputable def kernelBij (h2 : (2 : α) ≠ 0) :
    Bij (KerIdx m → α) {G : BMat m α // proj G = BMat.zero} where
  toFun p := ⟨kerEmbed p, proj_kerEmbed p⟩
  invFun G := kerCoords G.1
  left_inv p := kerCoords_kerEmbed p
  right_inv G := Subtype.ext (kerEmbed_kerCoords h2 G.2)

/-- **Paper Prop 4.1, the count `d_k² - d_k`.** The number of free kernel coordinates,
`m(m-1)·4 + 2m`, equals `(2m)² - 2m`. Not covered: nothing further. -/
theorem kerIdx_count (m : Nat) : m * (m - 1) * (2 * 2) + m * 2 = (2 * m) ^ 2 - 2 * m := by
  cases m with
  | zero => rfl
  | succ k => grind

/-- `KerIdx m ≃ Fin ((2m)² - 2m)`. -/
noncomputable def kerIdxBij (m : Nat) : Bij (KerIdx m) (Fin ((2 * m) ^ 2 - 2 * m)) :=
  ((Bij.sumMap (((Bij.finProd m (m - 1)).prodMap (Bij.finProd 2 2)).trans (Bij.finProd _ _))
    (Bij.finProd m 2)).trans (Bij.finSum _ _)).trans (Bij.finCast (kerIdx_count m))

/-- **Paper Prop 4.1: `α^{d_k² - d_k} ≃ ker Π`** with `d_k = 2m` (`2 ≠ 0`). -/
noncomputable def kernelBijFin (h2 : (2 : α) ≠ 0) :
    Bij (Fin ((2 * m) ^ 2 - 2 * m) → α) {G : BMat m α // proj G = BMat.zero} :=
  ((kerIdxBij m).arrow α).symm.trans (kernelBij h2)

/-- **Paper Prop 4.1 at the reference head size `d_k = 64`:** `64² - 64 = 4032` absolute-position
sensitive directions (the index count of `kernelBijFin` at `m = 32`). -/
theorem kernel_dim_reference : (2 * 32) ^ 2 - 2 * 32 = 4032 := by decide

/-- The commutant and kernel coordinates together fill the `(2m)²` matrix entries. -/
theorem commutant_add_kernel_count (m : Nat) : 2 * m + ((2 * m) ^ 2 - 2 * m) = (2 * m) ^ 2 := by
  cases m with
  | zero => rfl
  | succ k => grind

/-- `(Fin m × Fin 2 → α) ≃ (Fin m → α) × (Fin m → α)`, `f ↦ (f (·, 0), f (·, 1))`. -/
def pairSplit : Bij (Fin m × Fin 2 → α) ((Fin m → α) × (Fin m → α)) where
  toFun f := (fun j => f (j, 0), fun j => f (j, 1))
  invFun p := fun i => if i.2 = 0 then p.1 i.1 else p.2 i.1
  left_inv f := by
    funext i; rcases i with ⟨j, r⟩
    rcases fin2_cases r with rfl | rfl
    · simp only [if_true]
    · simp only [fin2_one_ne_zero, if_false]
  right_inv p := by simp only [if_true, fin2_one_ne_zero, if_false]

variable (ρ : RotFamily α m)

/-- **Paper Prop 4.1: the commutant has dimension `d_k`.** Explicit bijection
`α^{2m} ≃ {G | ∀ n, G R_n = R_n G}` under non-resonance and `2 ≠ 0` (flat coordinate `2j + r`
↦ `a_j` for `r = 0`, `b_j` for `r = 1`). Linear, with the dimension invariant:
`Rope.commutantLinIsoFin`, `commutant_dim_eq` (`Formal.Rope.Dimension`). -/
noncomputable def commutantBijFin (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) :
    Bij (Fin (2 * m) → α) {G : BMat m α // Commutes ρ G} :=
  (((Bij.finProd m 2).trans (Bij.finCast (Nat.mul_comm m 2))).arrow α).symm.trans
    (pairSplit.trans (commutantBij ρ h2 hNR))

end PLGA.Rope
