module

public import Formal.Data.Order

/-!
# Contraction of diameters under Lipschitz maps (Prop 5.12(i))

The metric learner acts through one shared row map `φ`, a composition of residual units
(`Structure/RowMap.lean`). Prop 5.12(i): if the units are Lipschitz, the diameter of the image
of a set of rows is controlled multiplicatively, `diam (f_N ∘ ⋯ ∘ f_1)(s) ≤ K_N ⋯ K_1 diam s`,
and in the contractive regime (`K_i ≤ K < 1`) it decays exponentially in depth. Stated for any
"distance" functions with values in an ordered ring (no metric axioms are needed), sets as
predicates, and diameters in the sup-free form `DiamLe d s D`: every two points of `s` are at
distance at most `D`.

## Main definitions

* `LipschitzWith dA dB K f`: `dB (f x) (f y) ≤ K · dA x y` for all `x`, `y`;
* `DiamLe d s D`: `d x y ≤ D` for all `x`, `y` in `s` (`diam s ≤ D`);
* `image f s`: the image of the set `s` under `f`;
* `compN f N`: `f (N-1) ∘ ⋯ ∘ f 0`, the composition of `N` distinct maps (a stack of units);
  `compN (fun _ => f) N` is the iterate `f^[N]`;
* `prodN K N`: `K (N-1) ⋯ K 0`.

## Main statements

* `diamLe_image`: a `K`-Lipschitz map (`K ≥ 0`) maps a set of diameter `≤ D` to one of diameter
  `≤ K D`;
* `lipschitzWith_comp`: `g ∘ f` is `K_g K_f`-Lipschitz;
* `diamLe_image_comp`: `diam ((g ∘ f)(s)) ≤ K_g K_f D` (authors' `diam_comp_le`);
* `diamLe_image_compN`: `diam ((f_{N-1} ∘ ⋯ ∘ f_0)(s)) ≤ (K_{N-1} ⋯ K_0) D` for distinct maps;
* `diamLe_image_iterate`: `diam (f^[N](s)) ≤ K^N D` (authors' `diam_iterate_le`);
* `diamLe_image_compN_of_le`: all `K_i ≤ K` gives `K^N D`: exponential decay in depth for `K < 1`.

## Implementation notes

`Metric.ediam s` (mathlib) is the least `D` with `DiamLe dist s D`, so "`DiamLe s D` implies
`DiamLe (f(s)) (K D)` for every `D`" is equivalent to `ediam (f '' s) ≤ K · ediam s`; the
sup-free form needs no completeness and no `ENNReal`. Counterparts in the authors' repository
`burcgokden/PLDR-LLM-Math-Foundations` (`Contraction.lean`, `PseudoEMetricSpace`, `NNReal`
constants): `diam_comp_le`, `diam_iterate_le`. Beyond it: `N` distinct maps with their own
constants (the trained units are distinct). Not covered: Lipschitz constants of the actual
units (LN_A, SwiGLU), fixed points or attractor dynamics (Prop 5.12 disclaims the Banach
reading).

## References

* Prop 5.12(i) of the paper;
* `../shared/spec/PLGA_SPEC.md` §E (the authors' theorems).
-/

@[expose] public section

namespace PLGA.Lipschitz

universe u v w x

variable {α : Type u} {β : Type v} {γ : Type w} {δ : Type x}

/-- `f` is `K`-Lipschitz from `(β, dA)` to `(γ, dB)`: `dB (f x) (f y) ≤ K · dA x y`. -/
def LipschitzWith [Mul α] [LE α] (dA : β → β → α) (dB : γ → γ → α) (K : α) (f : β → γ) : Prop :=
  ∀ x y, dB (f x) (f y) ≤ K * dA x y

/-- `diam s ≤ D` in sup-free form: every two points of `s` are at distance at most `D`. -/
def DiamLe [LE α] (d : β → β → α) (s : β → Prop) (D : α) : Prop :=
  ∀ x y, s x → s y → d x y ≤ D

/-- The image of the set `s` under `f`. -/
def image (f : β → γ) (s : β → Prop) : γ → Prop := fun z => ∃ y, s y ∧ f y = z

/-- `compN f N = f (N-1) ∘ ⋯ ∘ f 0`: `N` distinct maps applied in order (a stack of units). -/
def compN (f : Nat → β → β) : Nat → β → β
  | 0 => fun y => y
  | N + 1 => fun y => f N (compN f N y)

/-- `prodN K N = K (N-1) ⋯ K 0`, the product of the first `N` constants. -/
def prodN [Mul α] [OfNat α 1] (K : Nat → α) : Nat → α
  | 0 => 1
  | N + 1 => K N * prodN K N

section OrderedRing
variable [Lean.Grind.CommRing α] [LE α] [LT α] [Std.LawfulOrderLT α] [Std.IsLinearOrder α]
  [Lean.Grind.OrderedRing α]

/-- Prop 5.12(i), one map: a `K`-Lipschitz map with `K ≥ 0` sends a set of diameter `≤ D` to a
set of diameter `≤ K D`. Does not cover: `K < 0` (no map is then Lipschitz unless `d ≤ 0`). -/
theorem diamLe_image {dA : β → β → α} {dB : γ → γ → α} {K D : α} {f : β → γ} {s : β → Prop}
    (hf : LipschitzWith dA dB K f) (hK : 0 ≤ K) (hs : DiamLe dA s D) :
    DiamLe dB (image f s) (K * D) := by
  rintro _ _ ⟨x, hx, rfl⟩ ⟨y, hy, rfl⟩
  exact Std.le_trans (hf x y) (Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hs x y hx hy) hK)

/-- Lipschitz constants multiply under composition: `g ∘ f` is `K_g K_f`-Lipschitz (for
`K_g ≥ 0`). Does not cover: sharper constants. -/
theorem lipschitzWith_comp {dA : β → β → α} {dB : γ → γ → α} {dC : δ → δ → α} {Kf Kg : α}
    {f : β → γ} {g : γ → δ} (hf : LipschitzWith dA dB Kf f) (hg : LipschitzWith dB dC Kg g)
    (hKg : 0 ≤ Kg) : LipschitzWith dA dC (Kg * Kf) (fun y => g (f y)) := by
  intro x y
  have h := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left (hf x y) hKg
  have e : Kg * (Kf * dA x y) = Kg * Kf * dA x y := by grind
  exact Std.le_trans (hg (f x) (f y)) (e ▸ h)

/-- Prop 5.12(i), two maps (authors' `diam_comp_le`): `diam ((g ∘ f)(s)) ≤ K_g K_f · D` when
`diam s ≤ D`. Does not cover: anything beyond the constants. -/
theorem diamLe_image_comp {dA : β → β → α} {dB : γ → γ → α} {dC : δ → δ → α} {Kf Kg D : α}
    {f : β → γ} {g : γ → δ} {s : β → Prop} (hf : LipschitzWith dA dB Kf f)
    (hg : LipschitzWith dB dC Kg g) (hKf : 0 ≤ Kf) (hKg : 0 ≤ Kg) (hs : DiamLe dA s D) :
    DiamLe dC (image (fun y => g (f y)) s) (Kg * Kf * D) :=
  diamLe_image (lipschitzWith_comp hf hg hKg) (Lean.Grind.OrderedRing.mul_nonneg hKg hKf) hs

/-- A product of nonnegative constants is nonnegative. -/
theorem prodN_nonneg {K : Nat → α} (hK : ∀ i, 0 ≤ K i) (N : Nat) : 0 ≤ prodN K N := by
  induction N with
  | zero => exact Std.le_of_lt Lean.Grind.OrderedRing.zero_lt_one
  | succ N ih => exact Lean.Grind.OrderedRing.mul_nonneg (hK N) ih

/-- Prop 5.12(i), `N` distinct maps: the composition `f_{N-1} ∘ ⋯ ∘ f_0` of `K_i`-Lipschitz maps
is `K_{N-1} ⋯ K_0`-Lipschitz. Does not cover: sharper constants. -/
theorem lipschitzWith_compN {d : β → β → α} {f : Nat → β → β} {K : Nat → α}
    (hf : ∀ i, LipschitzWith d d (K i) (f i)) (hK : ∀ i, 0 ≤ K i) (N : Nat) :
    LipschitzWith d d (prodN K N) (compN f N) := by
  induction N with
  | zero => intro x y; show d x y ≤ 1 * d x y; grind
  | succ N ih =>
    have h := lipschitzWith_comp ih (hf N) (hK N)
    exact h

/-- Prop 5.12(i), a stack of `N` distinct units: `diam ((f_{N-1} ∘ ⋯ ∘ f_0)(s)) ≤
(K_{N-1} ⋯ K_0) · D` when `diam s ≤ D`. Does not cover: the constants of the actual units. -/
theorem diamLe_image_compN {d : β → β → α} {f : Nat → β → β} {K : Nat → α} {D : α}
    {s : β → Prop} (hf : ∀ i, LipschitzWith d d (K i) (f i)) (hK : ∀ i, 0 ≤ K i)
    (hs : DiamLe d s D) (N : Nat) : DiamLe d (image (compN f N) s) (prodN K N * D) :=
  diamLe_image (lipschitzWith_compN hf hK N) (prodN_nonneg hK N) hs

/-- `prodN K N ≤ c^N` when `0 ≤ K i ≤ c` for every `i`. -/
theorem prodN_le_pow {K : Nat → α} {c : α} (hK : ∀ i, 0 ≤ K i) (hc : ∀ i, K i ≤ c) (N : Nat) :
    prodN K N ≤ c ^ N := by
  induction N with
  | zero => show (1 : α) ≤ c ^ 0; rw [Lean.Grind.Semiring.pow_zero]; exact Std.le_refl _
  | succ N ih =>
    show K N * prodN K N ≤ c ^ (N + 1)
    rw [Lean.Grind.Semiring.pow_succ]
    have h0 := prodN_nonneg hK N
    have hc0 : 0 ≤ c := Std.le_trans (hK 0) (hc 0)
    have a := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (hc N) h0
    have b := Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_left ih hc0
    have e : c * c ^ N = c ^ N * c := by grind
    grind

/-- Prop 5.12(i), contractive regime: if every unit is `K_i`-Lipschitz with `0 ≤ K_i ≤ c`, then
`diam ((f_{N-1} ∘ ⋯ ∘ f_0)(s)) ≤ c^N · D` for `D ≥ 0`; for `c < 1` the image diameter decays
exponentially in depth. Does not cover: convergence to a point (no completeness). -/
theorem diamLe_image_compN_of_le {d : β → β → α} {f : Nat → β → β} {K : Nat → α} {c D : α}
    {s : β → Prop} (hf : ∀ i, LipschitzWith d d (K i) (f i)) (hK : ∀ i, 0 ≤ K i)
    (hc : ∀ i, K i ≤ c) (hD : 0 ≤ D) (hs : DiamLe d s D) (N : Nat) :
    DiamLe d (image (compN f N) s) (c ^ N * D) := by
  intro x y hx hy
  exact Std.le_trans (diamLe_image_compN hf hK hs N x y hx hy)
    (Lean.Grind.OrderedRing.mul_le_mul_of_nonneg_right (prodN_le_pow hK hc N) hD)

/-- Prop 5.12(i), one map iterated (authors' `diam_iterate_le`): `diam (f^[N](s)) ≤ K^N · D`
for a `K`-Lipschitz `f`, `K ≥ 0`, `diam s ≤ D`, `D ≥ 0`; the iterate `f^[N]` is
`compN (fun _ => f) N` (core Lean has no `Nat.iterate`). Does not cover: fixed points. -/
theorem diamLe_image_iterate {d : β → β → α} {f : β → β} {K D : α} {s : β → Prop}
    (hf : LipschitzWith d d K f) (hK : 0 ≤ K) (hD : 0 ≤ D) (hs : DiamLe d s D) (N : Nat) :
    DiamLe d (image (compN (fun _ => f) N) s) (K ^ N * D) :=
  diamLe_image_compN_of_le (K := fun _ => K) (fun _ => hf) (fun _ => hK) (fun _ => Std.le_refl _)
    hD hs N

end OrderedRing

end PLGA.Lipschitz
