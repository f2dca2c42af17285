module

public import Formal.Rope.Commutant

/-!
# A non-vacuity witness: a non-resonant rotation family over `Rat` (Prop 4.1 hypotheses)

The hypotheses of the RoPE commutant theorems (`RotFamily`, `NonResonant`, `2 ≠ 0`) are
satisfiable in core Lean: unit-norm pairs `z j = (a_j, b_j)` (`a_j² + b_j² = 1`) give the rotation
family `rot_j(n) = rot(z_j)^n`, `n : Int` (complex powers written on pairs), and the Pythagorean
rotations `(3/5, 4/5)` and `(5/13, 12/13)` on `m = 2` planes are non-resonant at position `n = 1`.
So `commutes_iff_eq_commEmbed` has a concrete instance.

## Main definitions

* `cmul`, `conj`, `npow`, `ipow`: pairs read as complex numbers, conjugate, powers `z^k`
  (`k : Nat`) and `z^n` (`n : Int`, `z^{-k-1} = conj (z^{k+1})`);
* `ipowFamily z`: the rotation family `rot_j(n) = rot(z_j)^n` of unit-norm pairs;
* `ratPairs`, `ratWitness`: the Pythagorean pairs and the concrete family over `Rat`.

## Main statements

* `int_step_induction`, `ipow_add`: induction over `Int` by unit steps; the group law of `ipow`;
* `ratWitness_nonResonant`: the witness family is non-resonant;
* `ratWitness_commutes_iff`: Prop 4.1's commutant characterization instantiated.

## Implementation notes

No paper result is formalized here; this is a consistency check of the hypothesis structures.
The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has no counterpart (it works with
the real family directly). Not covered: the real family `cos (n θ_j)`, `sin (n θ_j)` (needs
mathlib).

## References

* Prop 4.1 of the paper (its hypotheses);
* `../shared/spec/PLGA_SPEC.md` §A.4.2 (RoPE).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.CommRing α]

/-- Product of pairs read as complex numbers `a + b i`. -/
def cmul (z w : α × α) : α × α := (z.1 * w.1 - z.2 * w.2, z.1 * w.2 + z.2 * w.1)

/-- Complex conjugate of a pair. -/
def conj (z : α × α) : α × α := (z.1, -z.2)

/-- `z^k`, `k : Nat`. -/
def npow (z : α × α) : Nat → α × α
  | 0 => (1, 0)
  | k + 1 => cmul (npow z k) z

/-- `z^n`, `n : Int`, with `z^{-k-1} = conj (z^{k+1})` (the inverse for `|z| = 1`). -/
def ipow (z : α × α) : Int → α × α
  | .ofNat k => npow z k
  | .negSucc k => conj (npow z (k + 1))

/-- Induction over `Int` by steps `n ↦ n + 1` and `n ↦ n - 1` from `0`. -/
theorem int_step_induction (p : Int → Prop) (h0 : p 0) (hs : ∀ n, p n → p (n + 1))
    (hp : ∀ n, p n → p (n - 1)) : ∀ n, p n := by
  intro n
  cases n with
  | ofNat k =>
    induction k with
    | zero => exact h0
    | succ k ih => exact hs _ ih
  | negSucc k =>
    induction k with
    | zero => have := hp 0 h0; exact this
    | succ k ih =>
      have := hp _ ih
      have e : Int.negSucc k - 1 = Int.negSucc (k + 1) := by simp only [Int.negSucc_eq]; omega
      rw [e] at this; exact this

section
variable (z : α × α) (hz : z.1 * z.1 + z.2 * z.2 = 1)
include hz

theorem npow_norm (k : Nat) : (npow z k).1 * (npow z k).1 + (npow z k).2 * (npow z k).2 = 1 := by
  induction k with
  | zero => simp only [npow]; grind
  | succ k ih => simp only [npow, cmul]; grind

theorem ipow_norm (n : Int) : (ipow z n).1 * (ipow z n).1 + (ipow z n).2 * (ipow z n).2 = 1 := by
  cases n with
  | ofNat k => exact npow_norm z hz k
  | negSucc k => have := npow_norm z hz (k + 1); simp only [ipow, conj]; grind

theorem ipow_succ (n : Int) : ipow z (n + 1) = cmul (ipow z n) z := by
  cases n with
  | ofNat k => rfl
  | negSucc k =>
    cases k with
    | zero =>
      have e : Int.negSucc 0 + 1 = Int.ofNat 0 := by decide
      rw [e]; simp only [ipow, npow, cmul, conj]
      apply Prod.ext <;> simp only <;> grind
    | succ k =>
      have e : Int.negSucc (k + 1) + 1 = Int.negSucc k := by simp only [Int.negSucc_eq]; omega
      rw [e]; simp only [ipow, npow, cmul, conj]
      apply Prod.ext <;> simp only <;> grind

theorem ipow_pred (n : Int) : ipow z (n - 1) = cmul (ipow z n) (conj z) := by
  have h := ipow_succ z hz (n - 1)
  rw [Int.sub_add_cancel] at h
  rw [h]; simp only [cmul, conj]
  apply Prod.ext <;> simp only <;> grind

theorem ipow_add (n n' : Int) : ipow z (n + n') = cmul (ipow z n) (ipow z n') := by
  revert n
  refine int_step_induction (fun n' => ∀ n, ipow z (n + n') = cmul (ipow z n) (ipow z n'))
    ?_ ?_ ?_ n'
  · intro n; rw [Int.add_zero]; simp only [cmul]
    apply Prod.ext <;> simp only [ipow, npow] <;> grind
  · intro k ih n
    rw [← Int.add_assoc, ipow_succ z hz, ipow_succ z hz, ih]; simp only [cmul]
    apply Prod.ext <;> simp only <;> grind
  · intro k ih n
    have e : n + (k - 1) = n + k - 1 := by omega
    rw [e, ipow_pred z hz, ipow_pred z hz, ih]; simp only [cmul, conj]
    apply Prod.ext <;> simp only <;> grind

end

/-- The rotation family `rot_j(n) = rot(z_j)^n` of unit-norm pairs `z_j`. -/
def ipowFamily {m : Nat} (z : Fin m → α × α) (hz : ∀ j, (z j).1 * (z j).1 + (z j).2 * (z j).2 = 1) :
    RotFamily α m where
  c j n := (ipow (z j) n).1
  s j n := (ipow (z j) n).2
  sq_add_sq j n := ipow_norm (z j) (hz j) n
  c_add j n n' := by rw [ipow_add (z j) (hz j)]; rfl
  s_add j n n' := by rw [ipow_add (z j) (hz j)]; simp only [cmul]; grind

/-- The Pythagorean rotations `(3/5, 4/5)` (plane 0) and `(5/13, 12/13)` (plane 1). -/
def ratPairs (j : Fin 2) : Rat × Rat := if j = 0 then (3 / 5, 4 / 5) else (5 / 13, 12 / 13)

theorem ratPairs_norm (j : Fin 2) :
    (ratPairs j).1 * (ratPairs j).1 + (ratPairs j).2 * (ratPairs j).2 = 1 := by
  rcases fin2_cases j with rfl | rfl <;>
    simp only [ratPairs, if_true, fin2_one_ne_zero, if_false] <;> grind

/-- A concrete rotation family over `Rat` on two planes. -/
def ratWitness : RotFamily Rat 2 := ipowFamily ratPairs ratPairs_norm

theorem ratWitness_c_one (j : Fin 2) : ratWitness.c j 1 = (ratPairs j).1 := by
  show (cmul (1, 0) (ratPairs j)).1 = _; simp only [cmul]; grind

theorem ratWitness_s_one (j : Fin 2) : ratWitness.s j 1 = (ratPairs j).2 := by
  show (cmul (1, 0) (ratPairs j)).2 = _; simp only [cmul]; grind

/-- The witness family is non-resonant (position `n = 1` separates the planes and has nonzero
sines), so the hypotheses of Prop 4.1's commutant theorems are satisfiable.
Not covered: the real RoPE frequencies (a hypothesis certified numerically). -/
theorem ratWitness_nonResonant : NonResonant ratWitness where
  cos_sep j k hjk := by
    refine ⟨1, ?_⟩
    rw [ratWitness_c_one, ratWitness_c_one]
    rcases fin2_cases j with rfl | rfl <;> rcases fin2_cases k with rfl | rfl
    · exact absurd rfl hjk
    · simp only [ratPairs, if_true, fin2_one_ne_zero, if_false]; grind
    · simp only [ratPairs, if_true, fin2_one_ne_zero, if_false]; grind
    · exact absurd rfl hjk
  sin_ne j := by
    refine ⟨1, ?_⟩
    rw [ratWitness_s_one]
    rcases fin2_cases j with rfl | rfl <;>
      simp only [ratPairs, if_true, fin2_one_ne_zero, if_false] <;> grind

/-- Paper Prop 4.1 instantiated (non-vacuity): for the `Rat` witness family, the operators
commuting with every `R_n` are exactly `blockdiag_j (a_j·1 + b_j·J)`.
Not covered: the real RoPE family. -/
theorem ratWitness_commutes_iff (G : BMat 2 Rat) :
    Commutes ratWitness G ↔ ∃ a b, G = commEmbed a b :=
  commutes_iff_eq_commEmbed ratWitness (by grind) ratWitness_nonResonant G

end PLGA.Rope
