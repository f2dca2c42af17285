module

public import Formal.Rope.Commutant

/-!
# The commutant projection `Π` and the Frobenius-orthogonal split (Prop 4.1, audit D2)

`proj G` keeps, in each diagonal block `(j, j)`, only its `a·1 + b·J` part with
`a = (G_{00} + G_{11})/2`, `b = (G_{10} - G_{01})/2`, and zeroes every off-diagonal block. Over a
field with `2 ≠ 0` it is an idempotent projection onto the RoPE commutant whose kernel is the
Frobenius-orthogonal complement, every nonzero kernel element is absolute-position sensitive, and
`G` is relative iff its residual `G - Π G` vanishes.

## Main definitions

* `proj G`: the commutant projection `Π`.

## Main statements

Theorem 6 of the assignment, over a field with `2 ≠ 0`:

* `proj_commutes`: `Π G` always lies in the commutant; `proj_proj`: `Π` is idempotent;
* `proj_eq_self_iff`: `Π G = G` iff `G` commutes with all `R_n` (non-resonance);
* `proj_eq_zero_iff_orthogonal`, `proj_eq_zero_iff_orthogonal_commutant`: the kernel of `Π` is
  the Frobenius-orthogonal complement of the commutant;
* `proj_add_sub`, `proj_sub_proj`, `frob_proj_sub`: `G = Π G + (G - Π G)`, the second part in the
  kernel, the two parts Frobenius-orthogonal;
* `not_isRelative_of_proj_eq_zero`: every nonzero kernel element gives absolute-position
  dependent scores (the "absolute-position-sensitive part");
* `isRelative_iff_sub_proj_eq_zero`: `G` is relative iff its residual `G - Π G` vanishes.

## Implementation notes

This is the commutant projection used by the audit's commutant residual
`ρ(G) = ‖G - Π G‖_F / ‖G‖_F` (spec §D, D2: there `Π` keeps the entries with equal RoPE frequency
in the complex eigenbasis, which for a non-resonant spectrum is exactly this map;
`pyref.analysis.commutant_residual` is fuzzed against it). The coordinate count of the kernel is
in `Formal/Rope/Kernel.lean`. The authors' repository `burcgokden/PLDR-LLM-Math-Foundations` has
no counterpart. Not covered: the audit's complex-eigenbasis formula itself (it is numerics, not
Lean).

## References

* Prop 4.1 of the paper;
* `../shared/spec/PLGA_SPEC.md` §D (audit quantity D2, commutant residual).
-/

@[expose] public section

namespace PLGA.Rope

universe u
variable {α : Type u} [Lean.Grind.Field α] {m : Nat}

/-- The commutant projection `Π`. -/
noncomputable def proj (G : BMat m α) : BMat m α :=
  commEmbed (fun j => (G j 0 j 0 + G j 1 j 1) / 2) (fun j => (G j 1 j 0 - G j 0 j 1) / 2)

theorem proj_apply_diag (G : BMat m α) (j : Fin m) :
    proj G j 0 j 0 = (G j 0 j 0 + G j 1 j 1) / 2 ∧ proj G j 1 j 1 = (G j 0 j 0 + G j 1 j 1) / 2 ∧
    proj G j 1 j 0 = (G j 1 j 0 - G j 0 j 1) / 2
      ∧ proj G j 0 j 1 = -((G j 1 j 0 - G j 0 j 1) / 2) := by
  refine ⟨?_, ?_, ?_, ?_⟩ <;>
    simp only [proj, commEmbed, BMat.bdiag, if_true, M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11]

/-- The Frobenius pairing with a commutant element, in coordinates. -/
theorem frob_commEmbed (G : BMat m α) (a b : Fin m → α) :
    BMat.frob G (commEmbed a b) =
      fsum m (fun j => a j * (G j 0 j 0 + G j 1 j 1) + b j * (G j 1 j 0 - G j 0 j 1)) := by
  simp only [BMat.frob]
  have h : ∀ j r, psum m (fun k s => G j r k s * commEmbed a b j r k s)
      = G j r j 0 * M2.rot (a j) (b j) r 0 + G j r j 1 * M2.rot (a j) (b j) r 1 := by
    intro j r
    rw [psum_block j]
    · simp only [commEmbed, BMat.bdiag, if_true]
    · intro k hk; have : j ≠ k := fun e => hk e.symm
      simp only [commEmbed, BMat.bdiag, this, if_false]; constructor <;> grind
  rw [psum_congr h]; unfold psum; apply fsum_congr; intro j
  simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11]; grind

theorem frob_comm (A B : BMat m α) : BMat.frob A B = BMat.frob B A := by
  simp only [BMat.frob]; apply psum_congr; intro j r; apply psum_congr; intro k s; grind

variable (ρ : RotFamily α m)

/-- Paper Prop 4.1 / audit D2: `Π G` lies in the RoPE commutant for every `G`.
Not covered: nothing further. -/
theorem proj_commutes (G : BMat m α) : Commutes ρ (proj G) := commEmbed_commutes ρ _ _

/-- `Π` fixes every `blockdiag_j (a_j·1 + b_j·J)`. -/
theorem proj_commEmbed (h2 : (2 : α) ≠ 0) (a b : Fin m → α) :
    proj (commEmbed a b) = commEmbed a b := by
  simp only [proj]
  have ha : (fun j => (commEmbed a b j 0 j 0 + commEmbed a b j 1 j 1) / 2) = a := by
    funext j; simp only [commEmbed, BMat.bdiag, if_true, M2.rot_00, M2.rot_11]; grind
  have hb : (fun j => (commEmbed a b j 1 j 0 - commEmbed a b j 0 j 1) / 2) = b := by
    funext j; simp only [commEmbed, BMat.bdiag, if_true, M2.rot_10, M2.rot_01]; grind
  rw [ha, hb]

/-- **Audit D2 / Prop 4.1: `Π` is idempotent**, `Π (Π G) = Π G`. Not covered: nothing further. -/
theorem proj_proj (h2 : (2 : α) ≠ 0) (G : BMat m α) : proj (proj G) = proj G :=
  proj_commEmbed h2 _ _

/-- **Audit D2 / Prop 4.1: `Π` fixes exactly the commutant.** Under non-resonance and `2 ≠ 0`,
`Π G = G` iff `G R_n = R_n G` for all `n`. Not covered: nothing further. -/
theorem proj_eq_self_iff (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) (G : BMat m α) :
    proj G = G ↔ Commutes ρ G := by
  constructor
  · intro h; rw [← h]; exact proj_commutes ρ G
  · intro hG
    obtain ⟨a, b, rfl⟩ := (commutes_iff_eq_commEmbed ρ h2 hNR G).1 hG
    exact proj_commEmbed h2 a b

/-- **Audit D2: the kernel of `Π` is the Frobenius-orthogonal complement of
`{blockdiag_j (a_j·1 + b_j·J)}`.** Not covered: nothing further. -/
theorem proj_eq_zero_iff_orthogonal (h2 : (2 : α) ≠ 0) (G : BMat m α) :
    proj G = BMat.zero ↔ ∀ a b : Fin m → α, BMat.frob G (commEmbed a b) = 0 := by
  constructor
  · intro h a b
    rw [frob_commEmbed]
    rw [fsum_congr m (g := fun _ => (0 : α)), fsum_const_zero]
    intro j
    have e := proj_apply_diag G j
    rw [h] at e
    simp only [BMat.zero] at e
    have e1 : G j 0 j 0 + G j 1 j 1 = 0 := by grind
    have e2 : G j 1 j 0 - G j 0 j 1 = 0 := by grind
    rw [e1, e2]; grind
  · intro h
    have hA : ∀ j, G j 0 j 0 + G j 1 j 1 = 0 := by
      intro j
      have e := h (fun i => if i = j then 1 else 0) (fun _ => 0)
      rw [frob_commEmbed, fsum_single m j] at e
      · simp only [if_true] at e; grind
      · intro i hi; simp only [hi, if_false]; grind
    have hB : ∀ j, G j 1 j 0 - G j 0 j 1 = 0 := by
      intro j
      have e := h (fun _ => 0) (fun i => if i = j then 1 else 0)
      rw [frob_commEmbed, fsum_single m j] at e
      · simp only [if_true] at e; grind
      · intro i hi; simp only [hi, if_false]; grind
    simp only [proj]
    have ha : (fun j => (G j 0 j 0 + G j 1 j 1) / 2) = fun _ => (0 : α) := by
      funext j; rw [hA j]; grind
    have hb : (fun j => (G j 1 j 0 - G j 0 j 1) / 2) = fun _ => (0 : α) := by
      funext j; rw [hB j]; grind
    rw [ha, hb, commEmbed_zero]

/-- **Audit D2 / Prop 4.1: kernel of `Π` = Frobenius-orthogonal complement of the RoPE
commutant** (non-resonance, `2 ≠ 0`). Not covered: nothing further. -/
theorem proj_eq_zero_iff_orthogonal_commutant (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ)
    (G : BMat m α) : proj G = BMat.zero ↔ ∀ H, Commutes ρ H → BMat.frob G H = 0 := by
  rw [proj_eq_zero_iff_orthogonal h2]
  constructor
  · intro h H hH
    obtain ⟨a, b, rfl⟩ := (commutes_iff_eq_commEmbed ρ h2 hNR H).1 hH
    exact h a b
  · intro h a b; exact h _ (commEmbed_commutes ρ a b)

/-- `Π` is additive on differences. -/
theorem proj_sub (G H : BMat m α) : proj (BMat.sub G H) = BMat.sub (proj G) (proj H) := by
  funext j r k s
  simp only [proj, commEmbed, BMat.bdiag, BMat.sub]
  by_cases h : j = k
  · subst h; simp only [if_true]
    rcases fin2_cases r with rfl | rfl <;> rcases fin2_cases s with rfl | rfl <;>
      simp only [M2.rot_00, M2.rot_01, M2.rot_10, M2.rot_11] <;> grind
  · simp only [h, if_false]; grind

/-- The decomposition `G = Π G + (G - Π G)`. -/
theorem proj_add_sub (G : BMat m α) : BMat.add (proj G) (BMat.sub G (proj G)) = G := by
  funext j r k s; simp only [BMat.add, BMat.sub]; grind

/-- **Audit D2: the residual `G - Π G` lies in the kernel of `Π`.** Not covered: nothing further. -/
theorem proj_sub_proj (h2 : (2 : α) ≠ 0) (G : BMat m α) :
    proj (BMat.sub G (proj G)) = BMat.zero := by
  rw [proj_sub, proj_proj h2]; funext j r k s; simp only [BMat.sub, BMat.zero]; grind

/-- **Audit D2 / Prop 4.1: `G = Π G + (G - Π G)` is Frobenius-orthogonal**:
`⟨Π G, G - Π G⟩_F = 0`. Not covered: nothing further. -/
theorem frob_proj_sub (h2 : (2 : α) ≠ 0) (G : BMat m α) :
    BMat.frob (proj G) (BMat.sub G (proj G)) = 0 := by
  rw [frob_comm]
  exact (proj_eq_zero_iff_orthogonal h2 _).1 (proj_sub_proj h2 G) _ _

/-- The kernel of `Π` meets the commutant only in `0` (non-resonance, `2 ≠ 0`). -/
theorem eq_zero_of_commutes_of_proj_eq_zero (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ)
    {G : BMat m α} (hG : Commutes ρ G) (h0 : proj G = BMat.zero) : G = BMat.zero := by
  rw [← (proj_eq_self_iff ρ h2 hNR G).2 hG, h0]

/-- **Paper Prop 4.1: the kernel of `Π` is absolute-position sensitive.** Under non-resonance
and `2 ≠ 0`, a nonzero `G` with `Π G = 0` has a score form `R_nᵀ G R_{n'}` that does not depend
on `n' - n` alone. Not covered: quantitative size of the absolute-position dependence. -/
theorem not_isRelative_of_proj_eq_zero (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) {G : BMat m α}
    (h0 : proj G = BMat.zero) (hne : G ≠ BMat.zero) : ¬ IsRelative ρ G := by
  intro hrel
  exact hne (eq_zero_of_commutes_of_proj_eq_zero ρ h2 hNR ((isRelative_iff_commutes ρ G).1 hrel) h0)

/-- **Audit D2 / Prop 4.1: the commutant residual vanishes exactly for relative-position
operators.** Under non-resonance and `2 ≠ 0`, the score form of `G` depends only on `n' - n`
iff `G - Π G = 0`, i.e. iff the audit's residual `‖G - Π G‖_F / ‖G‖_F` is zero.
Not covered: the quantitative residual (norms are numerics here). -/
theorem isRelative_iff_sub_proj_eq_zero (h2 : (2 : α) ≠ 0) (hNR : NonResonant ρ) (G : BMat m α) :
    IsRelative ρ G ↔ BMat.sub G (proj G) = BMat.zero := by
  rw [isRelative_iff_commutes, ← proj_eq_self_iff ρ h2 hNR]
  constructor
  · intro h; rw [h]; funext j r k s; simp only [BMat.sub, BMat.zero]; grind
  · intro h; funext j r k s
    have := congrFun (congrFun (congrFun (congrFun h j) r) k) s
    simp only [BMat.sub, BMat.zero] at this; grind

end PLGA.Rope
