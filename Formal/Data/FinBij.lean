module

/-!
# Explicit bijections between finite index types

Core Lean has no `Equiv` and no `Fintype.card`. To state dimension counts honestly ("this space is
in explicit bijection with `α^N`" for a computed `N`), this file gives a bijection structure, its
combinators and the standard index bijections.

## Main definitions

* `Bij X Y`: a bijection given by both maps and both round trips;
* `Bij.refl`, `Bij.symm`, `Bij.trans`, `Bij.prodMap`, `Bij.sumMap`, `Bij.arrow`: the combinators
  (`arrow`: a bijection of index types induces one of function spaces);
* `Bij.finProd`: `Fin a × Fin b ≃ Fin (a*b)`, `(i, j) ↦ i*b + j`;
* `Bij.finSum`: `Fin a ⊕ Fin b ≃ Fin (a+b)`;
* `Bij.finCast`: `Fin a ≃ Fin b` for `a = b`.

## Main statements

* none beyond the round-trip fields of the bijections defined here.

## Implementation notes

No paper result is formalized here; this is infrastructure for the counts in
`Formal/Rope/Kernel.lean` (moved here from `Formal/Rope`). The authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` uses mathlib's `Equiv` and `Module.finrank` instead.

## References

* Prop 4.1 of the paper (the dimension counts this serves).
-/

@[expose] public section

namespace PLGA

universe u v w u'

/-- A bijection between two types, given by both maps and both round trips
(core Lean has no `Equiv`). -/
structure Bij (X : Type u) (Y : Type v) where
  /-- forward map -/
  toFun : X → Y
  /-- inverse map -/
  invFun : Y → X
  /-- `invFun ∘ toFun = id` -/
  left_inv : ∀ x, invFun (toFun x) = x
  /-- `toFun ∘ invFun = id` -/
  right_inv : ∀ y, toFun (invFun y) = y

namespace Bij

variable {X : Type u} {Y : Type v} {Z : Type w}

/-- The identity bijection. -/
def refl (X : Type u) : Bij X X := ⟨id, id, fun _ => rfl, fun _ => rfl⟩

/-- The inverse bijection. -/
def symm (e : Bij X Y) : Bij Y X := ⟨e.invFun, e.toFun, e.right_inv, e.left_inv⟩

/-- Composition of bijections. -/
def trans (e : Bij X Y) (f : Bij Y Z) : Bij X Z where
  toFun x := f.toFun (e.toFun x)
  invFun z := e.invFun (f.invFun z)
  left_inv x := by rw [f.left_inv, e.left_inv]
  right_inv z := by rw [e.right_inv, f.right_inv]

/-- Product of bijections. -/
def prodMap {X' : Type u'} {Y' : Type w} (e : Bij X X') (f : Bij Y Y') : Bij (X × Y) (X' × Y') where
  toFun p := (e.toFun p.1, f.toFun p.2)
  invFun p := (e.invFun p.1, f.invFun p.2)
  left_inv p := by rw [e.left_inv, f.left_inv]
  right_inv p := by rw [e.right_inv, f.right_inv]

/-- Sum of bijections. -/
noncomputable def sumMap {X' : Type u'} {Y' : Type w} (e : Bij X X') (f : Bij Y Y') :
    Bij (X ⊕ Y) (X' ⊕ Y') where
  toFun p := Sum.elim (fun x => Sum.inl (e.toFun x)) (fun y => Sum.inr (f.toFun y)) p
  invFun p := Sum.elim (fun x => Sum.inl (e.invFun x)) (fun y => Sum.inr (f.invFun y)) p
  left_inv p := by cases p <;> simp only [Sum.elim_inl, Sum.elim_inr, e.left_inv, f.left_inv]
  right_inv p := by cases p <;> simp only [Sum.elim_inl, Sum.elim_inr, e.right_inv, f.right_inv]

/-- A bijection of index types induces one of function spaces (`g ↦ g ∘ e⁻¹`). -/
def arrow {I : Type v} {J : Type w} (e : Bij I J) (α : Type u) : Bij (I → α) (J → α) where
  toFun g := fun j => g (e.invFun j)
  invFun h := fun i => h (e.toFun i)
  left_inv g := funext fun i => by simp only [e.left_inv]
  right_inv h := funext fun j => by simp only [e.right_inv]

/-- `Fin a ≃ Fin b` when `a = b`. -/
def finCast {a b : Nat} (h : a = b) : Bij (Fin a) (Fin b) where
  toFun i := ⟨i.val, h ▸ i.isLt⟩
  invFun i := ⟨i.val, h ▸ i.isLt⟩
  left_inv _ := rfl
  right_inv _ := rfl

/-- `Fin a × Fin b ≃ Fin (a * b)`, `(i, j) ↦ i * b + j`. -/
noncomputable def finProd (a b : Nat) : Bij (Fin a × Fin b) (Fin (a * b)) where
  toFun p := ⟨p.1.val * b + p.2.val, by
    have h1 := p.1.isLt; have h2 := p.2.isLt
    have := Nat.mul_le_mul_right b (show p.1.val + 1 ≤ a by omega)
    rw [Nat.succ_mul] at this; omega⟩
  invFun k := (⟨k.val / b, Nat.div_lt_of_lt_mul (by
      have h : k.val < a * b := k.isLt
      exact Nat.lt_of_lt_of_eq h (Nat.mul_comm a b))⟩,
    ⟨k.val % b, Nat.mod_lt _ (Nat.pos_of_ne_zero (fun hb => by
      have h : k.val < a * b := k.isLt
      have e : a * b = 0 := by rw [hb, Nat.mul_zero]
      exact Nat.not_lt_zero _ (Nat.lt_of_lt_of_eq h e)))⟩)
  left_inv p := by
    rcases p with ⟨i, j⟩
    have hj := j.isLt
    have e1 : (i.val * b + j.val) / b = i.val := by
      rw [Nat.add_comm, Nat.add_mul_div_right _ _ (by omega), Nat.div_eq_of_lt hj]; omega
    have e2 : (i.val * b + j.val) % b = j.val := by
      rw [Nat.add_comm, Nat.add_mul_mod_self_right, Nat.mod_eq_of_lt hj]
    simp only [e1, e2]
  right_inv k := Fin.ext (by
    show k.val / b * b + k.val % b = k.val
    have := Nat.div_add_mod k.val b; rw [Nat.mul_comm]; exact this)

/-- `Fin a ⊕ Fin b ≃ Fin (a + b)`. -/
noncomputable def finSum (a b : Nat) : Bij (Fin a ⊕ Fin b) (Fin (a + b)) where
  toFun p := Sum.elim (fun i => ⟨i.val, by omega⟩) (fun j => ⟨a + j.val, by omega⟩) p
  invFun k := if h : k.val < a then Sum.inl ⟨k.val, h⟩ else Sum.inr ⟨k.val - a, by omega⟩
  left_inv p := by
    cases p with
    | inl i => simp only [Sum.elim_inl, i.isLt, dite_true]
    | inr j =>
      have : ¬ (a + j.val < a) := by omega
      simp only [Sum.elim_inr, this, dite_false]
      apply congrArg Sum.inr; apply Fin.ext; show a + j.val - a = j.val; omega
  right_inv k := by
    by_cases h : k.val < a
    · simp only [h, dite_true, Sum.elim_inl]
    · simp only [h, dite_false, Sum.elim_inr]
      apply Fin.ext; show a + (k.val - a) = k.val; omega

end Bij

end PLGA
